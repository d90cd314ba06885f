"""From PostgreSQL column types to Connect schemas, and from a value's text form to its Connect value.

Both the snapshot and the stream read values in their text form (the type's output function, with the
session settings `database.SESSION_OPTIONS` fixes: ISO dates, UTC, hex bytea, postgres-style intervals,
C-locale money), so one parser per type serves both. The schemas are Debezium's (see docs/cdc.md for the
differences): temporal types as `io.debezium.time.*` integers (`time.precision.mode=adaptive`) or
Connect's logical types (`connect`), `timestamptz` as an ISO-8601 `ZonedTimestamp` string, uuid and json as
named strings, `interval`, `money`, `hstore`, bits and the geometric types as their modules say; network
addresses, ranges and `citext` as plain strings. A domain is mapped as its base type, an enum by its labels
(`catalog_types.py`). A type Debezium leaves without a schema (`interval[]`, `money[]`, `point[]`, arrays of
domains, PostGIS...) has no mapping here either: the connector refuses a column of it at validation.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time
from typing import Any

from connectworker.api.schema import Schema, SchemaType
from connectworker.converters.logical import DATE, TIME, TIMESTAMP

from ..debezium import decimals
from ..debezium.column_types import ColumnType, TypeOptions, UnsupportedTypeError, binary_conversion
from . import bits, geometric, hstore, interval, money
from .catalog_types import CatalogTypes
from .temporal import days, epoch_micros, micros_of_day, zoned_time, zoned_timestamp

Parse = Callable[[str], Any]

# Type OIDs of pg_catalog's built-in types (fixed across PostgreSQL versions).
BOOL, BYTEA, CHAR, NAME, INT8, INT2, INT4, TEXT, OID = 16, 17, 18, 19, 20, 21, 23, 25, 26
JSON, XML, FLOAT4, FLOAT8, BPCHAR, VARCHAR, DATE_OID, TIME_OID = 114, 142, 700, 701, 1042, 1043, 1082, 1083
TIMESTAMP_OID, TIMESTAMPTZ, TIMETZ, NUMERIC, UUID, JSONB = 1114, 1184, 1266, 1700, 2950, 3802
INTERVAL, MONEY, BIT, VARBIT, TSVECTOR = 1186, 790, 1560, 1562, 3614
INET, CIDR, MACADDR, MACADDR8 = 869, 650, 829, 774
RANGES = {3904: "int4range", 3926: "int8range", 3906: "numrange", 3908: "tsrange", 3910: "tstzrange", 3912: "daterange"}
GEOMETRIC = {600: "point", 601: "lseg", 602: "path", 603: "box", 604: "polygon", 628: "line", 718: "circle"}
PLAIN_STRINGS = frozenset({INET, CIDR, MACADDR, MACADDR8, *RANGES})  # string, as PostgreSQL prints them
TSVECTOR_SCHEMA = Schema(SchemaType.STRING, name="io.debezium.data.Tsvector", version=1)
LTREE_SCHEMA = Schema(SchemaType.STRING, name="io.debezium.data.Ltree", version=1)
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
    1028: OID,
    1002: CHAR,
    1041: INET,
    651: CIDR,
    1040: MACADDR,
    775: MACADDR8,
    3905: 3904,
    3927: 3926,
    3907: 3906,
    3909: 3908,
    3911: 3910,
    3913: 3912,
    1018: 601,
    1019: 602,
    1020: 603,
    1027: 604,
    629: 628,
    719: 718,
    3643: TSVECTOR,
}
AS_BUILT_ELEMENTS = frozenset({1018, 1019, 1020, 1027, 629, 719, 3643})
"""Arrays whose elements keep their type's own schema (Debezium's arrays of types it lists no array of: a
`tsvector[]` holds required strings); the others' elements are optional."""
ARRAY_DELIMITERS = {1020: ";"}  # a box's text has commas: box[] separates its elements with ';'


@dataclass(frozen=True)
class PostgresTypeOptions(TypeOptions):
    interval_handling: str = "numeric"  # numeric | string
    hstore_handling: str = "json"  # json | map
    money_fraction_digits: int = 2


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


def _binary(mode: str) -> tuple[SchemaType, Callable[[Any], Any]]:
    return binary_conversion(mode, _bytea)


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


def _scalar(oid: int, modifier: int, options: PostgresTypeOptions) -> ColumnType | None:
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
    return _postgres_specific(oid, modifier, options)


