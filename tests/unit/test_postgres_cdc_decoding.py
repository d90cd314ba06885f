"""pgoutput messages (built byte by byte as PostgreSQL's protocol documentation lays them out) decoded, and
the text forms of PostgreSQL values parsed into Debezium's Connect values, without a server."""

from __future__ import annotations

import struct
from datetime import UTC, datetime

import pytest

from connectworker.api.schema import SchemaType
from connectworker.connectors.postgres_cdc import columns as c
from connectworker.connectors.postgres_cdc import pgoutput as pg


def tuple_data(*values: str | None) -> bytes:
    out = struct.pack("!h", len(values))
    for value in values:
        out += b"n" if value is None else b"t" + struct.pack("!i", len(value.encode())) + value.encode()
    return out


def test_begin_relation_changes_truncate_and_commit_decode() -> None:
    assert pg.decode(b"B" + struct.pack("!qqI", 100, 1_000_000, 7)) == pg.Begin(
        100, datetime(2000, 1, 1, 0, 0, 1, tzinfo=UTC), 7
    )
    relation = (
        b"R"
        + struct.pack("!I", 42)
        + b"public\0orders\0d"
        + struct.pack("!h", 2)
        + b"\x01id\0"
        + struct.pack("!Ii", 23, -1)
        + b"\x00note\0"
        + struct.pack("!Ii", 25, -1)
    )
    assert pg.decode(relation) == pg.Relation(
        42, "public", "orders", "d", (pg.RelationColumn("id", 23, -1, True), pg.RelationColumn("note", 25, -1, False))
    )
    assert pg.decode(b"I" + struct.pack("!I", 42) + b"N" + tuple_data("1", None)) == pg.Insert(42, ["1", None])
    assert pg.decode(b"U" + struct.pack("!I", 42) + b"N" + tuple_data("1", "x")) == pg.Update(42, None, ["1", "x"])
    assert pg.decode(
        b"U" + struct.pack("!I", 42) + b"O" + tuple_data("1", "a") + b"N" + tuple_data("1", "b")
    ) == pg.Update(42, ["1", "a"], ["1", "b"])
    unchanged = b"U" + struct.pack("!I", 42) + b"N" + struct.pack("!h", 2) + b"t" + struct.pack("!i", 1) + b"1u"
    assert pg.decode(unchanged).new == ["1", pg.UNCHANGED_TOAST]
    assert pg.decode(b"D" + struct.pack("!I", 42) + b"K" + tuple_data("1", None)) == pg.Delete(42, ["1", None])
    assert pg.decode(b"T" + struct.pack("!IbII", 2, 1, 42, 43)) == pg.Truncate((42, 43), True, False)
    assert pg.decode(b"Y" + struct.pack("!I", 99) + b"public\0mood\0") == pg.TypeInfo(99, "public", "mood")
    assert pg.decode(b"C" + struct.pack("!bqqq", 0, 100, 150, 0)) == pg.Commit(100, 150, pg.PG_EPOCH)
    with pytest.raises(pg.PgOutputError):
        pg.decode(b"Z")


def test_lsn_text_round_trips() -> None:
    assert pg.parse_lsn("16/B374D848") == 0x16B374D848
    assert pg.format_lsn(0x16B374D848) == "16/B374D848"


def test_arrays_parse_with_quotes_escapes_and_nulls() -> None:
    assert c.parse_array('{a,"b c","d\\"e",NULL,"NULL"}') == ["a", "b c", 'd"e', None, "NULL"]
    assert c.parse_array("{}") == []
    with pytest.raises(ValueError, match="multi-dimensional"):
        c.parse_array("{{1,2},{3,4}}")


def test_temporal_text_becomes_debeziums_values() -> None:
    options = c.TypeOptions()
    zoned = c.column_type(c.TIMESTAMPTZ, -1, options)
    assert zoned is not None and zoned.parse("2026-02-03 04:05:06.5+02") == "2026-02-03T02:05:06.5Z"
    assert zoned.parse("2026-02-03 04:05:06+00") == "2026-02-03T04:05:06Z"
    timetz = c.column_type(c.TIMETZ, -1, options)
    assert timetz is not None and timetz.parse("01:00:00+02") == "23:00:00Z"
    micro = c.column_type(c.TIMESTAMP_OID, -1, options)
    assert micro is not None and micro.parse("1970-01-01 00:00:01.000001") == 1_000_001
    assert micro.schema.name == "io.debezium.time.MicroTimestamp"


def test_modes_and_an_unknown_type() -> None:
    hexed = c.column_type(c.BYTEA, -1, c.TypeOptions(binary_handling="hex"))
    assert hexed is not None and hexed.parse("\\x00ff") == "00ff" and hexed.schema.type is SchemaType.STRING
    assert c.column_type(600, -1, c.TypeOptions()) is None  # point
    with pytest.raises(c.UnsupportedTypeError, match=r"Column 'p' of table public.t has the type point"):
        c.require_type("public.t", "p", 600, -1, "point", c.TypeOptions())
