"""The PostgreSQL types Debezium maps beyond the basic ones, against the real server: each type's edge values
(nulls, arrays, empty and unbounded ranges, negative intervals, months with days...) through the snapshot
and through the stream, with the values and Connect schemas Debezium's AbstractRecordsProducerTest and
RecordsStreamProducerIT expect; the type keys; and validation refusing the columns no mapping fits."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from typing import Any

import pytest

from connectworker.api.record import SourceRecord
from connectworker.api.schema import Schema, SchemaType
from connectworker.connectors.postgres_cdc import PostgresCdcConnector
from tests.integration.cdc_helpers import CdcDatabase, cdc_database, harness, poll_records
from tests.postgres import Postgres

EXTENSIONS = ("hstore", "ltree", "citext", "isn")  # contrib modules Debian's postgresql package ships


@pytest.fixture
def db(postgres: Postgres) -> Iterator[CdcDatabase]:
    with cdc_database(postgres) as database:
        database.execute(*(f"CREATE EXTENSION {name}" for name in EXTENSIONS))
        yield database


def snapshot_and_stream(db: CdcDatabase, table: str, rows: list[str], **overrides: str) -> list[SourceRecord]:
    """The records of `rows` inserted once before the task starts (read by the snapshot) and once after it
    (streamed), ids 1.. and 101..; the snapshot's first, then the stream's."""
    db.execute(*(f"INSERT INTO {table} VALUES ({n}, {row})" for n, row in enumerate(rows, start=1)))
    with harness(db, **overrides) as h:
        snapped = poll_records(h, len(rows))
        db.execute(*(f"INSERT INTO {table} VALUES ({100 + n}, {row})" for n, row in enumerate(rows, start=1)))
        streamed = poll_records(h, len(rows))
    assert [r.value["op"] for r in snapped + streamed] == ["r"] * len(rows) + ["c"] * len(rows)
    return snapped + streamed


def values(records: list[SourceRecord], rows: int) -> list[dict[str, Any]]:
    """Each record's `after` without its id; asserting the snapshot's and the stream's are the same."""
    afters = [{k: v for k, v in r.value["after"].items() if k != "id"} for r in records]
    assert afters[:rows] == afters[rows:], "the snapshot and the stream disagree"
    return afters[:rows]


def field_schemas(record: SourceRecord) -> dict[str, Schema]:
    return {f.name: f.schema for f in record.value_schema.fields[1].schema.fields}


def doubles(*numbers: float) -> bytes:
    return b"".join(struct.pack("<d", n) for n in numbers)


