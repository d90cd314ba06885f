"""pgoutput messages (built byte by byte as PostgreSQL's protocol documentation lays them out) decoded, and
the text forms of PostgreSQL values parsed into Debezium's Connect values, without a server."""

from __future__ import annotations

import struct
from datetime import UTC, datetime

import pytest

from connectworker.api.schema import SchemaType
from connectworker.connectors.postgres_cdc import columns as c
from connectworker.connectors.postgres_cdc import hstore, source_type
from connectworker.connectors.postgres_cdc import pgoutput as pg
from connectworker.connectors.postgres_cdc.catalog_types import CatalogTypes


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
    options = c.PostgresTypeOptions()
    zoned = c.column_type(c.TIMESTAMPTZ, -1, options)
    # Debezium 2.2+: as many fraction digits as the column's precision (6 without one), always written
    assert zoned is not None and zoned.parse("2026-02-03 04:05:06.5+02") == "2026-02-03T02:05:06.500000Z"
    assert zoned.parse("2026-02-03 04:05:06+00") == "2026-02-03T04:05:06.000000Z"
    millis = c.column_type(c.TIMESTAMPTZ, 3, options)
    assert millis is not None and millis.parse("2026-02-03 04:05:06+00") == "2026-02-03T04:05:06.000Z"
    whole = c.column_type(c.TIMESTAMPTZ, 0, options)
    assert whole is not None and whole.parse("2026-02-03 04:05:06+00") == "2026-02-03T04:05:06Z"
    timetz = c.column_type(c.TIMETZ, -1, options)
    assert timetz is not None and timetz.parse("01:00:00+02") == "23:00:00Z"
    micro = c.column_type(c.TIMESTAMP_OID, -1, options)
    assert micro is not None and micro.parse("1970-01-01 00:00:01.000001") == 1_000_001
    assert micro.schema.name == "io.debezium.time.MicroTimestamp"


def test_modes_and_an_unknown_type() -> None:
    hexed = c.column_type(c.BYTEA, -1, c.PostgresTypeOptions(binary_handling="hex"))
    assert hexed is not None and hexed.parse("\\x00ff") == "00ff" and hexed.schema.type is SchemaType.STRING
    assert c.column_type(1017, -1, c.PostgresTypeOptions()) is None  # point[]: Debezium has no schema for it
    with pytest.raises(c.UnsupportedTypeError, match=r"Column 'p' of table public.t has the type point\[\]"):
        c.require_type("public.t", "p", 1017, -1, "point[]", c.PostgresTypeOptions())


# Debezium's AbstractRecordsProducerTest.schemaAndValuesForDateTimeTypes: (type oid, typmod, PostgreSQL's
# text, the value Debezium writes), with the values Python's datetime cannot hold
DEBEZIUM_TEMPORAL = [
    (c.TIMESTAMP_OID, -1, "2016-11-04 13:51:30.123456", 1478267490123456),
    (c.TIMESTAMP_OID, 6, "1936-10-25 22:10:12.608", -1047174587392000),
    (c.TIMESTAMP_OID, 3, "2016-11-04 13:51:30.123", 1478267490123),
    (c.TIMESTAMPTZ, -1, "2016-11-04 11:51:30.123456+00", "2016-11-04T11:51:30.123456Z"),
    (c.DATE_OID, -1, "2016-11-04", 17109),
    (c.TIME_OID, -1, "13:51:30", 49890000000),
    (c.TIME_OID, 3, "13:51:30.123", 49890123),
    (c.TIME_OID, -1, "24:00:00", 86400000000),
    (c.TIMETZ, -1, "13:51:30.123789+02", "11:51:30.123789Z"),
    (c.TIMETZ, 3, "13:51:30.123+02", "11:51:30.123Z"),
    (c.TIMETZ, -1, "24:00:00+00", "24:00:00Z"),
    (c.TIMESTAMP_OID, -1, "21016-11-04 13:51:30.123456", 601060312290123456),
    (c.TIMESTAMP_OID, 3, "21016-11-04 13:51:30.124", 601060312290124),
    (c.TIMESTAMPTZ, -1, "21016-11-04 06:51:30.123456+00", "+21016-11-04T06:51:30.123456Z"),
    (c.TIMESTAMP_OID, 6, "294247-01-01 23:59:59.999999", 9223371331199999999),
    (c.TIMESTAMP_OID, 6, "4713-12-31 23:59:59.999999 BC", -210831897600000001),
    (c.TIMESTAMPTZ, -1, "294247-01-01 23:59:59.999999+00", "+294247-01-01T23:59:59.999999Z"),
    (c.TIMESTAMPTZ, -1, "4714-12-31 23:59:59.999999+00 BC", "-4713-12-31T23:59:59.999999Z"),
    (c.TIMESTAMP_OID, 6, "infinity", 9223372036825200000),
    (c.TIMESTAMP_OID, 6, "-infinity", -9223372036832400000),
    (c.TIMESTAMP_OID, 3, "infinity", 9223372036825200),
    (c.TIMESTAMPTZ, -1, "infinity", "infinity"),
    (c.TIMESTAMPTZ, -1, "-infinity", "-infinity"),
    (c.TIMESTAMPTZ, -1, "21016-11-04 06:51:30+00", "+21016-11-04T06:51:30.000000Z"),
    (c.DATE_OID, -1, "0002-12-01 BC", -719559),
    (c.DATE_OID, -1, "20160-11-04", 6644069),
    (c.DATE_OID, -1, "infinity", -2147472692),  # Debezium's LocalDate sentinel, as its streaming writes it
    (c.DATE_OID, -1, "-infinity", -2147472691),
]


