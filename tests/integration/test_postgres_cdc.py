"""PostgreSQL change data capture against the real server (tests/postgres.py, wal_level=logical), one task
run in the test's thread (TaskHarness): Debezium's envelope field by field, the column types, the slot
confirmed only after commit(), a restart resuming without a snapshot, and the failure paths."""

from __future__ import annotations

import base64
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import javaproperties
import pytest

from connectworker.api.errors import ConfigError, ConnectError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import SchemaAndValue, SchemaType
from connectworker.connectors.postgres_cdc import PostgresCdcConnector, PostgresCdcTask
from connectworker.converters import JsonConverter
from connectworker.plugins import resolve_connector_class
from connectworker.testing import TaskHarness, connector_task_props, parse_rules
from tests.integration.cdc_helpers import (
    ENVELOPE_FIELDS,
    CdcDatabase,
    cdc_database,
    decimal_json,
    harness,
    poll_records,
)
from tests.integration.test_cli_bad_input import assert_refused, run_cli, write_worker
from tests.postgres import Postgres, running_postgres


@pytest.fixture
def db(postgres: Postgres) -> Iterator[CdcDatabase]:
    with cdc_database(postgres) as database:
        yield database


def test_debezium_class_and_alias_resolve_to_the_connector() -> None:
    assert resolve_connector_class("io.debezium.connector.postgresql.PostgresConnector") is PostgresCdcConnector
    assert resolve_connector_class("PostgresCdc") is PostgresCdcConnector


def test_bad_keys_are_config_errors_naming_the_key(db: CdcDatabase) -> None:
    values = PostgresCdcConnector().validate(
        db.props(
            **{
                "plugin.name": "decoderbufs",
                "snapshot.mode": "when_needed",
                "database.port": "x",
                "skipped.operations": "c,x",
            }
        )
    )
    assert "pgoutput" in values["plugin.name"].errors[0]
    assert values["skipped.operations"].errors == [
        "Invalid value 'c,x' for configuration skipped.operations: Value must be a list of c, u, d, t, or none; got x"
    ]
    assert "when_needed" in values["snapshot.mode"].errors[0]
    assert values["database.port"].errors
    with pytest.raises(ConfigError, match=r"plugin\.name"):
        connector_task_props(PostgresCdcConnector, db.props(**{"plugin.name": "wal2json"}))
    assert PostgresCdcConnector().config_def().keys["database.password"].type.value == "PASSWORD"


def test_debezium_keys_it_does_not_implement_are_warned_once_when_they_tune_and_refused_when_they_change_data(
    db: CdcDatabase, caplog: pytest.LogCaptureFixture
) -> None:
    props = db.props(**{"snapshot.fetch.size": "100", "slot.max.retries": "3", "provide.transaction.metadata": "false"})
    with caplog.at_level(logging.WARNING):
        connector_task_props(PostgresCdcConnector, props)
        connector_task_props(PostgresCdcConnector, props)
    lines = [r.getMessage() for r in caplog.records if "does not implement" in r.getMessage()]
    assert len(lines) == 1
    assert "slot.max.retries, snapshot.fetch.size are Debezium PostgreSQL connector keys" in lines[0]
    values = PostgresCdcConnector().validate({**props, "provide.transaction.metadata": "true"})
    assert values["provide.transaction.metadata"].errors == [
        "Debezium's provide.transaction.metadata is not implemented by this connector, and it would change what "
        "is written: it adds transaction events and the transaction block. Remove it (or set it to 'false')"
    ]


def test_snapshot_then_stream_in_debeziums_envelope_field_by_field(db: CdcDatabase) -> None:
    db.execute(
        "CREATE TABLE orders (id int PRIMARY KEY, item text NOT NULL, qty int)",
        "INSERT INTO orders VALUES (1, 'tea', 2), (2, 'milk', NULL)",
    )
    with harness(db) as h:
        snap = poll_records(h, 2)
        topic = f"{db.name}.public.orders"
        assert [r.topic for r in snap] == [topic, topic]
        first, last = snap
        assert first.key == {"id": 1} and first.key_schema is not None
        assert first.key_schema.name == f"{topic}.Key"
        assert [(f.name, f.schema.type, f.schema.optional) for f in first.key_schema.fields] == [
            ("id", SchemaType.INT32, False)
        ]
        value = first.value
        assert list(value) == ENVELOPE_FIELDS
        assert value["ts_us"] // 1000 == value["ts_ms"] and value["ts_ns"] // 1000 == value["ts_us"]
        assert value["op"] == "r" and value["before"] is None and value["transaction"] is None
        assert value["after"] == {"id": 1, "item": "tea", "qty": 2}
        source = value["source"]
        assert list(source) == [
            "version",
            "connector",
            "name",
            "ts_ms",
            "snapshot",
            "db",
            "sequence",
            "ts_us",
            "ts_ns",
            "schema",
            "table",
            "txId",
            "lsn",
            "xmin",
        ]
        # One instant (the snapshot's start) in three units, as Debezium 2.6+ writes it (SourceInfoTest).
        assert source["ts_ns"] == source["ts_us"] * 1000 and source["ts_us"] // 1000 == source["ts_ms"]
        assert (source["connector"], source["name"], source["db"], source["schema"], source["table"]) == (
            "postgresql",
            db.name,
            db.name,
            "public",
            "orders",
        )
        assert source["snapshot"] == "first" and last.value["source"]["snapshot"] == "last"
        assert first.source_partition == {"server": db.name}
        assert first.source_offset["snapshot"] is True and last.source_offset["last_snapshot_record"] is True
        schema = first.value_schema
        assert schema is not None and schema.name == f"{topic}.Envelope"
        assert [f.name for f in schema.fields] == ENVELOPE_FIELDS
        row = schema.fields[1].schema
        assert row.name == f"{topic}.Value" and row.optional
        assert [(f.name, f.schema.type, f.schema.optional) for f in row.fields] == [
            ("id", SchemaType.INT32, False),
            ("item", SchemaType.STRING, False),
            ("qty", SchemaType.INT32, True),
        ]
        assert schema.fields[2].schema.name == "io.debezium.connector.postgresql.Source"

        db.execute("INSERT INTO orders VALUES (3, 'jam', 1)", "UPDATE orders SET qty = 5 WHERE id = 1")
        db.execute("DELETE FROM orders WHERE id = 2")
        created, updated, deleted, tombstone = poll_records(h, 4)
        assert created.value["op"] == "c" and created.value["after"] == {"id": 3, "item": "jam", "qty": 1}
        assert created.value["source"]["snapshot"] == "false"
        # The commit's time (pgoutput's BEGIN, in microseconds) in the three units.
        commit_us = created.source_offset["ts_usec"]
        assert (created.value["source"]["ts_us"], created.value["source"]["ts_ns"]) == (commit_us, commit_us * 1000)
        assert created.value["source"]["txId"] == updated.value["source"]["txId"] != deleted.value["source"]["txId"]
        assert created.value["source"]["lsn"] < updated.value["source"]["lsn"] < deleted.value["source"]["lsn"]
        assert updated.value["op"] == "u" and updated.key == {"id": 1}
        assert updated.value["before"] is None  # REPLICA IDENTITY DEFAULT sends no old row
        assert updated.value["after"] == {"id": 1, "item": "tea", "qty": 5}
        assert deleted.value["op"] == "d" and deleted.value["after"] is None
        # without REPLICA IDENTITY FULL the old row holds the key only: NOT NULL columns get their zero value
        assert deleted.value["before"] == {"id": 2, "item": "", "qty": None}
        assert tombstone.key == {"id": 2} and tombstone.value is None and tombstone.value_schema is None
        assert {"lsn", "txId", "ts_usec"} <= set(deleted.source_offset)
        # `lsn` is where a restart resumes: the end of the last transaction whose records are all out
        assert deleted.source_offset["lsn"] == updated.source_offset["lsn"] < tombstone.source_offset["lsn"]

        db.execute("ALTER TABLE orders REPLICA IDENTITY FULL", "UPDATE orders SET qty = 6 WHERE id = 3")
        [full] = poll_records(h, 1)
        assert full.value["before"] == {"id": 3, "item": "jam", "qty": 1}

        db.execute("ALTER TABLE orders ADD COLUMN price numeric(6, 2)", "INSERT INTO orders VALUES (4, 'oil', 1, 2.5)")
        [widened] = poll_records(h, 1)
        assert widened.value["after"] == {"id": 4, "item": "oil", "qty": 1, "price": (250).to_bytes(2, "big")}
        assert [f.name for f in widened.value_schema.fields[1].schema.fields] == ["id", "item", "qty", "price"]