def test_interval_money_bits_network_text_search_and_range_types_as_debezium_writes_them(db: CdcDatabase) -> None:
    """AbstractRecordsProducerTest's interval ('P1Y2M3DT4H5M6.78S' is MicroDuration.durationMicros(1, 2, 3,
    4, 5, 6.78): months of 365.25 / 12 days), cash, bit/varbit (schemaAndValuesForBinTypes), network address,
    range (schemaAndValuesForRangeTypes) and tsvector values, with a negative interval, months with days,
    an empty and an unbounded range, arrays and nulls."""
    db.execute("""CREATE TABLE kinds (id int PRIMARY KEY, it interval, csh money, bol bit(1), bs bit(2),
        bs7 bit(7), bv1 varbit(1), bv2 bit(24), bvl bit(64), bvu varbit, i inet, c cidr, m macaddr,
        m8 macaddr8, nets inet[], tsv tsvector, r4 int4range, r8 int8range, rn numrange, rts tsrange,
        rtz tstzrange, rd daterange, ranges int4range[], it_nn interval NOT NULL DEFAULT '0')""")
    rows = [
        """'P1Y2M3DT4H5M6.78S', '$1234.11', B'0', B'11', B'1'::bit(7), B'1', B'000000110000001000000001',
        B'1000000000000000000000000000000000000000000000000000000000000000', B'101', '192.168.2.0/12',
        '192.168.100.128/25', '08:00:2b:01:02:03', '08:00:2b:01:02:03:04:05',
        '{"192.168.2.0/12","192.168.1.1",NULL}', 'a fat cat sat', '[1000,6000)', '[1000000,6000000)',
        '[5.3,6.3)', '[2019-03-31 15:30:00, infinity)', '[2017-06-05 11:29:12.549426+00,)',
        '[2019-03-31, 2019-04-30)', '{"[1,6)",empty}', '1 mon -1 days'""",
        """'-1 year -2 mons +3 days -04:05:06.78', '($1234.11)', B'1', B'00', B'0000000', B'0', B'0' || B'0'::bit(23),
        B'0'::bit(64), B'111011010001000110000001000000001', NULL, NULL, NULL, NULL, '{}', NULL, 'empty', '(,)',
        NULL, NULL, NULL, NULL, NULL, '-1 days +100:00:00'""",
        "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
        "NULL, NULL, NULL, NULL, NULL, DEFAULT",
    ]
    records = snapshot_and_stream(db, "kinds", rows)
    first, second, nulls = values(records, 3)
    assert first == {
        "it": 37091106780000,
        "csh": (123411).to_bytes(3, "big"),  # Decimal at scale 2 (money.fraction.digits): 1234.11
        "bol": False,
        "bs": bytes([3]),
        "bs7": bytes([64]),
        "bv1": True,
        "bv2": bytes([1, 2, 3]),
        "bvl": bytes([0, 0, 0, 0, 0, 0, 0, 128]),
        "bvu": bytes([5]),
        "i": "192.168.2.0/12",
        "c": "192.168.100.128/25",
        "m": "08:00:2b:01:02:03",
        "m8": "08:00:2b:01:02:03:04:05",
        "nets": ["192.168.2.0/12", "192.168.1.1", None],
        "tsv": "'a' 'cat' 'fat' 'sat'",
        "r4": "[1000,6000)",
        "r8": "[1000000,6000000)",
        "rn": "[5.3,6.3)",
        "rts": '["2019-03-31 15:30:00",infinity)',
        "rtz": '["2017-06-05 11:29:12.549426+00",)',
        "rd": "[2019-03-31,2019-04-30)",
        "ranges": ["[1,6)", "empty"],
        "it_nn": 2543400000000,  # one month less a day: 29.4375 days
    }
    assert second == {
        "it": -36572706780000,
        "csh": (-123411).to_bytes(3, "big", signed=True),
        "bol": True,
        "bs": b"",  # no bit set: no bytes, as Debezium's BitSet.toByteArray
        "bs7": b"",
        "bv1": False,
        "bv2": b"",
        "bvl": b"",
        "bvu": bytes([1, 2, 35, 218, 1]),
        "i": None,
        "c": None,
        "m": None,
        "m8": None,
        "nets": [],
        "tsv": None,
        "r4": "empty",
        "r8": "(,)",
        "rn": None,
        "rts": None,
        "rtz": None,
        "rd": None,
        "ranges": None,
        "it_nn": 273600000000,  # -1 days +100:00:00
    }
    assert nulls == {**{name: None for name in first}, "it_nn": 0}
    schemas = field_schemas(records[0])
    assert schemas["it"] == Schema(SchemaType.INT64, optional=True, name="io.debezium.time.MicroDuration", version=1)
    assert schemas["it_nn"] == Schema(SchemaType.INT64, name="io.debezium.time.MicroDuration", version=1)
    assert schemas["csh"] == Schema(
        SchemaType.BYTES,
        optional=True,
        name="org.apache.kafka.connect.data.Decimal",
        version=1,
        parameters=(("scale", "2"),),
    )
    assert (schemas["bol"].type, schemas["bv1"].type) == (SchemaType.BOOLEAN, SchemaType.BOOLEAN)
    bit_lengths = {name: dict(schemas[name].parameters)["length"] for name in ("bs", "bs7", "bv2", "bvl", "bvu")}
    assert bit_lengths == {"bs": "2", "bs7": "7", "bv2": "24", "bvl": "64", "bvu": "2147483647"}
    assert {schemas[name].name for name in bit_lengths} == {"io.debezium.data.Bits"}
    for name in ("i", "c", "m", "m8", "r4", "r8", "rn", "rts", "rtz", "rd"):
        assert schemas[name] == Schema(SchemaType.STRING, optional=True), name
    assert schemas["nets"] == Schema.array(Schema(SchemaType.STRING, optional=True), optional=True)
    assert schemas["ranges"] == Schema.array(Schema(SchemaType.STRING, optional=True), optional=True)
    assert schemas["tsv"] == Schema(SchemaType.STRING, optional=True, name="io.debezium.data.Tsvector", version=1)