@pytest.mark.parametrize(("oid", "modifier", "text", "expected"), DEBEZIUM_TEMPORAL)
def test_temporal_values_beyond_pythons_datetime_are_written_as_debezium_writes_them(
    oid: int, modifier: int, text: str, expected: object
) -> None:
    column = c.column_type(oid, modifier, c.PostgresTypeOptions())
    assert column is not None and column.parse(text) == expected


def test_unchanged_toast_placeholders_follow_the_column_type_as_debeziums() -> None:
    options, placeholder = c.PostgresTypeOptions(), "__debezium_unavailable_value"
    by_type = {name: c.column_type(oid, -1, options) for name, oid in [("text", c.TEXT), ("bytea", c.BYTEA)]}
    by_type |= {name: c.column_type(oid, -1, options) for name, oid in [("text[]", 1009), ("int4[]", 1007)]}
    by_type |= {name: c.column_type(oid, -1, options) for name, oid in [("int8[]", 1016), ("uuid[]", 2951)]}
    by_type |= {name: c.column_type(oid, -1, options) for name, oid in [("bytea[]", 1001), ("int2[]", 1005)]}
    unavailable = {name: column.unavailable for name, column in by_type.items() if column is not None}
    assert unavailable["text"] == placeholder and unavailable["bytea"] == placeholder.encode()
    assert unavailable["text[]"] == [placeholder] and unavailable["bytea[]"] == [placeholder.encode()]
    assert unavailable["int4[]"] == list(placeholder.encode()) == unavailable["int8[]"]
    assert unavailable["uuid[]"] == ["b68a35a7-17ad-35b3-af2a-ae46edb4545a"]  # Java's UUID.nameUUIDFromBytes
    assert unavailable["int2[]"] is None  # Debezium has none: null where the column allows it
    hexed = c.column_type(c.BYTEA, -1, c.PostgresTypeOptions(binary_handling="hex"))
    assert hexed is not None and hexed.unavailable == placeholder  # not hex-encoded, as Debezium's


def test_array_text_forms_of_json_bytea_and_timestamptz_parse_to_their_elements() -> None:
    options = c.PostgresTypeOptions()
    json_array = c.column_type(3807, -1, options)  # jsonb[]
    assert json_array is not None and json_array.parse('{"{\\"a\\": 1}","[1, 2]",NULL}') == ['{"a": 1}', "[1, 2]", None]
    bytea_array = c.column_type(1001, -1, options)
    assert bytea_array is not None and bytea_array.parse('{"\\\\x00ff"}') == [b"\x00\xff"]
    zoned = c.column_type(1185, -1, options)  # timestamptz[]
    assert zoned is not None and zoned.parse('{"2020-04-01 11:51:02+00"}') == ["2020-04-01T11:51:02.000000Z"]


# (PostgreSQL's text, IntervalStyle=postgres; Debezium's MicroDuration; its Interval string), each checked
# against Debezium's MicroDuration.durationMicros and Interval.toIsoString run on Java 17
DEBEZIUM_INTERVALS = [
    ("1 year 2 mons 3 days 04:05:06.78", 37091106780000, "P1Y2M3DT4H5M6.78S"),
    ("-1 years -2 mons +3 days -04:05:06.78", -36572706780000, "P-1Y-2M3DT-4H-5M-6.78S"),
    ("1 mon -1 days", 2543400000000, "P0Y1M-1DT0H0M0S"),
    ("-1 days +100:00:00", 273600000000, "P0Y0M-1DT100H0M0S"),
    ("1 day 02:00:00", 93600000000, "P0Y0M1DT2H0M0S"),
    ("00:00:00", 0, "P0Y0M0DT0H0M0S"),
    ("-00:00:00.000001", -1, "P0Y0M0DT0H0M-0.000001S"),
    ("00:00:00.3", 300000, "P0Y0M0DT0H0M0.3S"),
    ("178000000 years", 9223372036854775807, "P178000000Y0M0DT0H0M0S"),  # Java's (long) saturates
]


