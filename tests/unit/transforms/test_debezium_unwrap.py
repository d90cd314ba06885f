"""ExtractNewRecordState and ExtractChangedRecordState, on the cases of Debezium's own tests
(`ExtractNewRecordStateTest`, `ExtractChangedRecordStateTest`, the removed `LegacyExtractNewRecordStateTest`
for Debezium 2's keys): same events, same outcomes."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

from connectworker.api.errors import ConfigError, DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import OPTIONAL_STRING_SCHEMA, STRING_SCHEMA, Schema, SchemaAndValue, SchemaType
from connectworker.config.transforms import read_transforms
from connectworker.transforms.debezium.extract_changed_record_state import ExtractChangedRecordState
from connectworker.transforms.debezium.extract_new_record_state import ExtractNewRecordState
from connectworker.transforms.registry import builtin_transformation
from tests.unit.transforms.debezium_events import (
    EVENT_TS_MS,
    ROW,
    SOURCE_TS_MS,
    create,
    delete,
    event,
    heartbeat,
    tombstone,
    truncate,
    update,
)

UNWRAP = "io.debezium.transforms.ExtractNewRecordState"


def unwrap(**props: str) -> ExtractNewRecordState:
    transform = ExtractNewRecordState()
    transform.configure({key.replace("_", "."): value for key, value in props.items()})
    return transform


def configured(props: dict[str, str]) -> ExtractNewRecordState:
    transform = ExtractNewRecordState()
    transform.configure(props)
    return transform


def header(record: SourceRecord, name: str) -> Any:
    values = [value for key, value in record.headers if key == name]
    assert len(values) == 1, f"header {name}: {values}"
    value = values[0]
    return value.value if isinstance(value, SchemaAndValue) else value


MODES = {"drop", "tombstone", "rewrite", "rewrite-with-tombstone", "delete-to-tombstone"}


def test_found_by_debeziums_class_name_and_its_simple_name() -> None:
    assert builtin_transformation(UNWRAP) is ExtractNewRecordState
    assert builtin_transformation("ExtractNewRecordState") is ExtractNewRecordState


# -- deletes, tombstones, truncates ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("mode", "tombstone_kept"),
    [(mode, mode == "rewrite-with-tombstone") for mode in sorted(MODES)],
)
def test_a_tombstone_is_kept_only_by_rewrite_with_tombstone(mode: str, tombstone_kept: bool) -> None:
    record = tombstone()
    assert configured({"delete.tombstone.handling.mode": mode}).apply(record) == (record if tombstone_kept else None)


def test_the_default_mode_is_tombstone() -> None:
    transform = configured({})
    assert transform.apply(tombstone()) is None
    unwrapped = transform.apply(delete())
    assert unwrapped is not None and unwrapped.value is None
    assert ExtractNewRecordState().config_def().keys["delete.tombstone.handling.mode"].default == "tombstone"


def test_a_truncate_is_dropped() -> None:
    assert configured({}).apply(truncate()) is None


def test_drop_drops_a_delete() -> None:
    assert unwrap(delete_tombstone_handling_mode="drop").apply(delete()) is None


def test_tombstone_makes_a_delete_a_null_value_under_the_row_schema() -> None:
    unwrapped = configured({"delete.tombstone.handling.mode": "tombstone"}).apply(delete())
    assert unwrapped is not None
    # Debezium keeps the value schema (its NOTE: sink connectors read this as a flattened delete)
    assert unwrapped.value is None and unwrapped.value_schema == ROW


def test_delete_to_tombstone_makes_a_delete_a_tombstone_and_drops_the_next() -> None:
    transform = configured({"delete.tombstone.handling.mode": "delete-to-tombstone"})
    record = delete()
    record.key, record.key_schema = {"id": 1}, Schema.struct("dummy.Key", ("id", Schema(SchemaType.INT8)))
    unwrapped = transform.apply(record)
    assert unwrapped is not None
    assert (unwrapped.value, unwrapped.value_schema, unwrapped.key) == (None, None, {"id": 1})
    assert transform.apply(tombstone()) is None


@pytest.mark.parametrize("mode", ["rewrite", "rewrite-with-tombstone"])
def test_rewrite_marks_deletes_true_and_other_rows_false(mode: str) -> None:
    transform = configured({"delete.tombstone.handling.mode": mode, "add.headers": "op"})
    deleted = transform.apply(delete())
    assert deleted is not None and deleted.value == {"id": 1, "name": "myRecord", "__deleted": "true"}
    created = transform.apply(create())
    assert created is not None and created.value == {"id": 1, "name": "myRecord", "__deleted": "false"}
    assert header(created, "__op") == "c" and len(created.headers) == 1
    # Kafka's InsertField: the row's schema, named the same, the field optional, the struct required
    assert created.value_schema == Schema(
        SchemaType.STRUCT,
        name="dummy.Value",
        fields=(*ROW.fields, *Schema.struct(None, ("__deleted", OPTIONAL_STRING_SCHEMA)).fields),
    )
    assert deleted.value_schema == created.value_schema


def test_rewrite_with_tombstone_keeps_the_tombstone_with_an_op_header() -> None:
    transform = configured({"delete.tombstone.handling.mode": "rewrite-with-tombstone", "add.headers": "op,source.lsn"})
    unwrapped = transform.apply(delete())
    assert unwrapped is not None and unwrapped.value["__deleted"] == "true"
    assert header(unwrapped, "__op") == "d" and header(unwrapped, "__source_lsn") == 1234
    kept = transform.apply(tombstone())
    assert kept is not None and kept.value is None and header(kept, "__op") == "d"
    assert kept.headers == [("__op", SchemaAndValue(STRING_SCHEMA, "d"))]


def test_an_unknown_mode_is_refused_naming_the_key_and_the_modes() -> None:
    with pytest.raises(ConfigError) as caught:
        configured({"delete.tombstone.handling.mode": "jbsdfkjsd"})
    message = caught.value.problems["delete.tombstone.handling.mode"]
    assert "jbsdfkjsd" in message and all(mode in message for mode in MODES)


# -- Debezium 2's keys ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("props", "deleted", "tombstone_kept"),
    [
        ({"drop.tombstones": "true"}, None, False),  # delete.handling.mode defaults to drop
        ({"delete.handling.mode": "none"}, "null", False),  # drop.tombstones defaults to true
        ({"delete.handling.mode": "rewrite", "drop.tombstones": "false"}, "true", True),
        ({"delete.handling.mode": "drop", "drop.tombstones": "false"}, None, True),  # no new mode says this
        ({"delete.handling.mode": "none", "drop.tombstones": "false"}, "null", True),
    ],
)
def test_debezium_2s_keys_are_read_when_the_new_one_is_absent(
    props: dict[str, str], deleted: str | None, tombstone_kept: bool, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        transform = configured(props)
    assert "deprecated" in caplog.text and "delete.tombstone.handling.mode" in caplog.text
    unwrapped = transform.apply(delete())
    if deleted is None:
        assert unwrapped is None
    else:
        assert unwrapped is not None
        assert (unwrapped.value if deleted == "null" else unwrapped.value["__deleted"]) == (
            None if deleted == "null" else deleted
        )
    assert (transform.apply(tombstone()) is not None) is tombstone_kept


def test_the_new_key_wins_over_debezium_2s_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        transform = configured({"delete.tombstone.handling.mode": "rewrite", "drop.tombstones": "false"})
    assert "drop.tombstones" in caplog.text and "ignored" in caplog.text
    assert transform.apply(tombstone()) is None


# -- rows -------------------------------------------------------------------------------------------
def test_an_insert_becomes_its_row_under_the_row_schema() -> None:
    record = create()
    record.headers = [("application/debezium-test-header", "shouldPropagatePreviousRecordHeaders")]
    unwrapped = configured({}).apply(record)
    assert unwrapped is not None
    assert unwrapped.value == {"id": 1, "name": "myRecord"} and unwrapped.value_schema is ROW
    assert unwrapped.headers == record.headers  # DBZ-971: the record's headers stay
    assert (unwrapped.topic, unwrapped.source_offset) == ("dummy", {"lsn": 1234})
    assert record.value["op"] == "c"  # the event itself is not changed


def test_records_that_are_not_change_events_pass_unchanged_even_with_add_headers() -> None:
    transform = configured({"add.headers": "op,source.lsn"})
    for record in (heartbeat(), SourceRecord(None, None, "t", {"id": 1}, value_schema=Schema.struct("unknown"))):
        assert transform.apply(record) == record
    unnamed = SourceRecord(None, None, "t", {"id": 1}, value_schema=Schema.struct(None, ("id", STRING_SCHEMA)))
    assert transform.apply(unnamed) == unnamed


# -- add.fields / add.headers -----------------------------------------------------------------------
def test_add_fields_with_a_prefix_from_the_envelope_the_source_and_the_transaction() -> None:
    unwrapped = configured({"add.fields": "op , lsn,id", "add.fields.prefix": "prefix."}).apply(update())
    assert unwrapped is not None
    assert unwrapped.value == {
        "id": 1,
        "name": "updatedRecord",
        "prefix.op": "u",
        "prefix.lsn": 1234,
        "prefix.id": "571",
    }
    names = [field.name for field in unwrapped.value_schema.fields]  # type: ignore[union-attr]
    assert names == ["id", "name", "prefix.op", "prefix.lsn", "prefix.id"]


def test_add_fields_qualified_and_missing() -> None:
    unwrapped = configured({"add.fields": "op,source.lsn,transaction.id,transaction.total_order"}).apply(update())
    assert unwrapped is not None
    assert unwrapped.value["__source_lsn"] == 1234 and unwrapped.value["__transaction_id"] == "571"
    assert unwrapped.value["__transaction_total_order"] == 42
    created = configured({"add.fields": "op,lsn,id"}).apply(create())  # no transaction while snapshotting
    assert created is not None and created.value["__id"] is None and created.value["__lsn"] == 1234


def test_add_fields_timestamps_of_the_envelope_and_of_the_source() -> None:
    props = {
        "add.fields": "source.ts_ms:META_SRC_TS_MS,source.ts_us:META_SRC_TS_US,ts_ms:META_TS_MS,ts_ns:META_TS_NS",
        "delete.tombstone.handling.mode": "rewrite",
    }
    unwrapped = configured(props).apply(create())
    assert unwrapped is not None
    assert unwrapped.value["__META_SRC_TS_MS"] == SOURCE_TS_MS
    assert unwrapped.value["__META_SRC_TS_US"] == SOURCE_TS_MS * 1000
    assert unwrapped.value["__META_TS_MS"] == EVENT_TS_MS
    assert unwrapped.value["__META_TS_NS"] == EVENT_TS_MS * 1_000_000 + 123456
    field_schemas = {f.name: f.schema for f in unwrapped.value_schema.fields}  # type: ignore[union-attr]
    assert field_schemas["__META_TS_MS"] == Schema(SchemaType.INT64, optional=True)


def test_aliases_and_a_field_no_event_has_are_left_out() -> None:
    props = {
        "add.fields": "notExisting,op:OP, lsn:LSN, id:ID, source.lsn:source_lsn, transaction.total_order:TOTAL_ORDER",
        "add.fields.prefix": "",
        "add.headers": "op, source.lsn:source_lsn, transaction.id:TXN_ID, transaction.total_order:TOTAL_ORDER",
        "add.headers.prefix": "prefix.",
    }
    unwrapped = configured(props).apply(update())
    assert unwrapped is not None
    assert {k: unwrapped.value[k] for k in ("OP", "LSN", "ID", "source_lsn", "TOTAL_ORDER")} == {
        "OP": "u",
        "LSN": 1234,
        "ID": "571",
        "source_lsn": 1234,
        "TOTAL_ORDER": 42,
    }
    assert "notExisting" not in unwrapped.value and "__notExisting" not in unwrapped.value
    assert [name for name, _ in unwrapped.headers] == [
        "prefix.op",
        "prefix.source_lsn",
        "prefix.TXN_ID",
        "prefix.TOTAL_ORDER",
    ]
    assert header(unwrapped, "prefix.TXN_ID") == "571" and header(unwrapped, "prefix.TOTAL_ORDER") == 42


def test_headers_keep_the_field_schema_made_optional_and_a_missing_struct_gives_null() -> None:
    unwrapped = configured({"add.headers": "op,lsn,id"}).apply(create())
    assert unwrapped is not None
    assert unwrapped.headers == [
        ("__op", SchemaAndValue(STRING_SCHEMA.as_optional(), "c")),
        ("__lsn", SchemaAndValue(Schema(SchemaType.INT32, optional=True), 1234)),
        ("__id", SchemaAndValue(STRING_SCHEMA.as_optional(), None)),  # no transaction: null, as Debezium
    ]


def test_a_field_another_transform_put_in_the_envelope_is_found_there() -> None:
    schema = Schema(
        SchemaType.STRUCT,
        name="changedFields.Envelope",
        fields=(
            *event("u").value_schema.fields,  # type: ignore[union-attr]
            *Schema.struct(None, ("changes", Schema.array(STRING_SCHEMA))).fields,
        ),
    )
    record = event("u", {"id": 1, "name": "a"}, {"id": 1, "name": "b"}, schema=schema, changes=["name"])
    unwrapped = configured({"add.fields": "changes:META_SRC_CHANGED", "add.fields.prefix": ""}).apply(record)
    assert unwrapped is not None and unwrapped.value["META_SRC_CHANGED"] == ["name"]


def test_added_fields_on_a_rewritten_delete() -> None:
    unwrapped = configured({"delete.tombstone.handling.mode": "rewrite", "add.fields": "op,source.lsn"}).apply(delete())
    assert unwrapped is not None
    assert unwrapped.value == {"id": 1, "name": "myRecord", "__deleted": "true", "__op": "d", "__source_lsn": 1234}


@pytest.mark.parametrize("entries", ["op:a:b", ":alias", "source.", "op:"])
def test_a_malformed_add_fields_entry_is_refused_naming_the_key(entries: str) -> None:
    with pytest.raises(ConfigError) as caught:
        configured({"add.fields": entries})
    assert "add.fields" in caught.value.problems


def test_a_duplicate_field_name_is_a_data_error() -> None:
    with pytest.raises(DataError, match="duplication name"):
        configured({"add.fields": "op:name", "add.fields.prefix": ""}).apply(create())


# -- route.by.field ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("record", "topic"), [(create(), "myRecord"), (update(), "updatedRecord"), (delete(), "myRecord")]
)
def test_route_by_field_routes_by_the_new_row_or_the_old_one_of_a_delete(record: SourceRecord, topic: str) -> None:
    unwrapped = configured({"route.by.field": "name"}).apply(record)
    assert unwrapped is not None and unwrapped.topic == topic


def test_route_by_a_column_the_rows_lack_is_a_data_error_naming_it() -> None:
    with pytest.raises(DataError, match=re.escape("route.by.field=nope names a column")):
        configured({"route.by.field": "nope"}).apply(create())


# -- drop.fields.* ---------------------------------------------------------------------------------
OPTIONAL_NAME_ROW = Schema.struct("dummy.Value", ("id", Schema(SchemaType.INT8)), ("name", OPTIONAL_STRING_SCHEMA))
KEY_SCHEMA = Schema.struct("dummy.Key", ("id", Schema(SchemaType.INT8)), ("name", OPTIONAL_STRING_SCHEMA))


def with_drop_header(record: SourceRecord) -> SourceRecord:
    drop_schema = Schema(SchemaType.ARRAY, optional=True, name="drop-fields", value_schema=OPTIONAL_STRING_SCHEMA)
    record.headers = [("drop-fields", SchemaAndValue(drop_schema, ["id", "name"]))]
    return record


def keyed_create() -> SourceRecord:
    from tests.unit.transforms.debezium_events import envelope_schema

    record = event("c", after={"id": 1, "name": None}, schema=envelope_schema(OPTIONAL_NAME_ROW))
    record.key, record.key_schema = {"id": 1, "name": None}, KEY_SCHEMA
    return with_drop_header(record)


@pytest.mark.parametrize(
    ("props", "value_fields", "key_fields"),
    [
        ({}, ["id"], ["id", "name"]),  # only optional fields, only from the value
        ({"drop.fields.keep.schema.compatible": "false"}, [], ["id", "name"]),
        ({"drop.fields.from.key": "true"}, ["id"], ["id"]),
        ({"drop.fields.from.key": "true", "drop.fields.keep.schema.compatible": "false"}, [], []),
    ],
)
def test_drop_fields_named_by_a_header(props: dict[str, str], value_fields: list[str], key_fields: list[str]) -> None:
    unwrapped = configured({"drop.fields.header.name": "drop-fields", **props}).apply(keyed_create())
    assert unwrapped is not None
    assert [f.name for f in unwrapped.value_schema.fields] == value_fields  # type: ignore[union-attr]
    assert list(unwrapped.value) == value_fields
    assert [f.name for f in unwrapped.key_schema.fields] == key_fields  # type: ignore[union-attr]
    assert list(unwrapped.key) == key_fields


# -- validation as a transform of a connector -------------------------------------------------------
def test_validation_reports_a_bad_mode_under_its_full_key() -> None:
    report = read_transforms(
        {
            "transforms": "unwrap",
            "transforms.unwrap.type": UNWRAP,
            "transforms.unwrap.delete.tombstone.handling.mode": "explode",
            "transforms.unwrap.add.fields": "op:a:b",
        }
    )
    assert set(report.problems) == {"transforms.unwrap.delete.tombstone.handling.mode"}
    (message,) = report.problems["transforms.unwrap.delete.tombstone.handling.mode"]
    assert "explode" in message and "rewrite-with-tombstone" in message
    report = read_transforms(
        {"transforms": "unwrap", "transforms.unwrap.type": UNWRAP, "transforms.unwrap.add.fields": "op:a:b"}
    )
    assert list(report.problems) == ["transforms.unwrap.add.fields"]


def test_the_plan_keeps_the_topic_unless_rows_route() -> None:
    probe = SourceRecord(None, None, "db.public.t", None)
    assert configured({}).plan_route(probe) is probe
    with pytest.raises(DataError, match="--record"):
        configured({"route.by.field": "name"}).plan_route(probe)


# -- ExtractChangedRecordState -------------------------------------------------------------------
def changed(**props: str) -> ExtractChangedRecordState:
    transform = ExtractChangedRecordState()
    transform.configure(props)
    return transform


def test_an_update_gets_its_changed_and_unchanged_columns() -> None:
    record = changed(**{"header.changed.name": "Changed", "header.unchanged.name": "Unchanged"}).apply(update())
    assert [name for name, _ in record.headers] == ["Changed", "Unchanged"]
    (_, changed_header), (_, unchanged_header) = record.headers
    assert changed_header.value == ["name"] and unchanged_header.value == ["id"]
    assert changed_header.schema.name == "Changed" and changed_header.schema.type is SchemaType.ARRAY


def test_other_events_get_both_headers_empty_and_nothing_without_names() -> None:
    transform = changed(**{"header.changed.name": "Changed", "header.unchanged.name": "Unchanged"})
    for record in (create(), delete()):
        assert [header.value for _, header in transform.apply(record).headers] == [[], []]
    for record in (create(), update(), delete()):
        assert changed().apply(record).headers == []
    assert transform.apply(tombstone()).headers == []
    assert builtin_transformation("io.debezium.transforms.ExtractChangedRecordState") is ExtractChangedRecordState