def test_no_tombstone_with_tombstones_on_delete_false_and_a_keyless_table_has_a_null_key(db: CdcDatabase) -> None:
    db.execute("CREATE TABLE notes (body text)", "ALTER TABLE notes REPLICA IDENTITY FULL")
    with harness(db, **{"tombstones.on.delete": "false", "snapshot.mode": "no_data"}) as h:
        db.execute("INSERT INTO notes VALUES ('a')")
        db.execute("DELETE FROM notes")
        created, deleted = poll_records(h, 2)
        for _ in range(5):
            h.poll()
        assert len(h.records) == 2
        assert created.key is None and created.key_schema is None
        assert deleted.value["op"] == "d" and deleted.value["before"] == {"body": "a"}


# Tables of mixed types, read in one snapshot in this (name) order: each type once came back as text in the
# tables read after it, when the snapshot's text typecasters were the shared connection's.
MIXED_TABLES = {
    "a_flags": ("flag boolean NOT NULL", "true"),
    "b_oids": ("o oid", "42"),
    "c_ints": ("n int, big bigint", "7, 9000000000"),
    "d_times": (
        "t time, ts timestamp, tstz timestamptz",
        "'10:11:12', '2024-05-17 10:11:12', '2024-05-17 10:11:12+00'",
    ),
    "e_plain": ("val int, note text", "NULL, NULL"),
}


def test_a_snapshot_of_many_tables_of_mixed_types_gives_the_rows_the_stream_gives(db: CdcDatabase) -> None:
    db.execute(
        *(f"CREATE TABLE {table} (pk int PRIMARY KEY, {columns})" for table, (columns, _) in MIXED_TABLES.items()),
        *(f"INSERT INTO {table} VALUES (2, {values})" for table, (_, values) in MIXED_TABLES.items()),
    )
    with harness(db) as h:
        snapshot = {r.topic.rsplit(".", 1)[1]: r for r in poll_records(h, len(MIXED_TABLES))}
        db.execute(*(f"INSERT INTO {table} VALUES (3, {values})" for table, (_, values) in MIXED_TABLES.items()))
        streamed = {r.topic.rsplit(".", 1)[1]: r for r in poll_records(h, len(MIXED_TABLES))}
    assert sorted(snapshot) == sorted(streamed) == sorted(MIXED_TABLES)
    assert snapshot["e_plain"].key == {"pk": 2}
    assert snapshot["e_plain"].value["after"] == {"pk": 2, "val": None, "note": None}  # not zeros, not ''
    for table in MIXED_TABLES:
        read, changed = snapshot[table], streamed[table]
        assert (read.value["op"], changed.value["op"]) == ("r", "c")
        assert read.key == {"pk": 2} and changed.key == {"pk": 3}
        assert {**read.value["after"], "pk": 3} == changed.value["after"], table
        assert read.key_schema == changed.key_schema and read.value_schema == changed.value_schema, table


def test_skipped_operations_none_sends_a_truncate_as_debezium_does_and_by_default_it_is_not_sent(
    db: CdcDatabase,
) -> None:
    db.execute("CREATE TABLE tr (id int PRIMARY KEY)", "CREATE TABLE kept (id int PRIMARY KEY)")
    with harness(db, **{"snapshot.mode": "no_data", "skipped.operations": "none"}) as h:
        h.poll()
        db.execute("INSERT INTO tr VALUES (1)", "TRUNCATE tr, kept", "INSERT INTO kept VALUES (2)")
        created, *truncates, last = poll_records(h, 4)
    assert (created.value["op"], created.key, last.value["op"], last.key) == ("c", {"id": 1}, "c", {"id": 2})
    assert sorted(r.value["source"]["table"] for r in truncates) == ["kept", "tr"]
    # One message truncated both: its events are numbered, so a restart between them skips only the first.
    assert [r.source_offset.get("event_serial_no", 1) for r in truncates] == [1, 2]
    assert truncates[0].source_offset["lsn_proc"] == truncates[1].source_offset["lsn_proc"]
    for truncate in truncates:
        assert truncate.topic == f"{db.name}.public.{truncate.value['source']['table']}"
        assert truncate.key is None and truncate.key_schema is None
        assert truncate.value_schema is not None and truncate.value_schema.name == f"{truncate.topic}.Envelope"
        value = truncate.value
        assert (value["op"], value["before"], value["after"]) == ("t", None, None)
        assert value["source"]["snapshot"] == "false" and value["source"]["txId"] == created.value["source"]["txId"]

    # skipped.operations=t, Debezium's default (a slot of its own: the first one was never told to go on)
    with harness(db, **{"snapshot.mode": "no_data", "slot.name": f"{db.props()['slot.name']}_t"}) as h:
        h.poll()
        db.execute("INSERT INTO tr VALUES (3)", "TRUNCATE tr", "INSERT INTO tr VALUES (4)")
        records = poll_records(h, 2)
        h.poll()
    assert (
        [(r.value["op"], r.key) for r in h.records]
        == [("c", {"id": 3}), ("c", {"id": 4})]
        == [(r.value["op"], r.key) for r in records]
    )


