"""The outbox EventRouter, on the cases of Debezium's `EventRouterTest` (and the record checks of its
connectors' `AbstractEventRouterTest`): same outbox rows, same routed events."""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest

from connectworker.api.errors import ConfigError, ConnectError, DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    INT32_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaAndValue,
    SchemaType,
)
from connectworker.config.transforms import read_transforms
from connectworker.transforms.debezium.event_router import EventRouter
from connectworker.transforms.debezium.json_payload import JsonPayloadExpander
from connectworker.transforms.registry import builtin_transformation
from tests.unit.transforms.debezium_events import EVENT_TS_MS, OUTBOX_FIELDS, heartbeat, outbox_event, tombstone

ROUTER = "io.debezium.transforms.outbox.EventRouter"
EVENT_ID = "da8d6de6-3b77-45ff-8f44-57db55a7a06c"


def router(**props: str) -> EventRouter:
    transform = EventRouter()
    transform.configure(props)
    return transform


def routed(record: SourceRecord, **props: str) -> SourceRecord:
    result = router(**props).apply(record)
    assert result is not None
    return result


def headers(record: SourceRecord) -> dict[str, Any]:
    return {name: value.value if isinstance(value, SchemaAndValue) else value for name, value in record.headers}


def test_found_by_debeziums_class_name() -> None:
    assert builtin_transformation(ROUTER) is EventRouter


def test_an_insert_becomes_an_event_on_its_aggregate_types_topic() -> None:
    record = routed(outbox_event())
    assert record.topic == "outbox.event.User"
    assert (record.key, record.key_schema) == ("10711fa5", STRING_SCHEMA)
    assert (record.value, record.value_schema) == ("{}", STRING_SCHEMA)
    assert record.headers == [("id", SchemaAndValue(STRING_SCHEMA, EVENT_ID))]
    assert record.timestamp == EVENT_TS_MS  # the change event's ts_ms
    assert record.source_offset == {"lsn": 1234}  # the outbox row's offset is what gets committed


def test_aggregate_types_route_to_their_topics() -> None:
    transform = router()
    topics = [transform.apply(outbox_event(kind)).topic for kind in ("User", "User", "Address")]  # type: ignore[union-attr]
    assert topics == ["outbox.event.User", "outbox.event.User", "outbox.event.Address"]


def test_tombstones_deletes_and_updates_are_skipped(caplog: pytest.LogCaptureFixture) -> None:
    transform = router()
    assert transform.apply(tombstone("db.outbox")) is None
    assert transform.apply(outbox_event(op="d")) is None
    with caplog.at_level(logging.WARNING):
        assert transform.apply(outbox_event(op="u")) is None
    assert "Unexpected update message received" in caplog.text and caplog.records[-1].levelno == logging.WARNING
    with caplog.at_level(logging.WARNING):
        assert router(**{"table.op.invalid.behavior": "error"}).apply(outbox_event(op="u")) is None
    assert caplog.records[-1].levelno == logging.ERROR
    with pytest.raises(ConnectError, match=re.escape("table.op.invalid.behavior=fatal")):
        router(**{"table.op.invalid.behavior": "fatal"}).apply(outbox_event(op="u"))


def test_records_that_are_not_change_events_pass_as_they_are() -> None:
    record = heartbeat()
    assert router().apply(record) is record
    unnamed = SourceRecord(None, None, "t", {"ts_ms": 1}, value_schema=Schema.struct(None, ("ts_ms", STRING_SCHEMA)))
    assert router().apply(unnamed) is unnamed


def test_an_envelope_named_schema_without_op_is_a_data_error() -> None:
    schema = Schema.struct("io.debezium.connector.common.Heartbeat.Envelope", ("ts_ms", Schema(SchemaType.INT64)))
    with pytest.raises(DataError, match="op is not a valid field name"):
        router().apply(SourceRecord(None, None, "db.outbox", {"ts_ms": 1}, value_schema=schema))


def test_every_table_column_can_be_renamed() -> None:
    fields = (
        ("event_id", STRING_SCHEMA),
        ("payload_id", STRING_SCHEMA),
        ("event_type", STRING_SCHEMA),
        ("payload_body", STRING_SCHEMA),
    )
    row = {"event_id": EVENT_ID, "payload_id": "10711fa5", "event_type": "UserCreated", "payload_body": "{}"}
    record = outbox_event(fields=fields, row=row)
    props = {
        "table.field.event.id": "event_id",
        "table.field.event.key": "payload_id",
        "table.field.event.type": "event_type",
        "table.field.event.payload": "payload_body",
        "route.by.field": "payload_id",
    }
    result = routed(record, **props)
    assert (result.topic, result.key, result.value) == ("outbox.event.10711fa5", "10711fa5", "{}")
    assert headers(result) == {"id": EVENT_ID}


