"""The CDC stream's fast paths against their plain forms, without a server: a change decoded without its
message object, a row made by the table's compiled builder and by the column loop, and pending records
handed on as a batch or as records."""

from __future__ import annotations

import struct
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectworker.api.record import SourceRecord, SourceRecordBatch
from connectworker.connectors.debezium.pending import LONG_RUN, PendingRecords
from connectworker.connectors.debezium.table_shape import TableShape
from connectworker.connectors.postgres_cdc import columns as c
from connectworker.connectors.postgres_cdc import pgoutput as pg
from connectworker.connectors.postgres_cdc.catalog_types import CatalogTypes
from connectworker.connectors.postgres_cdc.database import CatalogColumn
from connectworker.connectors.postgres_cdc.settings import parse_settings
from connectworker.connectors.postgres_cdc.table_shape import shape_of
from tests.unit.test_postgres_cdc_decoding import tuple_data

SETTINGS = {"database.hostname": "h", "database.dbname": "d", "database.user": "u", "topic.prefix": "p"}


def test_changes_decode_to_what_their_message_objects_hold() -> None:
    relid = struct.pack("!I", 42)
    new, old = tuple_data("1", None, "x"), tuple_data("1", "a", None)
    unchanged = struct.pack("!h", 2) + b"t" + struct.pack("!i", 1) + b"1u"
    assert pg.decode_change(b"I" + relid + b"N" + new) == (42, None, ["1", None, "x"])
    assert pg.decode_change(b"U" + relid + b"N" + new) == (42, None, ["1", None, "x"])
    assert pg.decode_change(b"U" + relid + b"O" + old + b"N" + new) == (42, ["1", "a", None], ["1", None, "x"])
    assert pg.decode_change(b"U" + relid + b"K" + old + b"N" + unchanged) == (
        42,
        ["1", "a", None],
        ["1", pg.UNCHANGED_TOAST],
    )
    assert pg.decode_change(b"D" + relid + b"K" + old) == (42, ["1", "a", None], None)
    for payload in (b"I" + relid + b"N" + new, b"U" + relid + b"O" + old + b"N" + new, b"D" + relid + b"O" + old):
        decoded = pg.decode(payload)
        assert pg.decode_change(payload) == (
            decoded.relid,  # type: ignore[union-attr]
            getattr(decoded, "old", None),
            getattr(decoded, "new", None),
        )
    with pytest.raises(pg.PgOutputError, match="without its new tuple"):
        pg.decode_change(b"U" + relid + b"K" + old + b"X")


# name, type oid, typmod, nullable, primary key; odd names on purpose (the builder's source quotes them)
COLUMNS = [
    ("id", c.INT8, -1, False, True),
    ('it\'s "quoted"\\', c.TEXT, -1, True, False),
    ("n", c.INT4, -1, True, False),
    ("nn", c.INT2, -1, False, False),
    ("when", c.TIMESTAMP_OID, -1, True, False),
    ("day", c.DATE_OID, -1, False, False),
    ("raw", c.BYTEA, -1, True, False),
    ("tags", 1009, -1, False, False),
    ("naïve ☃", c.VARCHAR, -1, False, False),
    ("flag", c.BOOL, -1, True, False),
]
TEXTS = {
    c.INT8: st.integers(-(2**63), 2**63 - 1).map(str),
    c.INT4: st.integers(-(2**31), 2**31 - 1).map(str),
    c.INT2: st.integers(-(2**15), 2**15 - 1).map(str),
    c.TEXT: st.text(),
    c.VARCHAR: st.text(),
    c.TIMESTAMP_OID: st.datetimes().map(lambda moment: moment.isoformat(sep=" ")),
    c.DATE_OID: st.dates().map(str),
    c.BYTEA: st.binary(max_size=4).map(lambda data: "\\x" + data.hex()),
    1009: st.lists(st.text(alphabet="abc", min_size=1), max_size=3).map(lambda items: "{" + ",".join(items) + "}"),
    c.BOOL: st.sampled_from(["t", "f"]),
}


def shape(excluded: str = "") -> TableShape:
    settings = parse_settings(SETTINGS | ({"column.exclude.list": excluded} if excluded else {}))
    catalog = [CatalogColumn(name, oid, mod, f"t{oid}", nullable, key) for name, oid, mod, nullable, key in COLUMNS]
    names = [(name, oid, mod) for name, oid, mod, _, _ in COLUMNS]
    return shape_of(settings, "public", "t", names, catalog, CatalogTypes(), c.TypeOptions())