def test_skipped_operations_leave_out_each_event_of_their_kind_as_debezium_does(db: CdcDatabase) -> None:
    """Debezium applies skipped.operations to each event it emits: a key change is a delete (with its tombstone)
    and a create, so `u` does not skip it, and `d` skips its delete and the tombstone but not its create."""
    db.execute("CREATE TABLE ops (id int PRIMARY KEY, n int)", "INSERT INTO ops VALUES (1, 1), (2, 2)")
    with harness(db, **{"snapshot.mode": "no_data", "skipped.operations": "u,d"}) as h:
        h.poll()
        db.execute(
            "INSERT INTO ops VALUES (3, 3)",
            "UPDATE ops SET n = 10 WHERE id = 1",
            "UPDATE ops SET id = 20 WHERE id = 2",
            "DELETE FROM ops WHERE id = 3",
            "INSERT INTO ops VALUES (4, 4)",
        )
        records = poll_records(h, 3)
        h.poll()
    assert [(r.value["op"], r.key, r.value["after"]) for r in h.records] == [
        ("c", {"id": 3}, {"id": 3, "n": 3}),
        ("c", {"id": 20}, {"id": 20, "n": 2}),
        ("c", {"id": 4}, {"id": 4, "n": 4}),
    ]
    assert records == h.records


def debezium_marker(position: int, total: int, in_table: int, table_rows: int) -> str:
    """`source.snapshot` by a record's place, as Debezium's own tests expect it
    (`AbstractRecordsProducerTest.expectedSnapshotRecordFromPosition`; positions from 1)."""
    if position == total:
        return "last"
    if position == 1:
        return "first"
    if in_table == table_rows:
        return "last_in_data_collection"
    return "first_in_data_collection" if in_table == 1 else "true"


def test_snapshot_records_are_marked_first_last_and_by_table_as_debezium_marks_them(db: CdcDatabase) -> None:
    """Tables of 3, 1, 0 and 4 rows read 2 rows at a time: a table's last row ends a batch or shares one."""
    sizes = {"m1": 3, "m2": 1, "m3": 0, "m4": 4}
    db.execute(
        *(f"CREATE TABLE {table} (id int PRIMARY KEY)" for table in sizes),
        *(f"INSERT INTO {table} SELECT generate_series(1, {rows})" for table, rows in sizes.items() if rows),
    )
    total = sum(sizes.values())
    with harness(db, **{"max.batch.size": "2"}) as h:
        records = poll_records(h, total)
    seen = [(r.topic.rsplit(".", 1)[1], r.key["id"]) for r in records]
    assert seen == [(table, n) for table, rows in sizes.items() for n in range(1, rows + 1)]
    expected = [debezium_marker(position, total, n, sizes[table]) for position, (table, n) in enumerate(seen, start=1)]
    assert [r.value["source"]["snapshot"] for r in records] == expected
    assert expected[:4] == ["first", "true", "last_in_data_collection", "last_in_data_collection"]
    assert [r.source_offset["last_snapshot_record"] for r in records] == [False] * (total - 1) + [True]


def test_column_types_are_mapped_as_debezium_maps_them_in_snapshot_and_stream(db: CdcDatabase) -> None:
    db.execute("""CREATE TABLE kinds (id bigint PRIMARY KEY, small smallint, regular integer, single real,
        double double precision, price numeric(10, 2), label varchar(20), body text, flag boolean, day date,
        clock time, clock_ms time(3), happened timestamp, happened_ms timestamp(3), instant timestamptz,
        ident uuid, doc jsonb, plain json, raw bytea, tags text[], counts int[], nothing integer)""")
    insert = """INSERT INTO kinds VALUES ({}, 7, 70000, 1.5, 2.25, 99.95, 'label', 'body', true, '2026-02-03',
        '04:05:06.789012', '04:05:06.789', '2026-02-03 04:05:06.789012', '2026-02-03 04:05:06.789',
        '2026-02-03 04:05:06.789+02', '0b5e8f7a-1b2c-4d5e-8f90-123456789abc', '{{"a": [1, 2]}}', '{{"b":1}}',
        '\\x0001ff', ARRAY['x', 'y z', NULL], ARRAY[1, 2], NULL)"""
    db.execute(insert.format(1))
    with harness(db) as h:
        [snapped] = poll_records(h, 1)
        db.execute(insert.format(2))
        [streamed] = poll_records(h, 1)
    expected = {
        "id": 1,
        "small": 7,
        "regular": 70000,
        "single": 1.5,
        "double": 2.25,
        "price": (9995).to_bytes(2, "big"),  # Connect's Decimal at scale 2: the unscaled value's bytes
        "label": "label",
        "body": "body",
        "flag": True,
        "day": 20487,
        "clock": 14706789012,
        "clock_ms": 14706789,
        "happened": 1770091506789012,
        "happened_ms": 1770091506789,
        "instant": "2026-02-03T02:05:06.789000Z",  # the column's precision (6): Debezium 2.2+
        "ident": "0b5e8f7a-1b2c-4d5e-8f90-123456789abc",
        "doc": '{"a": [1, 2]}',
        "plain": '{"b":1}',
        "raw": b"\x00\x01\xff",
        "tags": ["x", "y z", None],
        "counts": [1, 2],
        "nothing": None,
    }
    assert snapped.value["after"] == expected
    assert streamed.value["after"] == {**expected, "id": 2}
    fields = {f.name: (f.schema.type, f.schema.name) for f in snapped.value_schema.fields[1].schema.fields}
    assert fields == {
        "id": (SchemaType.INT64, None),
        "small": (SchemaType.INT16, None),
        "regular": (SchemaType.INT32, None),
        "single": (SchemaType.FLOAT32, None),
        "double": (SchemaType.FLOAT64, None),
        "price": (SchemaType.BYTES, "org.apache.kafka.connect.data.Decimal"),
        "label": (SchemaType.STRING, None),
        "body": (SchemaType.STRING, None),
        "flag": (SchemaType.BOOLEAN, None),
        "day": (SchemaType.INT32, "io.debezium.time.Date"),
        "clock": (SchemaType.INT64, "io.debezium.time.MicroTime"),
        "clock_ms": (SchemaType.INT32, "io.debezium.time.Time"),
        "happened": (SchemaType.INT64, "io.debezium.time.MicroTimestamp"),
        "happened_ms": (SchemaType.INT64, "io.debezium.time.Timestamp"),
        "instant": (SchemaType.STRING, "io.debezium.time.ZonedTimestamp"),
        "ident": (SchemaType.STRING, "io.debezium.data.Uuid"),
        "doc": (SchemaType.STRING, "io.debezium.data.Json"),
        "plain": (SchemaType.STRING, "io.debezium.data.Json"),
        "raw": (SchemaType.BYTES, None),
        "tags": (SchemaType.ARRAY, None),
        "counts": (SchemaType.ARRAY, None),
        "nothing": (SchemaType.INT32, None),
    }