def test_geometric_types_as_debeziums_point_geometry_circle_and_line_structs(db: CdcDatabase) -> None:
    """AbstractRecordsProducerTest.schemaAndValuesForGeomTypes (a point is Point.createValue(1, 1): x, y and
    its WKB) and PostgresValueConverter's box, lseg, path, polygon (Geometry v2 with the type in
    `extensions`), circle and line; box[] (whose elements PostgreSQL separates with ';')."""
    db.execute("""CREATE TABLE shapes (id int PRIMARY KEY, p point, b box, s lseg, open_path path,
        closed_path path, poly polygon, c circle, l line, boxes box[], p_nn point NOT NULL)""")
    rows = [
        """'(1,1)', '(0,0),(1,1)', '[(1,2),(3,4)]', '[(0,0),(0,1),(0,2)]', '((0,0),(0,1))',
        '((0,0),(0,1),(1,0))', '<(1,2),3>', '{1,2,3}', ARRAY['(1,1),(0,0)'::box, '(2,2),(1,1)'], '(-1.5,2.25)'""",
        "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, '(0,0)'",
    ]
    records = snapshot_and_stream(db, "shapes", rows)
    shapes, nulls = values(records, 2)
    point_wkb = bytes.fromhex("0101000000")  # little-endian, type 1 (Point)
    polygon_wkb = bytes.fromhex("010300000001000000")  # type 3 (Polygon), one ring
    line_wkb = bytes.fromhex("0102000000")  # type 2 (LineString)
    unit_box = polygon_wkb + bytes.fromhex("05000000") + doubles(1, 1, 1, 0, 0, 0, 0, 1, 1, 1)
    assert shapes == {
        "p": {"x": 1.0, "y": 1.0, "wkb": point_wkb + doubles(1, 1), "srid": None},
        "b": {"wkb": unit_box, "srid": None, "extensions": {"type": "box"}},
        "s": {
            "wkb": line_wkb + bytes.fromhex("02000000") + doubles(1, 2, 3, 4),
            "srid": None,
            "extensions": {"type": "lseg"},
        },
        "open_path": {
            "wkb": line_wkb + bytes.fromhex("03000000") + doubles(0, 0, 0, 1, 0, 2),
            "srid": None,
            "extensions": {"type": "path", "closed": "false"},
        },
        "closed_path": {
            "wkb": line_wkb + bytes.fromhex("02000000") + doubles(0, 0, 0, 1),
            "srid": None,
            "extensions": {"type": "path", "closed": "true"},
        },
        "poly": {  # the ring closed, as Debezium closes it
            "wkb": polygon_wkb + bytes.fromhex("04000000") + doubles(0, 0, 0, 1, 1, 0, 0, 0),
            "srid": None,
            "extensions": {"type": "polygon"},
        },
        "c": {"center": {"x": 1.0, "y": 2.0, "wkb": point_wkb + doubles(1, 2), "srid": None}, "radius": 3.0},
        "l": {"a": 1.0, "b": 2.0, "c": 3.0},
        "boxes": [
            {"wkb": unit_box, "srid": None, "extensions": {"type": "box"}},
            {
                "wkb": polygon_wkb + bytes.fromhex("05000000") + doubles(2, 2, 2, 1, 1, 1, 1, 2, 2, 2),
                "srid": None,
                "extensions": {"type": "box"},
            },
        ],
        "p_nn": {"x": -1.5, "y": 2.25, "wkb": point_wkb + doubles(-1.5, 2.25), "srid": None},
    }
    assert nulls == {
        **{name: None for name in shapes},
        "p_nn": {"x": 0.0, "y": 0.0, "wkb": point_wkb + doubles(0, 0), "srid": None},
    }
    schemas = field_schemas(records[0])
    assert (schemas["p"].name, schemas["p"].version, [f.name for f in schemas["p"].fields]) == (
        "io.debezium.data.geometry.Point",
        1,
        ["x", "y", "wkb", "srid"],
    )
    assert not schemas["p_nn"].optional and schemas["p"].optional
    for name in ("b", "s", "open_path", "closed_path", "poly"):
        assert (schemas[name].name, schemas[name].version) == ("io.debezium.data.geometry.Geometry", 2), name
    assert [f.name for f in schemas["b"].fields] == ["wkb", "srid", "extensions"]
    assert schemas["c"].name == "io.debezium.data.geometry.Circle"
    assert [f.name for f in schemas["c"].fields] == ["center", "radius"]
    assert schemas["l"].name == "io.debezium.data.geometry.Line"
    assert schemas["boxes"].type is SchemaType.ARRAY
    assert schemas["boxes"].value_schema is not None
    assert schemas["boxes"].value_schema.name == "io.debezium.data.geometry.Geometry"