TOASTABLE = {c.TEXT, c.VARCHAR, c.BYTEA, 1009}  # variable-length types: PostgreSQL never TOASTs the others


def tuples() -> st.SearchStrategy[list[Any]]:
    def value(oid: int) -> st.SearchStrategy[Any]:
        return TEXTS[oid] | st.none() | (st.just(pg.UNCHANGED_TOAST) if oid in TOASTABLE else st.nothing())

    return st.tuples(*(value(oid) for _, oid, _, _, _ in COLUMNS)).map(list)


@settings(max_examples=300)
@given(tuples(), st.none() | tuples(), st.sampled_from(["", "public[.]t[.](n|raw)", "public[.]t[.]id"]))
def test_the_compiled_row_is_the_column_loops_row(values: list[Any], previous: list[Any] | None, excluded: str) -> None:
    table = shape(excluded)
    positions, unmapped = [column.position for column in table.columns], [None] * len(table.columns)
    expected = table._row_by_columns(positions, values, previous, unmapped)
    got = table.row(values, previous)
    assert got == expected and list(got) == list(expected)
    assert [type(v) for v in got.values()] == [type(v) for v in expected.values()]


def record_columns(pending: PendingRecords, route: Any, count: int, start: int = 0) -> None:
    for n in range(start, start + count):
        pending.records.append(({"lsn": n}, {"id": n}, {"v": n} if route[2] is not None else None, route))


def test_pending_records_of_one_route_are_handed_on_as_a_batch_in_order() -> None:
    table, partition = shape(), {"server": "p"}
    pending = PendingRecords()
    record_columns(pending, table.route, 5)
    first = pending.take(3, partition)
    assert isinstance(first, SourceRecordBatch) and first.keys == [{"id": 0}, {"id": 1}, {"id": 2}]
    assert first.topics == ["p.public.t"] * 3 and first.value_schema is table.envelope_schema
    assert first.newest_offset() == {"lsn": 2} and len(pending) == 2
    rest = pending.take(10, partition)
    assert isinstance(rest, SourceRecordBatch) and rest.values == [{"v": 3}, {"v": 4}] and len(pending) == 0
    record_columns(pending, table.route, 1)
    single = pending.take(10, partition)
    assert single == [
        SourceRecord(
            partition, {"lsn": 0}, "p.public.t", {"v": 0}, {"id": 0}, None, table.envelope_schema, table.key_schema
        )
    ]


def test_a_long_run_behind_a_few_other_records_waits_for_the_next_take_and_goes_as_a_batch() -> None:
    table, partition = shape(), {"server": "p"}
    pending, run = PendingRecords(), PendingRecords()
    record_columns(pending, table.tombstone_route, 2)  # a delete's tombstones, then a snapshot chunk's rows
    record_columns(run, table.route, LONG_RUN + 10, start=2)
    run.move_to(pending)
    record_columns(pending, table.tombstone_route, 1, start=LONG_RUN + 12)
    ahead = pending.take(2048, partition)
    assert isinstance(ahead, list) and [r.source_offset for r in ahead] == [{"lsn": 0}, {"lsn": 1}]
    batch = pending.take(2048, partition)
    assert isinstance(batch, SourceRecordBatch) and len(batch) == LONG_RUN + 10
    assert batch.keys[0] == {"id": 2} and batch.newest_offset() == {"lsn": LONG_RUN + 11}
    assert [r.value for r in pending.take(2048, partition)] == [None] and len(pending) == 0


def test_tombstones_and_mixed_routes_are_handed_on_as_records() -> None:
    table, partition = shape(), {"server": "p"}
    pending, other = PendingRecords(), PendingRecords()
    record_columns(pending, table.route, 2)
    record_columns(other, table.tombstone_route, 1, start=2)
    other.move_to(pending)
    assert len(other) == 0
    records = pending.take(3, partition)
    assert isinstance(records, list)
    assert [(r.value, r.value_schema is None, r.key_schema is table.key_schema) for r in records] == [
        ({"v": 0}, False, True),
        ({"v": 1}, False, True),
        (None, True, True),
    ]
