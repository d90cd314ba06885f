"""From MySQL / MariaDB column types (information_schema's `COLUMN_TYPE`, e.g. ``int(10) unsigned``,
``decimal(10,2)``, ``enum('a','b')``) to Connect schemas, and from the Python values PyMySQL and the binlog
reader give to Debezium's values, in Debezium's default modes for its MySQL connector:

- integers by width and sign (TINYINT(1) is INT16, as Debezium reads it from SHOW CREATE TABLE; INT UNSIGNED
  is INT64; BIGINT UNSIGNED is INT64 under `bigint.unsigned.handling.mode=long`, a Decimal under `precise`);
- DECIMAL as Connect's `Decimal` (schema parameters `scale` and `connect.decimal.precision`, shared with
  the PostgreSQL connector), or double / string under `decimal.handling.mode`;
- DATE as `io.debezium.time.Date`, TIME as `MicroTime` (`time.precision.mode=adaptive_time_microseconds`,
  MySQL's default), DATETIME as `Timestamp` (precision 0-3) or `MicroTimestamp` (4-6), TIMESTAMP as a UTC
  `ZonedTimestamp` string, YEAR as `io.debezium.time.Year`; `connect` mode gives Connect's logical types;
- JSON as `io.debezium.data.Json`, ENUM as `io.debezium.data.Enum` and SET as `io.debezium.data.EnumSet`
  (both with the `allowed` parameter), BIT(1) as BOOLEAN and BIT(n) as `io.debezium.data.Bits` (bytes,
  little-endian, parameter `length`);
- spatial types are refused by name (Debezium writes its `Geometry` struct; this connector does not).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from connectworker.api.schema import Schema, SchemaType
from connectworker.converters.logical import DATE, TIME, TIMESTAMP

from ..debezium import decimals
from ..debezium.column_types import ColumnType, TypeOptions, UnsupportedTypeError, binary_conversion

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_DAY = date(1970, 1, 1).toordinal()
_TYPE = re.compile(r"(?P<name>[a-z]+)(?:\((?P<args>.*)\))?(?P<rest>.*)", re.DOTALL)
SPATIAL = frozenset(
    {
        "geometry",
        "point",
        "linestring",
        "polygon",
        "multipoint",
        "multilinestring",
        "multipolygon",
        "geometrycollection",
    }
)


@dataclass(frozen=True)
class MySqlTypeOptions(TypeOptions):
    bigint_unsigned: str = "long"  # long | precise


def _micros(delta: timedelta) -> int:
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def epoch_micros(moment: datetime) -> int:
    """A DATETIME (read as UTC, as Debezium reads it) or a TIMESTAMP as microseconds since the epoch."""
    return _micros((moment if moment.tzinfo else moment.replace(tzinfo=UTC)) - _EPOCH)


def days(value: date) -> int:
    return value.toordinal() - _EPOCH_DAY


def micro_time(value: timedelta | time) -> int:
    """A TIME (PyMySQL gives a timedelta: MySQL's TIME spans -838:59:59 to 838:59:59) as microseconds."""
    if isinstance(value, time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1_000_000 + value.microsecond
    return _micros(value)


def zoned_timestamp(width: int) -> Callable[[datetime], str]:
    """A TIMESTAMP (UTC: the snapshot's session runs in UTC, the binlog carries UTC) as Debezium's
    `ZonedTimestamp`: ISO-8601 with `Z`, the fraction as the column's precision writes it."""

    def parse(value: datetime) -> str:
        moment = value.astimezone(UTC) if value.tzinfo else value
        text = moment.strftime("%Y-%m-%dT%H:%M:%S")
        if width > 0:
            text += "." + f"{moment.microsecond:06d}"[:width]
        return text + "Z"

    return parse


def _text(value: str | bytes) -> str:
    return value if isinstance(value, str) else value.decode("utf-8")


def _bytes(value: str | bytes) -> bytes:
    return value if isinstance(value, bytes) else value.encode("utf-8", "surrogateescape")


def _binary(mode: str) -> tuple[SchemaType, Callable[[Any], Any]]:
    return binary_conversion(mode, _bytes)


def labels(args: str) -> tuple[str, ...]:
    """The labels of `enum('a','b')` / `set('x','y')` (quotes doubled inside a label)."""
    return tuple(label.replace("''", "'") for label in re.findall(r"'((?:[^']|'')*)'", args))


def _decimal(precision: int, scale: int, options: TypeOptions) -> ColumnType:
    if options.decimal_handling == "double":
        return ColumnType(Schema(SchemaType.FLOAT64), float)
    if options.decimal_handling == "string":
        return ColumnType(Schema(SchemaType.STRING), lambda value: f"{Decimal(value):f}")

    def parse(value: Any) -> bytes:
        number = Decimal(value).scaleb(scale).to_integral_value()
        return decimals.unscaled_bytes(int(number))

    return ColumnType(decimals.decimal_schema(scale, precision), parse)


def _integer(name: str, unsigned: bool, options: MySqlTypeOptions) -> ColumnType | None:
    widths = {"tinyint": (8, SchemaType.INT16), "smallint": (16, SchemaType.INT16), "mediumint": (24, SchemaType.INT32)}
    widths |= {"int": (32, SchemaType.INT32), "integer": (32, SchemaType.INT32), "bigint": (64, SchemaType.INT64)}
    if name not in widths:
        return None
    bits, kind = widths[name]
    if unsigned:
        kind = {8: SchemaType.INT16, 16: SchemaType.INT32, 24: SchemaType.INT32, 32: SchemaType.INT64}.get(bits, kind)
        wrap = 1 << bits  # the binlog carries unsigned values in their signed form (no unsigned flag without metadata)

        def unsign(value: int) -> int:
            return value + wrap if value < 0 else value

        if bits == 64 and options.bigint_unsigned == "precise":
            return ColumnType(decimals.decimal_schema(0, 20), lambda value: decimals.unscaled_bytes(unsign(value)))
        if bits == 64:  # Debezium's `long` mode: values above 2^63 - 1 wrap, as Java's long does
            return ColumnType(Schema(kind), lambda value: value - wrap if value >= 1 << 63 else value)
        return ColumnType(Schema(kind), unsign)
    return ColumnType(Schema(kind), int)


def _temporal(name: str, width: int, mode: str) -> ColumnType | None:
    if name == "date":
        if mode == "connect":
            return ColumnType(Schema(SchemaType.INT32, name=DATE), lambda value: value)
        return ColumnType(Schema(SchemaType.INT32, name="io.debezium.time.Date"), days)
    if name == "time":
        if mode == "connect":
            return ColumnType(Schema(SchemaType.INT32, name=TIME), lambda value: (datetime.min + value).time())
        return ColumnType(Schema(SchemaType.INT64, name="io.debezium.time.MicroTime"), micro_time)
    if name == "datetime":
        if mode == "connect":
            return ColumnType(Schema(SchemaType.INT64, name=TIMESTAMP), lambda value: value.replace(tzinfo=UTC))
        if width <= 3:
            return ColumnType(
                Schema(SchemaType.INT64, name="io.debezium.time.Timestamp"), lambda value: epoch_micros(value) // 1000
            )
        return ColumnType(Schema(SchemaType.INT64, name="io.debezium.time.MicroTimestamp"), epoch_micros)
    if name == "timestamp":
        return ColumnType(Schema(SchemaType.STRING, name="io.debezium.time.ZonedTimestamp"), zoned_timestamp(width))
    if name == "year":
        return ColumnType(Schema(SchemaType.INT32, name="io.debezium.time.Year"), int)
    return None


def _bits(length: int) -> ColumnType:
    if length == 1:
        return ColumnType(Schema(SchemaType.BOOLEAN), lambda value: bool(_bit_number(value)))
    size = (length + 7) // 8

    def parse(value: Any) -> bytes:
        return _bit_number(value).to_bytes(size, "little")

    schema = Schema(SchemaType.BYTES, name="io.debezium.data.Bits", version=1, parameters=(("length", str(length)),))
    return ColumnType(schema, parse)


def _bit_number(value: Any) -> int:
    return int.from_bytes(value, "big") if isinstance(value, bytes) else int(value)


def _set(value: Any) -> str:
    if isinstance(value, set | frozenset):
        return ",".join(sorted(value))
    return _text(value)


def column_type(column_type_text: str, options: MySqlTypeOptions) -> ColumnType | None:
    """The Connect type of a column whose information_schema `COLUMN_TYPE` is `column_type_text`; None when
    there is no mapping."""
    match = _TYPE.fullmatch(column_type_text.strip().lower())
    if match is None:
        return None
    name, args, rest = match["name"], match["args"] or "", match["rest"]
    numbers = [int(n) for n in re.findall(r"\d+", args)] if name not in ("enum", "set") else []
    integer = _integer(name, "unsigned" in rest, options)
    if integer is not None:
        return integer
    if name in ("decimal", "numeric", "dec", "fixed"):
        precision, scale = (numbers[0] if numbers else 10), (numbers[1] if len(numbers) > 1 else 0)
        return _decimal(precision, scale, options)
    if name == "float":
        return ColumnType(Schema(SchemaType.FLOAT32), float)
    if name in ("double", "real"):
        return ColumnType(Schema(SchemaType.FLOAT64), float)
    if name in ("char", "varchar", "tinytext", "text", "mediumtext", "longtext"):
        return ColumnType(Schema(SchemaType.STRING), _text)
    if name in ("binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob"):
        kind, parse = _binary(options.binary_handling)
        return ColumnType(Schema(kind), parse)
    if name == "json":
        return ColumnType(Schema(SchemaType.STRING, name="io.debezium.data.Json"), _text)
    if name in ("enum", "set"):
        schema_name = "io.debezium.data.Enum" if name == "enum" else "io.debezium.data.EnumSet"
        allowed = (("allowed", ",".join(labels(args))),)
        return ColumnType(
            Schema(SchemaType.STRING, name=schema_name, version=1, parameters=allowed),
            _text if name == "enum" else _set,
        )
    if name == "bit":
        return _bits(numbers[0] if numbers else 1)
    if name == "bool" or name == "boolean":
        return ColumnType(Schema(SchemaType.BOOLEAN), bool)
    return _temporal(name, numbers[0] if numbers else 0, options.time_precision)


def require_type(table: str, column: str, column_type_text: str, options: MySqlTypeOptions) -> ColumnType:
    found = column_type(column_type_text, options)
    if found is None:
        spatial = column_type_text.split("(")[0].strip().lower() in SPATIAL
        why = (
            "a spatial type (Debezium writes its io.debezium.data.geometry.Geometry struct, which this connector "
            "does not)"
            if spatial
            else "a type the MySQL CDC connector cannot map to a Connect schema"
        )
        raise UnsupportedTypeError(
            f"Column {column!r} of table {table} has the type {column_type_text}, {why}. Leave the column out "
            "(column.exclude.list) or the table (table.exclude.list)."
        )
    return found