def test_column_types_carry_over_to_key_value_and_headers() -> None:
    fields = (
        ("event_id", INT32_SCHEMA),
        ("payload_id", INT32_SCHEMA),
        ("my_route_field", STRING_SCHEMA),
        ("payload_body", BYTES_SCHEMA),
        ("some_boolean", BOOLEAN_SCHEMA),
        ("p", INT32_SCHEMA),
    )
    row = {"event_id": 2, "payload_id": 1232, "my_route_field": "routename", "payload_body": b"{}"}
    record = outbox_event(fields=fields, row=row | {"some_boolean": True, "p": 3})
    props = {
        "table.field.event.id": "event_id",
        "table.field.event.key": "payload_id",
        "table.field.event.payload": "payload_body",
        "route.by.field": "my_route_field",
        "table.fields.additional.placement": "some_boolean:envelope:bool,p:partition",
    }
    result = routed(record, **props)
    assert result.topic == "outbox.event.routename" and result.partition == 3
    assert (result.key, result.key_schema) == (1232, INT32_SCHEMA)
    assert result.value == {"payload": b"{}", "bool": True}
    assert [(f.name, f.schema) for f in result.value_schema.fields] == [
        ("payload", BYTES_SCHEMA),
        ("bool", BOOLEAN_SCHEMA),
    ]  # type: ignore[union-attr]
    assert result.headers == [("id", SchemaAndValue(INT32_SCHEMA, 2))]


def test_envelope_placements_make_a_struct_named_after_the_row_and_the_aggregate_type() -> None:
    extra = (("version", INT32_SCHEMA),)
    record = outbox_event("UserEmail", extra_fields=extra, version=1)
    props = {
        "table.fields.additional.placement": "type:envelope:eventType,aggregatetype:envelope,type:header:eventType",
        "table.field.event.schema.version": "version",
    }
    result = routed(record, **props)
    assert result.value == {"payload": "{}", "eventType": "UserCreated", "aggregatetype": "UserEmail"}
    assert result.value_schema == Schema(
        SchemaType.STRUCT,
        name="db.outbox.UserEmail.Value",
        version=1,
        fields=Schema.struct(
            None, ("payload", STRING_SCHEMA), ("eventType", STRING_SCHEMA), ("aggregatetype", STRING_SCHEMA)
        ).fields,
    )
    assert headers(result) == {"id": EVENT_ID, "eventType": "UserCreated"}


def test_schema_versions_give_one_schema_per_version() -> None:
    transform = router(
        **{
            "table.fields.additional.placement": "type:envelope:eventType",
            "table.field.event.schema.version": "version",
        }
    )
    extra = (("version", INT32_SCHEMA),)
    first, third, again = (transform.apply(outbox_event(extra_fields=extra, version=v)) for v in (1, 3, 1))
    assert first.value_schema.version == 1 and third.value_schema.version == 3  # type: ignore[union-attr]
    assert again.value_schema is first.value_schema  # type: ignore[union-attr]
    unversioned = router(**{"table.fields.additional.placement": "type:envelope"}).apply(outbox_event())
    assert unversioned.value_schema.version is None  # type: ignore[union-attr]


def test_the_timestamp_column_converts_debezium_timestamps_to_milliseconds() -> None:
    for name, stamp in (
        ("io.debezium.time.Timestamp", 1553460779000),
        ("io.debezium.time.MicroTimestamp", 1553460779000000),
        ("io.debezium.time.NanoTimestamp", 1553460779000000000),
    ):
        extra = (("createdat", Schema(SchemaType.INT64, name=name)),)
        result = routed(
            outbox_event(extra_fields=extra, createdat=stamp), **{"table.field.event.timestamp": "createdat"}
        )
        assert result.timestamp == 1553460779000
    extra = (("createdat", Schema(SchemaType.INT64, name="io.debezium.time.Timestamp", optional=True)),)
    result = routed(outbox_event(extra_fields=extra, createdat=None), **{"table.field.event.timestamp": "createdat"})
    assert result.timestamp == EVENT_TS_MS  # a null column: the change event's time
    extra = (("createdat", Schema(SchemaType.STRING, name="io.debezium.time.ZonedTimestamp")),)
    with pytest.raises(ConnectError, match="ZonedTimestamp"):
        router(**{"table.field.event.timestamp": "createdat"}).apply(outbox_event(extra_fields=extra, createdat="x"))


