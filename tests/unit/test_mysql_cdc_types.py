"""MySQL / MariaDB column types as Debezium's MySQL connector maps them in its default modes (its
documentation's "Data type mappings"), and the values it writes."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest

from connectworker.api.schema import SchemaType
from connectworker.connectors.mysql_cdc.types import MySqlTypeOptions, UnsupportedTypeError, column_type, require_type

DEFAULTS = MySqlTypeOptions(time_precision="adaptive_time_microseconds")


def _mapped(text: str, value: object, options: MySqlTypeOptions = DEFAULTS) -> tuple[object, object, object]:
    found = column_type(text, options)
    assert found is not None, text
    return found.schema.type, found.schema.name, found.parse(value)


@pytest.mark.parametrize(
    ("text", "value", "expected"),
    [
        ("tinyint(1)", 1, (SchemaType.INT16, None, 1)),
        ("tinyint(3) unsigned", -1, (SchemaType.INT16, None, 255)),
        ("smallint(5) unsigned", -1, (SchemaType.INT32, None, 65535)),
        ("mediumint(8)", -5, (SchemaType.INT32, None, -5)),
        ("int(10) unsigned", -1, (SchemaType.INT64, None, 4294967295)),
        ("int(11)", -7, (SchemaType.INT32, None, -7)),
        ("bigint(20)", 1 << 40, (SchemaType.INT64, None, 1 << 40)),
        ("bigint(20) unsigned", 18446744073709551615, (SchemaType.INT64, None, -1)),  # long mode wraps
        ("float", 1.5, (SchemaType.FLOAT32, None, 1.5)),
        ("double", 2.25, (SchemaType.FLOAT64, None, 2.25)),
        (
            "decimal(10,2)",
            Decimal("-12.34"),
            (SchemaType.BYTES, "org.apache.kafka.connect.data.Decimal", b"\xfb\x2e"),
        ),  # -1234, two's complement
        ("varchar(20)", "héllo", (SchemaType.STRING, None, "héllo")),
        ("blob", b"\xff\x00", (SchemaType.BYTES, None, b"\xff\x00")),
        ("json", '{"a": 1}', (SchemaType.STRING, "io.debezium.data.Json", '{"a": 1}')),
        ("date", date(2018, 6, 20), (SchemaType.INT32, "io.debezium.time.Date", 17702)),
        ("time", timedelta(hours=-1, minutes=30), (SchemaType.INT64, "io.debezium.time.MicroTime", -1_800_000_000)),
        (
            "datetime(3)",
            datetime(2018, 6, 20, 13, 37, 3, 123000),
            (SchemaType.INT64, "io.debezium.time.Timestamp", 1529501823123),
        ),
        (
            "datetime(6)",
            datetime(2018, 6, 20, 13, 37, 3, 123456),
            (SchemaType.INT64, "io.debezium.time.MicroTimestamp", 1529501823123456),
        ),
        (
            "timestamp",
            datetime(2018, 6, 20, 13, 37, 3),
            (SchemaType.STRING, "io.debezium.time.ZonedTimestamp", "2018-06-20T13:37:03Z"),
        ),
        (
            "timestamp(3)",
            datetime(2018, 6, 20, 13, 37, 3, 120000),
            (SchemaType.STRING, "io.debezium.time.ZonedTimestamp", "2018-06-20T13:37:03.120Z"),
        ),
        ("year(4)", 2024, (SchemaType.INT32, "io.debezium.time.Year", 2024)),
        ("enum('a','b''c')", "b'c", (SchemaType.STRING, "io.debezium.data.Enum", "b'c")),
        ("set('x','y')", {"y", "x"}, (SchemaType.STRING, "io.debezium.data.EnumSet", "x,y")),
        ("bit(1)", b"\x01", (SchemaType.BOOLEAN, None, True)),
        ("bit(12)", b"\x0a\x03", (SchemaType.BYTES, "io.debezium.data.Bits", b"\x03\x0a")),  # little-endian
    ],
)
def test_debezium_default_mapping(text: str, value: object, expected: tuple[object, object, object]) -> None:
    assert _mapped(text, value) == expected


def test_schema_parameters_as_debezium_writes_them() -> None:
    decimal = column_type("decimal(10,2)", DEFAULTS)
    enum = column_type("enum('a','b''c')", DEFAULTS)
    bits = column_type("bit(12)", DEFAULTS)
    whole = column_type("decimal(5)", DEFAULTS)
    assert whole is not None and dict(whole.schema.parameters)["scale"] == "0"
    assert decimal is not None and enum is not None and bits is not None
    assert dict(decimal.schema.parameters) == {"scale": "2", "connect.decimal.precision": "10"}
    assert dict(enum.schema.parameters) == {"allowed": "a,b'c"}
    assert dict(bits.schema.parameters) == {"length": "12"}


def test_modes_other_than_the_defaults() -> None:
    precise = MySqlTypeOptions(bigint_unsigned="precise")
    assert _mapped("bigint unsigned", -1, precise)[2] == (18446744073709551615).to_bytes(9, "big", signed=True)
    assert _mapped("decimal(5,1)", Decimal("2.5"), MySqlTypeOptions(decimal_handling="string"))[2] == "2.5"
    assert _mapped("decimal(5,1)", Decimal("2.5"), MySqlTypeOptions(decimal_handling="double"))[2] == 2.5
    assert _mapped("varbinary(4)", b"\x01\xff", MySqlTypeOptions(binary_handling="hex"))[2] == "01ff"
    assert _mapped("blob", b"\xfb\xff", MySqlTypeOptions(binary_handling="base64"))[2] == "+/8="


def test_spatial_types_are_refused_by_name() -> None:
    with pytest.raises(UnsupportedTypeError, match=r"'g' of table d\.t has the type point, a spatial type"):
        require_type("d.t", "g", "point", DEFAULTS)
