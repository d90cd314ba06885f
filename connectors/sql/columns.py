"""From a table's columns to Connect schemas and values.

Each column gets a Connect schema from its SQL type (optional when the column is nullable) and, where the
driver's Python value is not already what the converters take, a function that makes it so: naive
timestamps get the zone of `db.timezone`, numerics become int, float or exact text as `numeric.mapping`
says, UUIDs and JSON become text. A row is then one dict (a Connect struct value) built with one pass.

Connect's Decimal logical type is not available in this product's schemas (they carry no parameters), so
a numeric that `numeric.mapping` cannot put in an integer or float (and every numeric with
`numeric.mapping=none`) is sent as its exact decimal text: nothing is rounded.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, tzinfo
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from connectworker.api.errors import ConnectError
from connectworker.api.schema import Schema, SchemaType
from connectworker.converters.logical import DATE, TIME, TIMESTAMP

Convert = Callable[[Any], Any]


class UnsupportedColumnError(ConnectError):
    pass


@dataclass(frozen=True)
class ColumnPlan:
    name: str
    schema: Schema
    convert: Convert | None  # None: the driver's value is used as it is; never called with None


def _schema(kind: SchemaType, nullable: bool, name: str | None = None) -> Schema:
    return Schema(kind, optional=nullable, name=name)


def _numeric(precision: int | None, scale: int | None, mapping: str, nullable: bool) -> tuple[Schema, Convert]:
    """Confluent's numeric.mapping rules; what they leave to Decimal is exact text here."""
    if mapping != "none" and precision is not None and scale is not None:
        if scale <= 0 and precision < 19:  # an integer
            kind = (
                SchemaType.INT64
                if precision > 9
                else SchemaType.INT32
                if precision > 4
                else SchemaType.INT16
                if precision > 2
                else SchemaType.INT8
            )
            return _schema(kind, nullable), _to_int
        if mapping == "best_fit_eager_double" or (mapping == "best_fit" and precision < 19):
            return _schema(SchemaType.FLOAT64, nullable), _to_float
    if mapping == "best_fit_eager_double":
        return _schema(SchemaType.FLOAT64, nullable), _to_float
    return _schema(SchemaType.STRING, nullable), _decimal_text


# Conversions are called for values that are not None only (`RowShape.value`: a NULL stays None).
def _to_int(value: Any) -> Any:
    return int(value)


def _to_float(value: Any) -> Any:
    return float(value)


def _decimal_text(value: Any) -> Any:
    return format(value, "f") if isinstance(value, Decimal) else str(value)


def _text(value: Any) -> Any:
    if isinstance(value, str):
        return value
    if isinstance(value, uuid.UUID):
        return str(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)  # JSON / JSONB documents


def _bytes(value: Any) -> Any:
    return bytes(value) if isinstance(value, memoryview | bytearray) else value


def db_zone(db_timezone: str) -> tzinfo:
    return UTC if db_timezone == "UTC" else ZoneInfo(db_timezone)


def zone_of(zone: tzinfo) -> Callable[[datetime], datetime]:
    """How a timestamp read from the database becomes an instant: naive ones are in `zone`."""

    def aware(value: datetime) -> datetime:
        return value if value.tzinfo is not None else value.replace(tzinfo=zone)

    return aware


def _timestamp(aware: Callable[[datetime], datetime]) -> Convert:
    def convert(value: Any) -> Any:
        if isinstance(value, str):  # SQLite stores timestamps as text, and may hand back what was written
            value = datetime.fromisoformat(value)
        return aware(value) if isinstance(value, datetime) else value

    return convert


def _date(value: Any) -> Any:
    if isinstance(value, str):
        return date.fromisoformat(value)
    return value.date() if isinstance(value, datetime) else value


def _time(value: Any) -> Any:
    return time.fromisoformat(value) if isinstance(value, str) else value


def plan_column(
    table: str, column: dict[str, Any], *, dialect: str, numeric_mapping: str, aware: Callable[[datetime], datetime]
) -> ColumnPlan:
    """The plan of one column as SQLAlchemy's inspector describes it (`name`, `type`, `nullable`);
    raises UnsupportedColumnError naming the table, the column and its type when none applies."""
    from sqlalchemy import types as sa

    name, sql_type, nullable = column["name"], column["type"], bool(column.get("nullable", True))
    visit = getattr(sql_type, "__visit_name__", "")
    if isinstance(sql_type, sa.Boolean):
        return ColumnPlan(name, _schema(SchemaType.BOOLEAN, nullable), None)
    if isinstance(sql_type, sa.Integer):
        if dialect == "sqlite":  # SQLite's INTEGER is any 64-bit integer, whatever it was declared as
            kind = SchemaType.INT64
        elif isinstance(sql_type, sa.SmallInteger):
            kind = SchemaType.INT16
        elif isinstance(sql_type, sa.BigInteger):
            kind = SchemaType.INT64
        else:
            kind = SchemaType.INT32
        return ColumnPlan(name, _schema(kind, nullable), None)
    if isinstance(sql_type, sa.Float):  # before Numeric: Float is one
        single = visit.upper() == "REAL" and dialect != "sqlite"
        return ColumnPlan(name, _schema(SchemaType.FLOAT32 if single else SchemaType.FLOAT64, nullable), _to_float)
    if isinstance(sql_type, sa.Numeric):
        schema, convert = _numeric(sql_type.precision, sql_type.scale, numeric_mapping, nullable)
        return ColumnPlan(name, schema, convert)
    if isinstance(sql_type, sa.DateTime):
        return ColumnPlan(name, _schema(SchemaType.INT64, nullable, TIMESTAMP), _timestamp(aware))
    if isinstance(sql_type, sa.Date):
        return ColumnPlan(name, _schema(SchemaType.INT32, nullable, DATE), _date)
    if isinstance(sql_type, sa.Time):
        return ColumnPlan(name, _schema(SchemaType.INT32, nullable, TIME), _time)
    if isinstance(sql_type, sa.String | sa.Enum | sa.Uuid | sa.JSON) or visit.upper() in (
        "UUID",
        "JSONB",
        "JSON",
        "CITEXT",
        "INET",
        "CIDR",
    ):
        return ColumnPlan(name, _schema(SchemaType.STRING, nullable), _text)
    if isinstance(sql_type, sa.LargeBinary | sa.BINARY | sa.VARBINARY):
        return ColumnPlan(name, _schema(SchemaType.BYTES, nullable), _bytes)
    raise UnsupportedColumnError(
        f"Column {name!r} of table {table} has the type {sql_type} that the SQL source cannot map to a "
        f"Connect schema (supported: booleans, integers, floats, numerics, text, bytes, date, time, "
        f"timestamp, UUID, JSON). Leave the table out (table.exclude.list), or read it through query= "
        f"with the column cast to a supported type."
    )


class RowShape:
    """The Connect schema of a table's rows, and how a row of the driver becomes a struct value."""

    def __init__(self, schema_name: str, columns: Sequence[ColumnPlan]) -> None:
        self.names = tuple(c.name for c in columns)
        self.schema = Schema.struct(schema_name, *((c.name, c.schema) for c in columns))
        self._converts = [(i, c.name, c.convert) for i, c in enumerate(columns) if c.convert is not None]

    def value(self, row: Sequence[Any]) -> dict[str, Any]:
        out = dict(zip(self.names, row, strict=True))
        for i, name, convert in self._converts:
            if (raw := row[i]) is not None:
                out[name] = convert(raw)
        return out