def test_temporal_values_python_cannot_hold_are_written_as_debezium_writes_them_in_snapshot_and_stream(
    db: CdcDatabase,
) -> None:
    """Debezium's AbstractRecordsProducerTest.schemaAndValuesForDateTimeTypes: infinity, BC, years after
    9999 and 24:00, which the task failed on before ("Invalid isoformat string: 'infinity'")."""
    db.execute("""CREATE TABLE far (id int PRIMARY KEY, ts timestamp(6), tz timestamptz, tz_ms timestamptz(3),
        day date, clock time, clock_tz timetz)""")
    rows = [
        "(1, 'infinity', 'infinity', '2016-11-04 06:51:30+00', 'infinity', '24:00:00', '24:00:00+00')",
        "(2, '-infinity', '-infinity', '2016-11-04 06:51:30.5+00', '-infinity', '13:51:30', '13:51:30.123+02')",
        "(3, '4713-12-31 23:59:59.999999 BC', '4714-12-31 23:59:59.999999+00 BC', NULL, '0002-12-01 BC', NULL, NULL)",
        "(4, '294247-01-01 23:59:59.999999', '21016-11-04 13:51:30+07', NULL, '20160-11-04', NULL, NULL)",
    ]
    expected = [
        (9223372036825200000, "infinity", "2016-11-04T06:51:30.000Z", -2147472692, 86400000000, "24:00:00Z"),
        (-9223372036832400000, "-infinity", "2016-11-04T06:51:30.500Z", -2147472691, 49890000000, "11:51:30.123Z"),
        (-210831897600000001, "-4713-12-31T23:59:59.999999Z", None, -719559, None, None),
        (9223371331199999999, "+21016-11-04T06:51:30.000000Z", None, 6644069, None, None),
    ]
    names = ("ts", "tz", "tz_ms", "day", "clock", "clock_tz")
    db.execute(f"INSERT INTO far VALUES {rows[0]}, {rows[1]}")
    with harness(db) as h:
        snapped = poll_records(h, 2)
        db.execute(f"INSERT INTO far VALUES {rows[2]}", f"INSERT INTO far VALUES {rows[3]}")
        streamed = poll_records(h, 2)
        db.execute("UPDATE far SET id = id + 10 WHERE id <= 2")  # the snapshot's rows, streamed
        again = [r for r in poll_records(h, 6) if r.value is not None and r.value["op"] == "c"]
    got = [tuple(r.value["after"][n] for n in names) for r in snapped + streamed]
    assert got == expected
    assert [tuple(r.value["after"][n] for n in names) for r in again] == expected[:2]
    assert [r.value["source"]["snapshot"] for r in snapped] == ["first", "last"]


def test_unchanged_toasted_values_carry_debeziums_placeholder_by_type_and_the_old_value_with_replica_identity_full(
    db: CdcDatabase, caplog: pytest.LogCaptureFixture
) -> None:
    """RecordsStreamProducerIT.shouldNotPropagateUnchangedToastedData / shouldHandleToastedArrayColumn: an
    update that leaves a TOASTed column unchanged does not carry its value; the task failed on a NOT NULL
    array before ("after.mandatory_text_array is required")."""
    columns = """(id int PRIMARY KEY, n int, note text, mandatory_text text NOT NULL, tags text[] NOT NULL,
        counts int[], blob bytea, small smallint[])"""
    db.execute(f"CREATE TABLE toasty {columns}", f"CREATE TABLE toasty_full {columns}")
    db.execute("ALTER TABLE toasty_full REPLICA IDENTITY FULL")
    big = "(SELECT string_agg(md5(i::text), '') FROM generate_series(1, 400) i)"  # 12,800 characters
    for table in ("toasty", "toasty_full"):
        for column in ("note", "mandatory_text", "tags", "counts", "blob", "small"):
            db.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET STORAGE EXTERNAL")  # out of line, as is
        db.execute(f"""INSERT INTO {table} VALUES (1, 0, {big}, {big}, ARRAY[{big}], (SELECT array_agg(i)
            FROM generate_series(1, 3000) i), convert_to({big}, 'UTF8'), (SELECT array_agg(i::smallint)
            FROM generate_series(1, 3000) i))""")
    full_row = db.query("SELECT note, counts FROM toasty WHERE id = 1")[0]
    placeholder = "__debezium_unavailable_value"
    with harness(db, **{"snapshot.mode": "no_data"}) as h, caplog.at_level(logging.WARNING):
        poll_records(h, 0)
        db.execute("UPDATE toasty SET n = 1", "UPDATE toasty_full SET n = 1")
        plain, full = poll_records(h, 2)
    assert plain.value["after"] == {
        "id": 1,
        "n": 1,
        "note": placeholder,
        "mandatory_text": placeholder,  # NOT NULL alike
        "tags": [placeholder],
        "counts": list(placeholder.encode()),  # an int array: the placeholder's bytes, as Debezium's
        "blob": placeholder.encode(),
        "small": None,  # a smallint array has no placeholder in Debezium: null, warned about once
    }
    assert full.value["after"]["note"] == full_row[0] and full.value["after"]["counts"] == full_row[1]
    assert full.value["before"]["note"] == full_row[0]  # with REPLICA IDENTITY FULL: the value itself
    warnings = [r.getMessage() for r in caplog.records if "TOASTed" in r.getMessage()]
    assert len(warnings) == 1 and "column 'small' of table public.toasty" in warnings[0]
    assert "REPLICA IDENTITY FULL" in warnings[0]