@pytest.mark.parametrize(("text", "micros", "iso"), DEBEZIUM_INTERVALS)
def test_intervals_become_debeziums_micro_duration_and_iso_text(text: str, micros: int, iso: str) -> None:
    numeric = c.column_type(c.INTERVAL, -1, c.PostgresTypeOptions())
    string = c.column_type(c.INTERVAL, -1, c.PostgresTypeOptions(interval_handling="string"))
    assert numeric is not None and string is not None
    assert (numeric.parse(text), string.parse(text)) == (micros, iso)


def test_an_interval_whose_hours_java_cannot_hold_is_refused() -> None:
    numeric = c.column_type(c.INTERVAL, -1, c.PostgresTypeOptions())
    assert numeric is not None
    with pytest.raises(ValueError, match="32-bit"):  # pgjdbc's PGInterval fails on it too
        numeric.parse("2562047788:00:54.775807")


def test_money_by_decimal_mode_and_fraction_digits() -> None:
    def parse(text: str, **options: object) -> object:
        found = c.column_type(c.MONEY, -1, c.PostgresTypeOptions(**options))  # type: ignore[arg-type]
        assert found is not None
        return found.parse(text)

    assert parse("$1,234.11") == (123411).to_bytes(3, "big")
    assert parse("-$1,234.11") == parse("($1,234.11)") == (-123411).to_bytes(3, "big", signed=True)
    assert parse("$0.05", money_fraction_digits=1) == bytes([1])  # rounded half up
    assert parse("-$92,233,720,368,547,758.08", decimal_handling="string") == "-92233720368547758.08"
    assert parse("$1.5", decimal_handling="double") == 1.5
    with pytest.raises(ValueError, match="not a money value"):
        parse("1,23 €")


def test_hstore_entries_come_in_java_hash_map_order_as_jackson_writes_them() -> None:
    """The order of 40 keys (past HashMap's first resize, non-ASCII) as java.util.HashMap iterates them on
    Java 17; control characters escaped as Jackson escapes them."""
    keys = [f"k{n}é" for n in range(40)]
    order = [3, 1, 29, 19, 27, 17, 39, 25, 15, 37, 23, 13, 35, 21, 11, 33, 30, 20, 8, 6, 4, 2, 0, 18, 16, 38]
    order += [28, 14, 36, 26, 12, 34, 24, 10, 32, 22, 31, 9, 7, 5]
    assert [k for k, _ in hstore.java_hash_map_order([(k, "v") for k in keys])] == [keys[n] for n in order]
    assert hstore.as_json('"a"=>"x\\"\\\\y", "b"=>NULL, "c"=>"\x01\x1f\n"') == (
        '{"a":"x\\"\\\\y","b":null,"c":"\\u0001\\u001F\\n"}'
    )
    assert hstore.as_map('"a"=>"1", "b"=>NULL') == {"a": "1", "b": None}
    with pytest.raises(ValueError, match="not an hstore"):
        hstore.as_map('"a"->"1"')


def test_bits_geometry_and_domains() -> None:
    options = c.PostgresTypeOptions()
    bit1, varbit, bit24 = (c.column_type(oid, n, options) for oid, n in [(c.BIT, 1), (c.VARBIT, -1), (c.BIT, 24)])
    assert bit1 is not None and bit1.schema.type is SchemaType.BOOLEAN and bit1.parse("1") is True
    assert varbit is not None and dict(varbit.schema.parameters) == {"length": "2147483647"}
    assert bit24 is not None and bit24.parse("000000110000001000000001") == bytes([1, 2, 3])
    point = c.column_type(600, -1, options)
    assert point is not None and point.parse("(Infinity,-1e+300)")["x"] == float("inf")
    types = CatalogTypes(domains={50_000: (c.NUMERIC, 655366), 50_001: (50_000, -1), 50_002: (50_001, 458758)})
    assert types.base(50_001, -1) == (c.NUMERIC, 655366)  # a domain of a domain: numeric(10,2)
    assert types.base(50_002, -1) == (c.NUMERIC, 458758)  # the nearest modifier: numeric(7,2)
    domain = c.column_type(50_001, -1, options, types)
    assert domain is not None and dict(domain.schema.parameters) == {"scale": "2", "connect.decimal.precision": "10"}
    assert domain.parse("12.5") == (1250).to_bytes(2, "big")


def test_source_type_lengths_and_scales_of_interval_and_bits_are_the_jdbc_drivers() -> None:
    """What pgjdbc's TypeInfoCache.getPrecision / getScale give, which column.propagate.source.type carries."""

    def length_and_scale(oid: int, modifier: int) -> tuple[str, str]:
        return str(source_type.length(oid, modifier)), str(source_type.scale(oid, modifier))

    assert length_and_scale(c.INTERVAL, -1) == ("49", "6")
    assert length_and_scale(c.INTERVAL, 0x7FFF0003) == ("49", "3")  # interval(3)
    assert length_and_scale(c.BIT, 3) == ("3", "0")
    assert length_and_scale(c.VARBIT, -1) == ("2147483647", "0")
