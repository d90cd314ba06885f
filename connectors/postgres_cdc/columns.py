"""From PostgreSQL column types to Connect schemas, and from a value's text form to its Connect value.

Both the snapshot and the stream read values in their text form (the type's output function, with the
session settings `replication.SESSION_OPTIONS` fixes: ISO dates, UTC, hex bytea), so one parser per type
serves both. The schemas are Debezium's for its default settings (see docs/cdc.md for the differences):
temporal types as `io.debezium.time.*` integers (`time.precision.mode=adaptive`) or Connect's logical
types (`connect`), `timestamptz` as an ISO-8601 `ZonedTimestamp` string, uuid and json as named strings.
"""

from __future__ import annotations

import base64
import hashlib
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time
from typing import Any

from connectworker.api.schema import Schema, SchemaType
from connectworker.converters.logical import DATE, TIME, TIMESTAMP

from ..debezium import decimals
from ..debezium.column_types import ColumnType, TypeOptions, UnsupportedTypeError
from .temporal import days, epoch_micros, micros_of_day, zoned_time, zoned_timestamp

Parse = Callable[[str], Any]

# Type OIDs of pg_catalog's built-in types (fixed across PostgreSQL versions).
BOOL, BYTEA, CHAR, NAME, INT8, INT2, INT4, TEXT, OID = 16, 17, 18, 19, 20, 21, 23, 25, 26
JSON, XML, FLOAT4, FLOAT8, BPCHAR, VARCHAR, DATE_OID, TIME_OID = 114, 142, 700, 701, 1042, 1043, 1082, 1083
TIMESTAMP_OID, TIMESTAMPTZ, TIMETZ, NUMERIC, UUID, JSONB = 1114, 1184, 1266, 1700, 2950, 3802
# array type OID -> element type OID
ARRAYS = {
    1000: BOOL,
    1005: INT2,
    1007: INT4,
    1016: INT8,
    1009: TEXT,
    1015: VARCHAR,
    1014: BPCHAR,
    1021: FLOAT4,
    1022: FLOAT8,
    1231: NUMERIC,
    2951: UUID,
    1182: DATE_OID,
    1001: BYTEA,
    199: JSON,
    3807: JSONB,
    1115: TIMESTAMP_OID,
    1185: TIMESTAMPTZ,
    1183: TIME_OID,
    1270: TIMETZ,
}


@dataclass(frozen=True)
class EnumTypes:
    """The database's enum types: each one's labels in their declared order, and its array type."""

    labels: Mapping[int, tuple[str, ...]] = field(default_factory=dict)  # by enum type oid
    arrays: Mapping[int, int] = field(default_factory=dict)  # array type oid -> enum type oid


def _unavailable(oid: int, schema: Schema, placeholder: bytes) -> Any:
    """Debezium's stand-in for a value PostgreSQL left out of an update because it is TOASTed and did not
    change (`UnchangedToastedPlaceholder`): the placeholder as text, as bytes, or, for arrays of text,
    bytea, integers and dates, a list made of it (integers: its bytes, signed, as Java's). Other types
    have none (Debezium writes null there)."""
    text = placeholder.decode(errors="replace")
    element = ARRAYS.get(oid)
    if element is None:
        if schema.type is SchemaType.STRING:
            return text
        return placeholder if oid == BYTEA and schema.type is SchemaType.BYTES else None  # not a Decimal's bytes
    element_type = schema.value_schema.type if schema.value_schema is not None else None
    if element in (TEXT, VARCHAR, BPCHAR, JSON, JSONB):
        return [text]
    if element == BYTEA:
        return [placeholder if element_type is SchemaType.BYTES else text]
    if element in (INT4, INT8, DATE_OID) and element_type in (SchemaType.INT32, SchemaType.INT64):
        return [byte - 256 if byte > 127 else byte for byte in placeholder]
    if element == UUID:
        return [str(uuid.UUID(bytes=hashlib.md5(placeholder).digest(), version=3))]
    return None


def _bool(text: str) -> bool:
    return text == "t"


def _bytea(text: str) -> bytes:
    if text.startswith("\\x"):
        return bytes.fromhex(text[2:])
    raise ValueError("bytea not in hex form (bytea_output=hex)")


def _binary(mode: str) -> tuple[SchemaType, Parse]:
    if mode == "bytes":
        return SchemaType.BYTES, _bytea
    if mode == "hex":
        return SchemaType.STRING, lambda text: _bytea(text).hex()
    if mode == "base64-url-safe":
        return SchemaType.STRING, lambda text: base64.urlsafe_b64encode(_bytea(text)).decode()
    return SchemaType.STRING, lambda text: base64.b64encode(_bytea(text)).decode()


def _precision(modifier: int, default: int = 6) -> int:
    return default if modifier < 0 else modifier


def _temporal(oid: int, modifier: int, mode: str) -> ColumnType:
    if mode == "connect":
        if oid == DATE_OID:
            return ColumnType(Schema(SchemaType.INT32, name=DATE), date.fromisoformat)
        if oid == TIME_OID:
            return ColumnType(Schema(SchemaType.INT32, name=TIME), time.fromisoformat)
        return ColumnType(
            Schema(SchemaType.INT64, name=TIMESTAMP), lambda text: datetime.fromisoformat(text).replace(tzinfo=UTC)
        )
    if oid == DATE_OID:
        return ColumnType(Schema(SchemaType.INT32, name="io.debezium.time.Date"), days)
    if oid == TIME_OID:
        if mode == "adaptive" and _precision(modifier) <= 3:
            return ColumnType(
                Schema(SchemaType.INT32, name="io.debezium.time.Time"), lambda text: micros_of_day(text) // 1000
            )
        return ColumnType(Schema(SchemaType.INT64, name="io.debezium.time.MicroTime"), micros_of_day)
    if _precision(modifier) <= 3:
        return ColumnType(
            Schema(SchemaType.INT64, name="io.debezium.time.Timestamp"), lambda text: epoch_micros(text) // 1000
        )
    return ColumnType(Schema(SchemaType.INT64, name="io.debezium.time.MicroTimestamp"), epoch_micros)