def test_a_not_null_toasted_column_without_placeholder_and_an_unmappable_value_fail_naming_the_column(
    db: CdcDatabase,
) -> None:
    db.execute(
        "CREATE TABLE strict (id int PRIMARY KEY, n int, small smallint[] NOT NULL)",
        "ALTER TABLE strict ALTER COLUMN small SET STORAGE EXTERNAL",
        "INSERT INTO strict VALUES (1, 0, (SELECT array_agg(i::smallint) FROM generate_series(1, 3000) i))",
        "CREATE TABLE dated (id int PRIMARY KEY, day date)",
    )
    with harness(db, **{"snapshot.mode": "no_data"}) as h:
        poll_records(h, 0)
        at_start = db.confirmed_flush_lsn()
        db.execute("UPDATE strict SET n = 1")
        with pytest.raises(
            ConnectError, match=r"column 'small' of table public\.strict \(type smallint\[\]\), NOT NULL"
        ):
            poll_records(h, 1)
        assert db.confirmed_flush_lsn() == at_start
    db.execute("INSERT INTO dated VALUES (1, 'infinity')")
    with (
        pytest.raises(
            ConnectError, match=r"Column 'day' of table public\.dated \(type date\) holds 'infinity', which the"
        ),
        harness(
            db, **{"time.precision.mode": "connect", "slot.name": db.slot + "_2", "table.include.list": "public.dated"}
        ) as h,
    ):
        poll_records(h, 1)


def test_a_table_without_primary_key_is_keyed_by_its_first_unique_index_and_key_fields_follow_the_key_order(
    db: CdcDatabase,
) -> None:
    """Debezium's TablesWithoutPrimaryKeyIT: the primary key, else the first unique index (by name) of
    plain columns, else a null key; a key's fields in the key's order, not the table's."""
    db.execute(
        "CREATE TABLE t1 (pk int PRIMARY KEY, val int)",
        "CREATE TABLE t2 (pk int NOT NULL, val int, other int)",
        "CREATE UNIQUE INDEX t2_b_other ON t2 (other)",
        "CREATE UNIQUE INDEX t2_a_pk ON t2 (pk)",  # first by name
        "CREATE UNIQUE INDEX t2_0_expression ON t2 ((val + 1))",  # an expression: not a key
        "CREATE TABLE t3 (pk int, val int)",
        "CREATE TABLE t4 (a int, b int, c int, PRIMARY KEY (c, a))",
        "INSERT INTO t1 VALUES (1, 10)",
        "INSERT INTO t2 VALUES (2, 20, 200)",
        "INSERT INTO t3 VALUES (3, 30)",
        "INSERT INTO t4 VALUES (4, 40, 400)",
    )
    with harness(db) as h:
        snapped = {r.topic.rsplit(".", 1)[1]: r for r in poll_records(h, 4)}
        db.execute("ALTER TABLE t2 REPLICA IDENTITY USING INDEX t2_a_pk", "UPDATE t2 SET val = 21")
        [streamed] = poll_records(h, 1)
    assert {table: record.key for table, record in snapped.items()} == {
        "t1": {"pk": 1},
        "t2": {"pk": 2},
        "t3": None,
        "t4": {"c": 400, "a": 4},
    }
    assert [f.name for f in snapped["t4"].key_schema.fields] == ["c", "a"]
    assert snapped["t3"].key_schema is None
    assert [(f.name, f.schema.optional) for f in snapped["t2"].key_schema.fields] == [("pk", False)]
    assert streamed.key == {"pk": 2} and streamed.value["op"] == "u"


def test_schema_lists_and_message_key_columns_as_debezium_honours_them(db: CdcDatabase) -> None:
    """PostgresConnectorIT.shouldRewriteIdentityKey and shouldTakeExcludeListFiltersIntoAccount."""
    db.execute(
        "CREATE SCHEMA s1",
        "CREATE SCHEMA s2",
        "CREATE SCHEMA s3",
        "CREATE TABLE s1.a (pk int PRIMARY KEY, aa int)",
        "CREATE TABLE s2.a (pk int PRIMARY KEY, aa int)",
        "CREATE TABLE s3.a (pk int PRIMARY KEY, aa int)",
        "INSERT INTO s1.a VALUES (1, 10)",
        "INSERT INTO s2.a VALUES (2, 20)",
        "INSERT INTO s3.a VALUES (3, 30)",
    )
    with harness(db, **{"schema.exclude.list": "s3,public", "message.key.columns": "(.*)1.a:aa,pk"}) as h:
        snapped = poll_records(h, 2)
        db.execute("INSERT INTO s3.a VALUES (4, 40)", "INSERT INTO s1.a VALUES (5, 50)")
        [streamed] = poll_records(h, 1)
    assert sorted((r.topic.split(".", 1)[1], r.key) for r in snapped) == [
        ("s1.a", {"aa": 10, "pk": 1}),
        ("s2.a", {"pk": 2}),
    ]
    assert (streamed.topic.split(".", 1)[1], streamed.key) == ("s1.a", {"aa": 50, "pk": 5})
    assert [f.name for f in streamed.key_schema.fields] == ["aa", "pk"]
    both = PostgresCdcConnector().validate(db.props(**{"schema.include.list": "s1", "schema.exclude.list": "s3"}))
    assert both["schema.exclude.list"].errors == ["set schema.include.list or schema.exclude.list, not both"]
    no_columns = PostgresCdcConnector().validate(db.props(**{"message.key.columns": "s1.a"}))
    assert "'s1.a' is not <table regex>:<column>" in no_columns["message.key.columns"].errors[0]
    with (
        pytest.raises(ConnectError, match=r"message.key.columns keys table s1.a by nope, which it does not have"),
        harness(db, **{"message.key.columns": "s1.a:nope", "slot.name": db.slot + "_2"}) as h,
    ):
        poll_records(h, 1)