def test_extension_domain_and_enum_types_as_debezium_writes_them(db: CdcDatabase) -> None:
    """hstore (schemaAndValueFieldForJsonEncodedHStoreType...: the JSON text in Java HashMap order), ltree
    (schemasAndValuesForCustomTypes), citext and isbn; domains as their base types with the domain's
    modifiers (RecordsStreamProducerIT.shouldStreamValuesForDomainTypeOfDomainType: numeric(8,2) through a
    domain of a domain), a domain of interval, and an enum and its array."""
    db.execute(
        "CREATE DOMAIN numeric82 AS numeric(8,2)",
        "CREATE DOMAIN numericex AS numeric82",
        "CREATE DOMAIN varbit3 AS varbit(3)",
        "CREATE DOMAIN span AS interval",
        "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
        """CREATE TABLE extras (id int PRIMARY KEY, hs hstore, hsarr hstore[], lt ltree, lt_array ltree[],
        ct citext, cts citext[], i isbn, n numericex, v varbit3, sp span, mood mood, moods mood[])""",
    )
    rows = [
        """'"key1" => "val1","key2" => "val2","key3" => "val3"',
        ARRAY['"key4" => "val4","key5" => NULL'::hstore, '"key6" => "val6"'],
        'Top.Collections.Pictures.Astronomy.Galaxies', '{"Ship.Frigate","Ship.Destroyer"}', 'Hello World',
        '{"four","five","six"}', '978-0-393-04002-9', 123.45, B'101', '1 day 02:00:00', 'happy', '{sad,ok}'""",
        """'"key_#1" => "val 1","key 2" =>" ##123 78", "q\\"uote" => "back\\\\slash"', '{}', NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL""",
    ]
    records = snapshot_and_stream(db, "extras", rows)
    first, second = values(records, 2)
    assert first == {
        "hs": '{"key1":"val1","key2":"val2","key3":"val3"}',
        "hsarr": ['{"key5":null,"key4":"val4"}', '{"key6":"val6"}'],
        "lt": "Top.Collections.Pictures.Astronomy.Galaxies",
        "lt_array": ["Ship.Frigate", "Ship.Destroyer"],
        "ct": "Hello World",
        "cts": ["four", "five", "six"],
        "i": "0-393-04002-X",
        "n": (12345).to_bytes(2, "big"),
        "v": bytes([5]),
        "sp": 93600000000,
        "mood": "happy",
        "moods": ["sad", "ok"],
    }
    assert second["hs"] == '{"key_#1":"val 1","key 2":" ##123 78","q\\"uote":"back\\\\slash"}'
    assert second["hsarr"] == [] and {v for k, v in second.items() if k not in ("hs", "hsarr")} == {None}
    schemas = field_schemas(records[0])
    assert schemas["hs"] == Schema(SchemaType.STRING, optional=True, name="io.debezium.data.Json", version=1)
    assert schemas["hsarr"] == Schema.array(schemas["hs"], optional=True)
    assert schemas["lt"] == Schema(SchemaType.STRING, optional=True, name="io.debezium.data.Ltree", version=1)
    assert schemas["lt_array"] == Schema.array(schemas["lt"], optional=True)
    assert schemas["ct"] == schemas["i"] == Schema(SchemaType.STRING, optional=True)
    assert schemas["n"].name == "org.apache.kafka.connect.data.Decimal"
    assert dict(schemas["n"].parameters) == {"scale": "2", "connect.decimal.precision": "8"}
    assert dict(schemas["v"].parameters) == {"length": "3"}
    assert schemas["sp"].name == "io.debezium.time.MicroDuration"
    assert dict(schemas["mood"].parameters) == {"allowed": "sad,ok,happy"}


def test_interval_string_hstore_map_and_money_by_decimal_mode_and_fraction_digits(db: CdcDatabase) -> None:
    """interval.handling.mode=string (schemaAndValuesForIntervalAsString: 'P1Y2M3DT4H5M6.78S'),
    hstore.handling.mode=map (schemaAndValueFieldForMapEncodedHStoreType...), money as double and string,
    and money.fraction.digits."""
    db.execute("CREATE TABLE modes (id int PRIMARY KEY, it interval, hs hstore, csh money)")
    rows = [
        """'1 year 2 months 3 days 4 hours 5 minutes 6.78 seconds', '"key1" => "val1","key2" => NULL',
        '-$1,234.56'""",
        "'-00:00:00.000001', '', '$0.00'",
    ]
    db.execute(*(f"INSERT INTO modes VALUES ({n}, {row})" for n, row in enumerate(rows, start=1)))
    settings: list[tuple[dict[str, str], list[tuple[Any, Any, Any]]]] = [
        (
            {"interval.handling.mode": "string", "hstore.handling.mode": "map", "decimal.handling.mode": "string"},
            [("P1Y2M3DT4H5M6.78S", {"key1": "val1", "key2": None}, "-1234.56"), ("P0Y0M0DT0H0M-0.000001S", {}, "0.00")],
        ),
        (
            {"decimal.handling.mode": "double"},
            [(37091106780000, '{"key1":"val1","key2":null}', -1234.56), (-1, "{}", 0.0)],
        ),
        (
            {"money.fraction.digits": "1"},
            [
                (37091106780000, '{"key1":"val1","key2":null}', (-12346).to_bytes(2, "big", signed=True)),
                (-1, "{}", b"\x00"),
            ],
        ),
    ]
    for number, (overrides, expected) in enumerate(settings):
        with harness(db, **{"slot.name": f"{db.slot}_{number}", **overrides}) as h:
            got = poll_records(h, 2)
        assert [(r.value["after"]["it"], r.value["after"]["hs"], r.value["after"]["csh"]) for r in got] == expected
        schemas = field_schemas(got[0])
        if number == 0:
            assert schemas["it"] == Schema(
                SchemaType.STRING, optional=True, name="io.debezium.time.Interval", version=1
            )
            assert schemas["hs"] == Schema.map(
                Schema(SchemaType.STRING), Schema(SchemaType.STRING, optional=True), optional=True
            )
            assert schemas["csh"] == Schema(SchemaType.STRING, optional=True)
        if number == 2:
            assert dict(schemas["csh"].parameters) == {"scale": "1"}