@pytest.mark.parametrize("payload", ["", "  ", None])
def test_an_empty_payload_gives_a_tombstone_when_asked(payload: Any) -> None:
    props = {
        "route.tombstone.on.empty.payload": "true",
        "table.fields.additional.placement": "is_deleted:envelope:deleted",
    }
    result = routed(outbox_event(payload=payload, is_deleted=True), **props)
    assert (result.value, result.value_schema) == (None, None)
    assert (result.key, result.key_schema) == ("10711fa5", STRING_SCHEMA) and headers(result) == {"id": EVENT_ID}


def test_without_tombstones_an_empty_payload_stays_in_the_struct() -> None:
    props = {"table.fields.additional.placement": "is_deleted:envelope:deleted"}
    result = routed(outbox_event(payload="", is_deleted=True), **props)
    assert result.value == {"payload": "", "deleted": True} and result.value_schema is not None


def test_a_missing_additional_column_fails_unless_ignored() -> None:
    props = {"table.fields.additional.placement": "nonExistingField:envelope:alias"}
    with pytest.raises(ConnectError, match="nonExistingField"):
        router(**props).apply(outbox_event())
    result = routed(outbox_event(), **props, **{"table.field.additional.missing": "ignore"})
    assert [f.name for f in result.value_schema.fields] == ["payload"]  # type: ignore[union-attr]
    # Debezium 3.5's boolean key, when the new one is not given
    result = routed(outbox_event(), **props, **{"table.fields.additional.error.on.missing": "false"})
    assert result.value == {"payload": "{}"}


def test_a_missing_key_column_is_an_error_naming_it() -> None:
    with pytest.raises(ConnectError, match="fakefield"):
        router(**{"table.field.event.key": "fakefield"}).apply(outbox_event())