def _postgres_specific(oid: int, modifier: int, options: PostgresTypeOptions) -> ColumnType | None:
    if oid in PLAIN_STRINGS:
        return ColumnType(Schema(SchemaType.STRING), str)
    if oid == INTERVAL:
        if options.interval_handling == "string":
            return ColumnType(interval.INTERVAL, interval.iso_text, fallback=interval.ZERO_TEXT)
        return ColumnType(interval.MICRO_DURATION, interval.micro_duration)
    if oid == MONEY:
        schema, parse, fallback = money.money_type(options.decimal_handling, options.money_fraction_digits)
        return ColumnType(schema, parse, fallback=fallback)
    if oid in (BIT, VARBIT):
        length = modifier if modifier >= 0 else 1 if oid == BIT else bits.UNLIMITED
        if length > 1:
            return ColumnType(bits.bits_schema(length), bits.as_bytes)
        return ColumnType(Schema(SchemaType.BOOLEAN), bits.as_boolean)
    if oid == TSVECTOR:
        return ColumnType(TSVECTOR_SCHEMA, str)
    if oid in GEOMETRIC:
        name = GEOMETRIC[oid]
        schema, parse = geometric.TYPES[name]
        return ColumnType(schema, parse, fallback=geometric.FALLBACKS[name])
    return None


def _extension(name: str, options: PostgresTypeOptions) -> ColumnType:
    """A type of an extension Debezium maps (catalog_types.EXTENSION_TYPES)."""
    if name == "hstore":
        placeholder = hstore.unavailable(options.unavailable.decode(errors="replace"), options.hstore_handling)
        if options.hstore_handling == "map":
            return ColumnType(hstore.MAP_SCHEMA, hstore.as_map, placeholder, fallback={})
        return ColumnType(hstore.JSON_SCHEMA, hstore.as_json, placeholder, fallback="{}")
    return ColumnType(LTREE_SCHEMA if name == "ltree" else Schema(SchemaType.STRING), str)


def parse_array(text: str, delimiter: str = ",") -> list[str | None]:
    """The elements of a one-dimensional array's text form (`{1,NULL,"a b"}`), as text or None; `delimiter`:
    the element type's (`pg_type.typdelim`)."""
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
            i += 2  # the closing quote and the delimiter
        else:
            end = body.find(delimiter, i)
            end = len(body) if end < 0 else end
            raw = body[i:end]
            items.append(None if raw == "NULL" else raw)
            i = end + 1
    return items


def column_type(
    oid: int, modifier: int, options: PostgresTypeOptions, types: CatalogTypes | None = None
) -> ColumnType | None:
    """The Connect type of a column of type `oid` (and typmod), or None when there is no mapping. `types`:
    the database's enum, domain and extension types."""
    types = types or CatalogTypes()
    oid, modifier = types.base(oid, modifier)
    if oid in types.labels:
        return ColumnType(_enum_schema(types.labels[oid]), str, options.unavailable.decode())
    if oid in types.arrays:  # as Debezium: an array of (required) Enum strings
        return ColumnType(Schema.array(_enum_schema(types.labels[types.arrays[oid]])), parse_array)
    element: ColumnType | None
    if oid in types.extensions:
        found: ColumnType | None = _extension(types.extensions[oid], options)
    elif oid in ARRAYS or oid in types.extension_arrays:
        if oid in ARRAYS:
            element = _scalar(ARRAYS[oid], modifier, options)
        else:
            element = _extension(types.extension_arrays[oid], options)
        found = None if element is None else _array(oid, element, types)
    else:
        found = _scalar(oid, modifier, options)
    if found is None:
        return None
    if found.unavailable is not None:
        return found
    return replace(found, unavailable=_unavailable(oid, found.schema, options.unavailable))


def _array(oid: int, element: ColumnType, types: CatalogTypes) -> ColumnType:
    parse_element, delimiter = element.parse, ARRAY_DELIMITERS.get(oid, ",")
    as_built = oid in AS_BUILT_ELEMENTS or types.extension_arrays.get(oid) == "isbn"

    def parse(text: str) -> list[Any]:
        return [None if item is None else parse_element(item) for item in parse_array(text, delimiter)]

    return ColumnType(Schema.array(element.schema if as_built else element.schema.as_optional()), parse)


def _enum_schema(labels: tuple[str, ...]) -> Schema:
    allowed = (("allowed", ",".join(labels)),)
    return Schema(SchemaType.STRING, name="io.debezium.data.Enum", version=1, parameters=allowed)


def require_type(
    table: str,
    column: str,
    oid: int,
    modifier: int,
    type_name: str,
    options: PostgresTypeOptions,
    types: CatalogTypes | None = None,
) -> ColumnType:
    found = column_type(oid, modifier, options, types)
    if found is None:
        raise UnsupportedTypeError(
            f"Column {column!r} of table {table} has the type {type_name} (oid {oid}) that the PostgreSQL CDC "
            f"connector cannot map to a Connect schema. Leave the column out (column.exclude.list) or the table "
            f"(table.exclude.list), or change the column's type."
        )
    return found