def test_numerics_and_enums_carry_debeziums_schemas_parameters_and_values_through_the_json_converter(
    db: CdcDatabase,
) -> None:
    """AbstractRecordsProducerTest.schemasAndValuesForBigDecimalEncodedNumericTypes (precise, the default)
    and ...ForStringEncodedNumericTypes, RecordsStreamProducerIT.shouldStreamEnumAsKnownType; as Kafka's
    JsonConverter writes them with schemas on."""
    db.execute(
        "CREATE TYPE mood AS ENUM ('V1', 'V2')",
        "ALTER TYPE mood ADD VALUE 'V0' BEFORE 'V1'",  # the declared order, not the creation order
    )
    db.execute(  # (a new enum label is usable once committed)
        """CREATE TABLE n (pk int PRIMARY KEY, d numeric(3, 2), dzs numeric(4), dvs numeric,
            d_nn numeric(3, 2) NOT NULL, n numeric(6, 4), nvs numeric, neg numeric, big numeric(30, 2), nan numeric,
            m mood, moods mood[])""",
        "INSERT INTO n VALUES (1, 1.1, 10.11, 10.1111, 3.30, 22.22, 22.2222, -0.50, 1234567890123456789012345678.91,"
        " 'NaN', 'V2', '{V1, V0}')",
    )
    converter = JsonConverter()
    converter.configure({"schemas.enable": "true"}, is_key=False)
    with harness(db, **{"column.exclude.list": r"public\.n\.nan"}) as h:
        [record] = poll_records(h, 1)
    message = json.loads(converter.from_connect_data("t", record.value_schema, record.value))
    after = message["payload"]["after"]
    fields = {f["field"]: f for f in message["schema"]["fields"][1]["fields"]}

    def enum_fields(node: dict[str, Any]) -> dict[str, Any]:
        return {k: node[k] for k in ("name", "version", "parameters")}

    for name, scale, precision in [("d", 2, 3), ("dzs", 0, 4), ("d_nn", 2, 3), ("n", 4, 6), ("big", 2, 30)]:
        parameters = {"scale": str(scale), "connect.decimal.precision": str(precision)}
        got = {k: fields[name].get(k) for k in ("type", "name", "version", "parameters")}
        assert got == {
            "type": "bytes",
            "name": "org.apache.kafka.connect.data.Decimal",
            "version": 1,
            "parameters": parameters,
        }, name
    assert fields["d_nn"]["optional"] is False and fields["d"]["optional"] is True
    assert [after[name] for name in ("d", "dzs", "d_nn", "n")] == [decimal_json(v) for v in (110, 10, 330, 222200)]
    assert after["big"] == decimal_json(123456789012345678901234567891)
    variable = {k: fields["dvs"][k] for k in ("type", "name", "version", "doc")}
    assert variable == {
        "type": "struct",
        "name": "io.debezium.data.VariableScaleDecimal",
        "version": 1,
        "doc": "Variable scaled decimal",
    }
    parts = [(f["field"], f["type"], f["optional"]) for f in fields["dvs"]["fields"]]
    assert parts == [("scale", "int32", False), ("value", "bytes", False)]
    assert after["dvs"] == {"scale": 4, "value": base64.b64encode(bytes([0x01, 0x8A, 0xF7])).decode()}
    assert after["nvs"] == {"scale": 4, "value": base64.b64encode(bytes([0x03, 0x64, 0x0E])).decode()}
    assert after["neg"] == {"scale": 1, "value": base64.b64encode(b"\xfb").decode()}
    enum = {k: fields["m"][k] for k in ("type", "name", "version", "parameters")}
    allowed = {"allowed": "V0,V1,V2"}
    assert enum == {"type": "string", "name": "io.debezium.data.Enum", "version": 1, "parameters": allowed}
    assert after["m"] == "V2"
    # shouldStreamEnumArrayAsKnownType: an array of (required) Enum strings
    assert fields["moods"]["items"] == {"type": "string", "optional": False, **enum_fields(fields["m"])}
    assert fields["moods"]["optional"] is True and after["moods"] == ["V1", "V0"]

    with harness(db, **{"decimal.handling.mode": "string", "slot.name": db.slot + "_2"}) as h:
        [snapped] = poll_records(h, 1)
        db.execute("UPDATE n SET nan = 'Infinity'")
        [updated] = poll_records(h, 1)
    texts = {k: snapped.value["after"][k] for k in ("d", "dzs", "dvs", "n", "nan")}
    assert texts == {"d": "1.10", "dzs": "10", "dvs": "10.1111", "n": "22.2200", "nan": "NAN"}
    assert updated.value["after"]["nan"] == "POSITIVE_INFINITY"
    refused = r"Column 'nan' of table public\.n \(type numeric\) holds 'Infinity'.*decimal\.handling\.mode=string"
    with pytest.raises(ConnectError, match=refused), harness(db, **{"slot.name": db.slot + "_3"}) as h:
        poll_records(h, 1)


def test_source_types_propagate_to_schema_parameters_by_datatype_and_by_column_as_debeziums(db: CdcDatabase) -> None:
    """RecordsStreamProducerIT.shouldPropagateSourceTypeByDatatype, and the column-name spelling."""
    db.execute(
        "CREATE TABLE test_table (id SERIAL, c1 INT, c2 INT, c3a NUMERIC(5,2), c3b VARCHAR(128), f1 float(10),"
        " f2 decimal(8,4), at timestamptz(3), tags text[], primary key (id))"
    )
    props = {
        "snapshot.mode": "no_data",
        "datatype.propagate.source.type": r".+\.NUMERIC,.+\.VARCHAR,.+\.FLOAT4",
        "column.propagate.source.type": r"public\.test_table\.(AT|tags)",  # ignoring case, as Debezium
    }
    with harness(db, **props) as h:
        poll_records(h, 0)
        db.execute(
            "INSERT INTO test_table (id, c1, c2, c3a, c3b, f1, f2, at, tags)"
            " VALUES (1, 123, 456, 789.01, 'test', 1.228, 234.56, now(), '{a}')"
        )
        [record] = poll_records(h, 1)
    fields = {f.name: dict(f.schema.parameters) for f in record.value_schema.fields[0].schema.fields}

    def source(kind: str, length: str, scale: str, name: str) -> dict[str, str]:
        return {
            "__debezium.source.column.type": kind,
            "__debezium.source.column.length": length,
            "__debezium.source.column.scale": scale,
            "__debezium.source.column.name": name,
        }

    assert fields["id"] == fields["c1"] == fields["c2"] == {}  # no type info asked for
    decimal = {"scale": "2", "connect.decimal.precision": "5"}
    assert fields["c3a"] == {**decimal, **source("NUMERIC", "5", "2", "c3a")}
    assert list(fields["c3a"]) == [*decimal, *source("NUMERIC", "5", "2", "c3a")]  # Debezium's order
    assert fields["c3b"] == source("VARCHAR", "128", "0", "c3b")
    assert fields["f1"] == source("FLOAT4", "8", "8", "f1")
    assert fields["f2"] == {"scale": "4", "connect.decimal.precision": "8", **source("NUMERIC", "8", "4", "f2")}
    assert fields["at"] == source("TIMESTAMPTZ", "32", "3", "at")
    assert fields["tags"] == source("_TEXT", "2147483647", "0", "tags")