def test_the_routing_regex_and_replacement() -> None:
    props = {"route.topic.regex": "(?<kind>[A-Z][a-z]+)", "route.topic.replacement": "events.${kind}.v1"}
    assert routed(outbox_event("Order"), **props).topic == "events.Order.v1"
    assert routed(outbox_event("lower"), **props).topic == "lower"  # not matched in full: the value itself


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("route.topic.regex", " [[a-z]", "nested"),
        ("table.fields.additional.placement", "type", "pairs or trios"),
        ("table.fields.additional.placement", "", "pairs or trios"),
        ("table.fields.additional.placement", "type:somewhere", "header, envelope, partition"),
        ("table.op.invalid.behavior", "invalidOption", "warn, error, fatal"),
        ("route.topic.replacement", "outbox.${missing}", "No group with name"),
    ],
)
def test_bad_values_are_refused_naming_the_key(key: str, value: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        router(**{key: value})
    assert says in caught.value.problems[key]
    report = read_transforms(
        {"transforms": "outbox", "transforms.outbox.type": ROUTER, f"transforms.outbox.{key}": value}
    )
    assert list(report.problems) == [f"transforms.outbox.{key}"]


def test_the_keys_and_defaults_are_debeziums() -> None:
    defaults = {name: key.default for name, key in EventRouter().config_def().keys.items()}
    assert {k: defaults[k] for k in ("table.field.event.id", "table.field.event.key", "table.field.event.payload")} == {
        "table.field.event.id": "id",
        "table.field.event.key": "aggregateid",
        "table.field.event.payload": "payload",
    }
    assert defaults["route.by.field"] == "aggregatetype"
    assert defaults["route.topic.regex"] == "(?<routedByValue>.*)"
    assert defaults["route.topic.replacement"] == "outbox.event.${routedByValue}"
    assert defaults["table.op.invalid.behavior"] == "warn"
    assert defaults["route.tombstone.on.empty.payload"] is False and defaults["table.expand.json.payload"] is False
    assert defaults["table.json.payload.null.behavior"] == "ignore"
    assert defaults["table.field.additional.missing"] == "error"


def test_the_plan_needs_a_sample_record() -> None:
    with pytest.raises(DataError, match=r"aggregatetype column .* --record"):
        router().plan_route(SourceRecord(None, None, "db.outbox", None))


# -- table.expand.json.payload --------------------------------------------------------------------
PETS = (
    '{"fullName": "John Doe", "enabled": true, "rating": 4.9, "age": 42, "pets": ["dog", "cat"], '
    '"petObjects": [{"type": "dog"}, {"type": "cat"}]}'
)


def test_a_json_payload_is_expanded_into_a_struct_with_an_inferred_schema() -> None:
    result = routed(outbox_event(payload=PETS), **{"table.expand.json.payload": "true"})
    schema = result.value_schema
    assert schema is not None and schema.type is SchemaType.STRUCT and schema.name == "payload"
    kinds = {f.name: f.schema.type.value for f in schema.fields}
    assert kinds == {
        "fullName": "string",
        "enabled": "boolean",
        "rating": "double",
        "age": "int32",
        "pets": "array",
        "petObjects": "array",
    }
    assert result.value["fullName"] == "John Doe" and result.value["rating"] == 4.9 and result.value["age"] == 42
    assert result.value["pets"] == ["dog", "cat"]
    assert result.value["petObjects"] == [{"type": "dog"}, {"type": "cat"}]


def test_an_expanded_payload_goes_inside_the_envelope_struct() -> None:
    props = {"table.expand.json.payload": "true", "table.fields.additional.placement": "type:envelope"}
    result = routed(outbox_event(payload='{"fullName": "John Doe"}'), **props)
    assert result.value == {"payload": {"fullName": "John Doe"}, "type": "UserCreated"}
    payload_schema = result.value_schema.fields[0].schema  # type: ignore[union-attr]
    assert [f.name for f in payload_schema.fields] == ["fullName"]


def test_a_payload_that_is_not_json_stays_a_string_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        result = routed(outbox_event(payload="not json"), **{"table.expand.json.payload": "true"})
    assert (result.value, result.value_schema) == ("not json", STRING_SCHEMA)
    assert "JSON expansion failed" in caplog.text
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        fields = tuple((n, s.as_optional()) if n == "payload" else (n, s) for n, s in OUTBOX_FIELDS)
        routed(outbox_event(payload=None, fields=fields), **{"table.expand.json.payload": "true"})
    assert caplog.text == ""  # a null payload is no reason to warn


def test_nested_arrays_whose_first_is_empty_get_the_union_of_their_objects() -> None:
    text = (
        '{"fullName": "John Doe", "petObjects": [{"type": "dog", "colors": []}, '
        '{"type": "cat", "colors": [{"name": "white"}]}]}'
    )
    schema, value = JsonPayloadExpander().expand("payload", text)
    pets = schema.fields[1].schema.value_schema
    assert pets is not None and [f.name for f in pets.fields] == ["type", "colors"]
    colors = pets.fields[1].schema.value_schema
    assert colors is not None and [f.name for f in colors.fields] == ["name"]
    assert value["petObjects"][1]["colors"] == [{"name": "white"}]
    assert value["petObjects"][0] == {"type": "dog", "colors": []}


def test_empty_arrays_and_nulls_are_left_out_or_kept_as_asked() -> None:
    text = '{"fullName": "John Doe", "petObjects": [], "nick": null}'
    schema, value = JsonPayloadExpander().expand("payload", text)
    assert [f.name for f in schema.fields] == ["fullName"] and value == {"fullName": "John Doe"}
    schema, value = JsonPayloadExpander("optional_bytes", "optional_string").expand("payload", text)
    fields = {f.name: f.schema for f in schema.fields}
    assert fields["petObjects"] == Schema.array(OPTIONAL_STRING_SCHEMA, optional=True)
    assert fields["nick"] == Schema(SchemaType.BYTES, optional=True)
    assert value == {"fullName": "John Doe", "petObjects": [], "nick": None}


def test_arrays_with_a_null_first_and_numbers_of_one_kind() -> None:
    schema, value = JsonPayloadExpander().expand("payload", '{"numbers": [null, 2, 3]}')
    assert schema.fields[0].schema.value_schema == INT32_SCHEMA.as_optional()
    assert value["numbers"] == [None, 2, 3]
    for mixed in ('{"a": [1, "x"]}', '{"a": [1, 2.5]}', '{"a": [1, 5000000000]}', '{"a": [null]}'):
        with pytest.raises(ValueError):
            JsonPayloadExpander().expand("payload", mixed)


def test_numbers_widen_from_int32_to_int64_to_float64() -> None:
    schema, value = JsonPayloadExpander().expand(
        "payload", '{"a": 1, "b": 5000000000, "c": 1e3, "d": 99999999999999999999}'
    )
    assert [f.schema.type for f in schema.fields] == [
        SchemaType.INT32,
        SchemaType.INT64,
        SchemaType.FLOAT64,
        SchemaType.FLOAT64,
    ]
    assert value["b"] == 5000000000


def test_complex_array_elements_give_equal_schemas_for_equal_shapes() -> None:
    def doc(eans: str) -> str:
        return f'{{"id": "1028", "attributes": [{{"id": "1", "adr": null, "eans": [{eans}], "ok": false}}]}}'

    one = '{"code": "2007000013656", "createdAt": "2022-06-08T11:33:16.465Z"}'
    first, _ = JsonPayloadExpander().expand("payload", doc(one))
    second, value = JsonPayloadExpander().expand("payload", doc(f"{one}, {one}"))
    assert first == second and len(value["attributes"][0]["eans"]) == 2