def test_not_null_fallbacks_and_the_toasted_hstore_placeholder_are_debeziums(db: CdcDatabase) -> None:
    """A delete's old row holds the key only: the NOT NULL columns of the new types get Debezium's fallback
    values (PostgresValueConverter: a zero interval, money 0 at the scale, a unit square box, the y = 0
    line...); an update leaving an out-of-line hstore unchanged carries {placeholder: placeholder}."""
    db.execute("""CREATE TABLE strict (id int PRIMARY KEY, it interval NOT NULL, csh money NOT NULL,
        b box NOT NULL, l line NOT NULL, hs hstore NOT NULL, n int)""")
    db.execute("ALTER TABLE strict ALTER COLUMN hs SET STORAGE EXTERNAL")
    big = "(SELECT hstore(array_agg('k' || i), array_agg(md5(i::text))) FROM generate_series(1, 300) i)"
    db.execute(f"INSERT INTO strict VALUES (1, '1 day', '$5', '(1,1),(0,0)', '{{1,2,3}}', {big}, 0)")
    with harness(db, **{"snapshot.mode": "no_data", "interval.handling.mode": "string"}) as h:
        poll_records(h, 0)
        db.execute("UPDATE strict SET n = 1", "DELETE FROM strict")
        update, delete = poll_records(h, 2)
    placeholder = "__debezium_unavailable_value"
    assert update.value["after"]["hs"] == f'{{"{placeholder}":"{placeholder}"}}'
    assert delete.value["before"] == {
        "id": 1,
        "it": "P0Y0M0DT0H0M0S",
        "csh": b"\x00",
        "b": {
            "wkb": bytes.fromhex("01030000000100000005000000") + doubles(0, 0, 0, 1, 1, 1, 1, 0, 0, 0),
            "srid": None,
            "extensions": {"type": "box"},
        },
        "l": {"a": 0.0, "b": 1.0, "c": 0.0},
        "hs": "{}",
        "n": None,
    }


def test_validation_refuses_each_captured_column_no_mapping_fits_naming_table_column_and_type(
    db: CdcDatabase,
) -> None:
    """Debezium has no schema for interval[], money[], point[], arrays of domains or multiranges (PostGIS is
    not installed here): validation names every such captured column, on column.exclude.list; columns and
    tables left out are not named, and leaving them all out validates."""
    db.execute(
        "CREATE DOMAIN cents AS int",
        """CREATE TABLE odd (id int PRIMARY KEY, spans interval[], cash money[], points point[], c cents[],
        mr int4multirange, fine interval)""",
        "CREATE TABLE other (id int PRIMARY KEY, spans interval[])",
    )
    connector = PostgresCdcConnector()
    result = connector.validate(db.props(**{"table.exclude.list": "public.other"}))
    errors = [e for value in result.values() for e in value.errors]
    [message] = result["column.exclude.list"].errors
    assert errors == [message]
    assert (
        "cannot map the type of 5 captured column(s): public.odd.spans (interval[]), public.odd.cash (money[]), "
        in message
    )
    assert "public.odd.points (point[]), public.odd.c (cents[]), public.odd.mr (int4multirange)" in message
    assert "other" not in message and "fine" not in message
    left_out = r"public\.odd\.(spans|cash|points|c|mr)"
    result = connector.validate(db.props(**{"table.exclude.list": "public.other", "column.exclude.list": left_out}))
    assert [e for value in result.values() for e in value.errors] == []