def test_decimal_binary_and_time_modes(db: CdcDatabase) -> None:
    db.execute(
        "CREATE TABLE m (id int PRIMARY KEY, price numeric(10, 2), raw bytea, day date, at timestamp)",
        "INSERT INTO m VALUES (1, 99.95, '\\x0001ff', '2026-02-03', '2026-02-03 04:05:06.5')",
    )
    with harness(
        db, **{"decimal.handling.mode": "double", "binary.handling.mode": "base64", "time.precision.mode": "connect"}
    ) as h:
        [record] = poll_records(h, 1)
    from datetime import UTC, date, datetime

    assert record.value["after"] == {
        "id": 1,
        "price": 99.95,
        "raw": "AAH/",
        "day": date(2026, 2, 3),
        "at": datetime(2026, 2, 3, 4, 5, 6, 500000, tzinfo=UTC),
    }


def test_an_unmappable_type_is_refused_at_validation_and_a_table_created_later_with_one_fails_the_task_naming_it(
    db: CdcDatabase,
) -> None:
    db.execute("CREATE TABLE shapes (id int PRIMARY KEY, area point[])")
    with pytest.raises(
        ConfigError, match=r"column\.exclude\.list: .* captured column\(s\): public\.shapes\.area \(point\[\]\)"
    ):
        harness(db)
    with harness(db, **{"snapshot.mode": "no_data", "column.exclude.list": "public.shapes.area"}) as h:
        poll_records(h, 0)
        db.execute("CREATE TABLE later (id int PRIMARY KEY, spans interval[])", "INSERT INTO later VALUES (1, NULL)")
        with pytest.raises(ConnectError, match=r"Column 'spans' of table public\.later has the type interval\[\]"):
            poll_records(h, 1)


def test_the_slot_is_not_confirmed_before_commit_and_a_restart_resumes_without_a_snapshot(db: CdcDatabase) -> None:
    """(That commit() does move the slot is tested through the worker, whose offset store the task reads:
    test_postgres_cdc_worker.py.)"""
    db.execute("CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1)")
    h = harness(db)
    with h:
        poll_records(h, 1)
        h.commit()
        at_start = db.confirmed_flush_lsn()
        db.execute("INSERT INTO t VALUES (2)")
        db.execute("INSERT INTO t VALUES (3)")
        poll_records(h, 2)
        for _ in range(3):
            h.poll()
        assert db.confirmed_flush_lsn() == at_start, "the slot moved before the offsets were committed"
        h.commit()
        committed = h.committed_offset({"server": db.name})
        assert committed is not None and committed["lsn"] > at_start and "snapshot" not in committed
        offsets_at_crash = h.committed_offsets
        db.execute("INSERT INTO t VALUES (4)")  # polled, its offset not committed before the "crash": comes again
        poll_records(h, 1)
    h2 = TaskHarness(PostgresCdcTask, h.props, offsets=offsets_at_crash)
    with h2:
        db.execute("INSERT INTO t VALUES (5)")
        records = poll_records(h2, 2)
    assert [(r.value["op"], r.key["id"]) for r in records] == [("c", 4), ("c", 5)]


def test_a_user_without_replication_is_refused_naming_the_user_and_the_privilege(db: CdcDatabase) -> None:
    db.execute("DROP ROLE IF EXISTS reader", "CREATE ROLE reader LOGIN PASSWORD 'reader-secret'")
    try:
        values = PostgresCdcConnector().validate(
            db.props(
                **{"database.user": "reader", "database.password": "reader-secret", "decimal.handling.mode": "exact"}
            )
        )
        [error] = values["database.user"].errors
        assert "'reader'" in error and "REPLICATION" in error and "ALTER ROLE reader REPLICATION" in error
        # named at once with the problem of a key that is not needed to reach the server
        assert "decimal.handling.mode" in values["decimal.handling.mode"].errors[0]
    finally:
        db.execute("DROP ROLE reader")


def test_wal_level_not_logical_is_a_validation_error_naming_wal_level_and_the_command_line_exits_2(
    tmp_path: Path,
) -> None:
    with running_postgres(wal_level="replica") as server:
        if server.data_dir is None:
            pytest.skip("needs a server the tests start")
        with cdc_database(server) as db:
            values = PostgresCdcConnector().validate(db.props())
            connector = tmp_path / "cdc.properties"
            connector.write_text("".join(f"{k}={v}\n" for k, v in db.props().items()))
            result = run_cli("standalone", str(write_worker(tmp_path)), str(connector))
    [error] = values["database.hostname"].errors
    assert "wal_level=replica" in error and "wal_level=logical" in error and "restart" in error
    stderr = assert_refused(result)
    assert "database.hostname" in stderr and "wal_level=logical" in stderr


def test_the_example_file_names_only_declared_keys_and_valid_topic_creation_rules() -> None:
    path = Path(__file__).parents[2] / "config" / "connectors" / "postgres-cdc.properties"
    props = javaproperties.loads(path.read_text())
    rules = parse_rules(props, source=str(path))
    orders, heartbeat = rules.match("inventory.public.orders"), rules.match("__debezium-heartbeat.inventory")
    assert orders is not None and orders.rule == "orders" and orders.settings.partitions == 12
    assert heartbeat is not None and heartbeat.rule == "heartbeats"
    other = rules.match("inventory.public.customers")
    assert other is not None and other.rule == "default" and other.settings.partitions == 3
    declared = set(PostgresCdcConnector().config_def().names())
    assert {k for k in props if not k.startswith("topic.creation.")} - declared == {
        "name",
        "connector.class",
        "tasks.max",
        *("key.converter", "key.converter.schemas.enable", "value.converter", "value.converter.schemas.enable"),
    }
    assert props["key.converter"] == "org.apache.kafka.connect.json.JsonConverter"  # what Debezium consumers read
    assert resolve_connector_class(props["connector.class"]) is PostgresCdcConnector