def _scalar(oid: int, modifier: int, options: TypeOptions) -> ColumnType | None:
    if oid == BOOL:
        return ColumnType(Schema(SchemaType.BOOLEAN), _bool)
    if oid == INT2:
        return ColumnType(Schema(SchemaType.INT16), int)
    if oid in (INT4, OID):
        return ColumnType(Schema(SchemaType.INT32 if oid == INT4 else SchemaType.INT64), int)
    if oid == INT8:
        return ColumnType(Schema(SchemaType.INT64), int)
    if oid == FLOAT4:
        return ColumnType(Schema(SchemaType.FLOAT32), float)
    if oid == FLOAT8:
        return ColumnType(Schema(SchemaType.FLOAT64), float)
    if oid == NUMERIC:
        if options.decimal_handling == "double":
            return ColumnType(Schema(SchemaType.FLOAT64), float)
        if options.decimal_handling == "string":
            return ColumnType(Schema(SchemaType.STRING), decimals.string_mode)
        fixed = decimals.scale_and_precision(modifier)
        if fixed is None:
            return ColumnType(decimals.VARIABLE_SCALE_SCHEMA, decimals.variable_scale)
        return ColumnType(decimals.decimal_schema(*fixed), decimals.fixed_scale(fixed[0]))
    if oid in (TEXT, VARCHAR, BPCHAR, NAME, CHAR):
        return ColumnType(Schema(SchemaType.STRING), str)
    if oid == UUID:
        return ColumnType(Schema(SchemaType.STRING, name="io.debezium.data.Uuid"), str)
    if oid in (JSON, JSONB):
        return ColumnType(Schema(SchemaType.STRING, name="io.debezium.data.Json"), str)
    if oid == XML:
        return ColumnType(Schema(SchemaType.STRING, name="io.debezium.data.Xml"), str)
    if oid == BYTEA:
        kind, parse = _binary(options.binary_handling)
        return ColumnType(Schema(kind), parse)
    if oid in (DATE_OID, TIME_OID, TIMESTAMP_OID):
        return _temporal(oid, modifier, options.time_precision)
    if oid == TIMESTAMPTZ:
        width = _precision(modifier)
        return ColumnType(
            Schema(SchemaType.STRING, name="io.debezium.time.ZonedTimestamp"),
            lambda text: zoned_timestamp(text, width),
        )
    if oid == TIMETZ:
        return ColumnType(Schema(SchemaType.STRING, name="io.debezium.time.ZonedTime"), zoned_time)
    return None


def parse_array(text: str) -> list[str | None]:
    """The elements of a one-dimensional array's text form (`{1,NULL,"a b"}`), as text or None."""
    if not (text.startswith("{") and text.endswith("}")):
        raise ValueError(f"not an array literal: {text[:40]!r}")
    body, i = text[1:-1], 0
    items: list[str | None] = []
    if not body:
        return []
    while i <= len(body):
        if i < len(body) and body[i] == "{":
            raise ValueError("multi-dimensional arrays are not supported")
        if i < len(body) and body[i] == '"':
            i += 1
            chars = []
            while body[i] != '"':
                if body[i] == "\\":
                    i += 1
                chars.append(body[i])
                i += 1
            items.append("".join(chars))
            i += 2  # the closing quote and the comma
        else:
            end = body.find(",", i)
            end = len(body) if end < 0 else end
            raw = body[i:end]
            items.append(None if raw == "NULL" else raw)
            i = end + 1
    return items


def column_type(oid: int, modifier: int, options: TypeOptions, enums: EnumTypes | None = None) -> ColumnType | None:
    """The Connect type of a column of type `oid` (and typmod), or None when there is no mapping. `enums`:
    the database's enum types."""
    enums = enums or EnumTypes()
    if oid in enums.labels:
        return ColumnType(_enum_schema(enums.labels[oid]), str, options.unavailable.decode())
    if oid in enums.arrays:  # as Debezium: an array of (required) Enum strings
        return ColumnType(Schema.array(_enum_schema(enums.labels[enums.arrays[oid]])), parse_array)
    found: ColumnType | None
    if oid in ARRAYS:
        element = _scalar(ARRAYS[oid], modifier, options)
        if element is None:
            return None
        parse_element = element.parse

        def parse(text: str) -> list[Any]:
            return [None if item is None else parse_element(item) for item in parse_array(text)]

        found = ColumnType(Schema.array(element.schema.as_optional()), parse)
    else:
        found = _scalar(oid, modifier, options)
    if found is None:
        return None
    return replace(found, unavailable=_unavailable(oid, found.schema, options.unavailable))


def _enum_schema(labels: tuple[str, ...]) -> Schema:
    allowed = (("allowed", ",".join(labels)),)
    return Schema(SchemaType.STRING, name="io.debezium.data.Enum", version=1, parameters=allowed)


def require_type(
    table: str,
    column: str,
    oid: int,
    modifier: int,
    type_name: str,
    options: TypeOptions,
    enums: EnumTypes | None = None,
) -> ColumnType:
    found = column_type(oid, modifier, options, enums)
    if found is None:
        raise UnsupportedTypeError(
            f"Column {column!r} of table {table} has the type {type_name} (oid {oid}) that the PostgreSQL CDC "
            f"connector cannot map to a Connect schema. Leave the column out (column.exclude.list) or the table "
            f"(table.exclude.list), or change the column's type."
        )
    return found