def test_a_transaction_larger_than_a_batch_comes_in_parts_resuming_before_it_until_its_last_record(
    db: CdcDatabase,
) -> None:
    db.execute("CREATE TABLE t (id int PRIMARY KEY)")
    with harness(db, **{"snapshot.mode": "no_data", "max.batch.size": "100"}) as h:
        db.execute("INSERT INTO t VALUES (0)")
        [before] = poll_records(h, 1)
        db.execute("INSERT INTO t SELECT n FROM generate_series(1, 250) n")
        records = poll_records(h, 250)
    assert sorted(r.key["id"] for r in records) == list(range(1, 251))
    assert max(len(p) for p in h.polls) == 100
    assert {r.source_offset["lsn"] for r in records[:-1]} == {before.source_offset["lsn"]}
    assert records[-1].source_offset["lsn"] > before.source_offset["lsn"]


def test_a_restart_after_a_commit_mid_transaction_skips_what_was_committed(db: CdcDatabase) -> None:
    db.execute("CREATE TABLE t (id int PRIMARY KEY)")
    props = connector_task_props(
        PostgresCdcConnector, db.props(**{"snapshot.mode": "no_data", "max.batch.size": "100"})
    )[0]
    with TaskHarness(PostgresCdcTask, props) as h:
        h.poll()
        db.execute("INSERT INTO t SELECT n FROM generate_series(1, 250) n", "DELETE FROM t WHERE id <= 2")
        first = poll_records(h, 100)
        h.commit()
        committed = h.committed_offsets
    assert h.committed_offset({"server": db.name})["lsn_proc"] == first[-1].source_offset["lsn_proc"]
    with TaskHarness(PostgresCdcTask, props, offsets=committed) as again:
        rest = poll_records(again, 154)  # 150 inserts, 2 deletes and their tombstones
        for _ in range(3):
            again.poll()
    ids = [r.key["id"] for r in first + rest if r.value is not None and r.value["op"] == "c"]
    assert sorted(ids) == list(range(1, 251)), "every insert once"
    assert len(again.records) == 154


def _poll_changes(h: TaskHarness, count: int, heartbeats: str, timeout: float = 60) -> list[SourceRecord]:
    """The next `count` records that are not heartbeats (on the topic `heartbeats`): a heartbeat may come
    first whenever its interval passes before the change is decoded, on a loaded machine at any time."""
    start, deadline = len(h.records), time.monotonic() + timeout

    def changes() -> list[SourceRecord]:
        return [r for r in h.records[start:] if r.topic != heartbeats]

    while len(changes()) < count and time.monotonic() < deadline:
        h.poll()
    assert len(changes()) >= count, f"{count} change record(s) within {timeout}s; got {h.records[start:]}"
    return changes()[:count]


def test_include_and_column_lists_a_key_change_and_heartbeats(db: CdcDatabase) -> None:
    db.execute("CREATE TABLE kept (id int PRIMARY KEY, secret text, note text)", "CREATE TABLE other (id int)")
    heartbeats = f"__debezium-heartbeat.{db.name}"
    props = {
        "table.include.list": r"public\.kept",
        "column.exclude.list": r"public\.kept\.secret",
        "heartbeat.interval.ms": "200",
        "snapshot.mode": "no_data",
    }
    with harness(db, **props) as h:
        db.execute("INSERT INTO kept VALUES (1, 's', 'n')", "INSERT INTO other VALUES (1)")
        [created] = _poll_changes(h, 1, heartbeats)
        assert created.value["after"] == {"id": 1, "note": "n"}
        db.execute("UPDATE kept SET id = 2 WHERE id = 1")
        deleted, tombstone, recreated = _poll_changes(h, 3, heartbeats)
        assert (deleted.value["op"], deleted.key, tombstone.value, recreated.value["op"], recreated.key) == (
            "d",
            {"id": 1},
            None,
            "c",
            {"id": 2},
        )
        # Debezium's headers of a key change: the new key on the delete and its tombstone, the old on the create
        moved_to = [("__debezium.newkey", SchemaAndValue(deleted.key_schema, {"id": 2}))]
        assert deleted.headers == moved_to and tombstone.headers == moved_to
        assert recreated.headers == [("__debezium.oldkey", SchemaAndValue(deleted.key_schema, {"id": 1}))]
        assert created.headers == []
        db.execute("INSERT INTO other VALUES (2)")  # not captured: only a heartbeat tells the slot to move on
        [lsn] = db.query("SELECT pg_current_wal_lsn() - '0/0'")[0]
        for _ in range(100):
            beats = [r for r in poll_records(h, 1) if r.topic == heartbeats]
            if beats and beats[-1].source_offset["lsn"] >= lsn:
                break
        assert beats and beats[-1].source_offset["lsn"] >= lsn
        assert beats[-1].key == {"serverName": db.name} and set(beats[-1].value) == {"ts_ms"}
    assert all(r.topic in (created.topic, heartbeats) for r in h.records)


def test_snapshot_modes_always_and_initial_only_and_slot_drop_on_stop(db: CdcDatabase) -> None:
    db.execute("CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t VALUES (1), (2)")
    with harness(db, **{"snapshot.mode": "initial_only"}) as h:
        assert sorted(r.key["id"] for r in poll_records(h, 2)) == [1, 2]
        db.execute("INSERT INTO t VALUES (3)")
        for _ in range(5):
            h.poll()
        assert len(h.records) == 2
    assert db.query(f"SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{db.slot}'") == [(0,)]
    offsets = h.committed_offsets
    with TaskHarness(
        PostgresCdcTask,
        connector_task_props(
            PostgresCdcConnector, db.props(**{"snapshot.mode": "always", "slot.drop.on.stop": "true"})
        )[0],
        offsets=offsets,
    ) as again:
        assert sorted((r.value["op"], r.key["id"]) for r in poll_records(again, 3)) == [("r", 1), ("r", 2), ("r", 3)]
    assert db.query(f"SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{db.slot}'") == [(0,)]
