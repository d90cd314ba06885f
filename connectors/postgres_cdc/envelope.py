"""Debezium's change event: the key struct, the `{before, after, source, op, ts_ms, ts_us, ts_ns, transaction}`
envelope.

A `TableShape` is built for each captured table (from the catalog for the snapshot, from pgoutput's
Relation message while streaming): the kept columns, their Connect types, the primary key, the topic and
the three schemas Debezium names `<topic>.Key`, `<topic>.Value` and `<topic>.Envelope`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from operator import itemgetter
from typing import Any

import connectworker
from connectworker.api.errors import ConnectError
from connectworker.api.schema import Schema, SchemaType
from connectworker.converters.logical import DATE, TIME, TIMESTAMP

from ..debezium import decimals
from ..debezium.envelope import envelope_schema
from . import source_type
from .catalog_types import CatalogTypes
from .columns import ColumnType, PostgresTypeOptions, require_type
from .database import CatalogColumn
from .pgoutput import UNCHANGED_TOAST
from .rows import Row, RowColumn, compile_row
from .settings import CdcSettings

_OPT_STRING = Schema(SchemaType.STRING, optional=True)
_OPT_INT64 = Schema(SchemaType.INT64, optional=True)
SOURCE_SCHEMA = Schema.struct(
    "io.debezium.connector.postgresql.Source",
    ("version", Schema(SchemaType.STRING)),
    ("connector", Schema(SchemaType.STRING)),
    ("name", Schema(SchemaType.STRING)),
    ("ts_ms", Schema(SchemaType.INT64)),
    ("snapshot", Schema(SchemaType.STRING, optional=True, name="io.debezium.data.Enum", version=1)),
    ("db", Schema(SchemaType.STRING)),
    ("sequence", _OPT_STRING),
    ("ts_us", _OPT_INT64),
    ("ts_ns", _OPT_INT64),
    ("schema", Schema(SchemaType.STRING)),
    ("table", Schema(SchemaType.STRING)),
    ("txId", _OPT_INT64),
    ("lsn", _OPT_INT64),
    ("xmin", _OPT_INT64),
)
log = logging.getLogger(__name__)
VERSION = f"connectworker-{connectworker.__version__}"

Route = tuple[str, Schema | None, Schema | None, tuple[tuple[str, Any], ...]]
"""Where a record goes and how it is described: its topic, key schema, value schema and headers (only the
events of a primary-key change have any)."""


@dataclass(frozen=True)
class Column:
    position: int  # in the relation's tuple (pgoutput) or the snapshot's SELECT list
    name: str
    type: ColumnType
    optional: bool
    key_position: int  # in the key: the primary key, or else the first unique index (0: not in it)
    type_name: str = ""  # as the catalog names it, for messages


class UnmappableValueError(ConnectError):
    """A column's value that the connector cannot write under its settings: the task fails on it, before the
    slot is confirmed past it."""


class TableShape:
    def __init__(self, settings: CdcSettings, schema: str, table: str, columns: Sequence[Column]) -> None:
        self.schema_name, self.table = schema, table
        self.topic = settings.topic(schema, table)
        self.columns = tuple(columns)
        self.key_columns = _key_columns(settings, schema, table, self.columns)
        self.key_schema = (
            Schema.struct(f"{self.topic}.Key", *((c.name, _field(c)) for c in self.key_columns))
            if self.key_columns
            else None
        )
        self.row_schema = Schema.struct(f"{self.topic}.Value", *((c.name, _field(c)) for c in columns), optional=True)
        self.envelope_schema = envelope_schema(self.topic, self.row_schema, SOURCE_SCHEMA)
        self.route: Route = (self.topic, self.key_schema, self.envelope_schema, ())
        self.tombstone_route: Route = (self.topic, self.key_schema, None, ())
        self.truncate_route: Route = (self.topic, None, self.envelope_schema, ())  # a TRUNCATE's event has no key
        self._unavailable_warned: set[str] = set()
        # row(values, previous=None): the struct value of a tuple of text values; an unchanged TOASTed value
        # is taken from `previous` (the old row, with REPLICA IDENTITY FULL) or Debezium's placeholder. A NOT
        # NULL column a tuple leaves out (the old key of a delete without REPLICA IDENTITY FULL holds the key
        # only) gets its type's zero value, as Debezium fills it, since its schema does not allow null. A
        # value that cannot be mapped raises UnmappableValueError naming the table, column and type.
        self.row: Row = compile_row(
            [
                RowColumn(c.position, c.name, None if c.type.parse is str else c.type.parse, _null_value(c))
                for c in columns
            ],
            self._row_by_columns,
        )
        self._key_names = tuple(c.name for c in self.key_columns)
        self._key_of = itemgetter(*self._key_names) if len(self._key_names) > 1 else None

    @property
    def keyed(self) -> bool:
        return bool(self.key_columns)

    def key(self, row: dict[str, Any]) -> dict[str, Any] | None:
        if self._key_of is not None:
            return dict(zip(self._key_names, self._key_of(row), strict=True))
        if self._key_names:
            (name,) = self._key_names
            return {name: row[name]}
        return None

    def _row_by_columns(self, values: Sequence[Any], previous: Sequence[Any] | None = None) -> dict[str, Any]:
        """`row` column by column: for a tuple with an unchanged TOASTed value, and to name the column whose
        value the compiled `row` could not map."""
        out: dict[str, Any] = {}
        for column in self.columns:
            text = values[column.position]
            if text is UNCHANGED_TOAST:
                text = previous[column.position] if previous is not None else UNCHANGED_TOAST
                if text is UNCHANGED_TOAST:
                    out[column.name] = self._unavailable(column)
                    continue
            if text is None:
                out[column.name] = _null_value(column)
                continue
            try:
                out[column.name] = column.type.parse(text)
            except (ValueError, TypeError, ArithmeticError, IndexError) as exc:
                raise UnmappableValueError(
                    f"Column {column.name!r} of table {self.schema_name}.{self.table} (type {column.type_name}) "
                    f"holds {text[:80]!r}, which the connector cannot map to {_schema_label(column)}: {exc}. "
                    "Leave the column out (column.exclude.list) or change the value."
                ) from exc
        return out

    def _unavailable(self, column: Column) -> Any:
        """The value of an unchanged TOASTed value PostgreSQL did not send: Debezium's placeholder for the
        column's type; null (warned once) for a nullable column whose type has none, as Debezium writes it;
        a NOT NULL one fails, as null would break its schema."""
        if column.type.unavailable is not None:
            return column.type.unavailable
        where = f"column {column.name!r} of table {self.schema_name}.{self.table} (type {column.type_name})"
        fix = f"ALTER TABLE {self.schema_name}.{self.table} REPLICA IDENTITY FULL makes PostgreSQL send it"
        if not column.optional:
            raise UnmappableValueError(
                f"An update left out the unchanged TOASTed value of {where}, NOT NULL, and its type has no "
                f"placeholder (unavailable.value.placeholder covers text, bytea, json and their arrays, and "
                f"integer and date arrays): {fix}."
            )
        if column.name not in self._unavailable_warned:
            self._unavailable_warned.add(column.name)
            log.warning(
                "Updates leave out the unchanged TOASTed value of %s, and its type has no placeholder: those "
                "events carry null there (as Debezium's do); %s.",
                where,
                fix,
            )
        return None


def _key_columns(settings: CdcSettings, schema: str, table: str, columns: Sequence[Column]) -> tuple[Column, ...]:
    """The key's columns: those message.key.columns names for the table, in its order, or else the primary
    key's (or first unique index's) in the index's order."""
    named = settings.message_key(schema, table)
    if named is None:
        return tuple(sorted((c for c in columns if c.key_position), key=lambda c: c.key_position))
    by_name = {c.name: c for c in columns}
    missing = [name for name in named if name not in by_name]
    if missing:
        raise ConnectError(
            f"message.key.columns keys table {schema}.{table} by {', '.join(missing)}, which it does not have "
            f"(or which column.include.list / column.exclude.list leave out); its columns: "
            f"{', '.join(by_name) or 'none'}"
        )
    return tuple(by_name[name] for name in named)


def _null_value(column: Column) -> Any:
    if column.optional:
        return None
    return _fallback(column.type.schema) if column.type.fallback is None else column.type.fallback


def _schema_label(column: Column) -> str:
    schema = column.type.schema
    return schema.name or schema.type.value


_FALLBACK: dict[SchemaType, Any] = {
    SchemaType.INT8: 0,
    SchemaType.INT16: 0,
    SchemaType.INT32: 0,
    SchemaType.INT64: 0,
    SchemaType.FLOAT32: 0.0,
    SchemaType.FLOAT64: 0.0,
    SchemaType.BOOLEAN: False,
    SchemaType.STRING: "",
    SchemaType.BYTES: b"",
    SchemaType.ARRAY: [],
}


def _fallback(schema: Schema) -> Any:
    """The value of a NOT NULL column a tuple leaves out: its type's zero, as Debezium's converters fall
    back to it (the epoch for temporal types, zero for decimals)."""
    from datetime import UTC, date, datetime, time

    named = {
        DATE: date(1970, 1, 1),
        TIME: time(0),
        TIMESTAMP: datetime(1970, 1, 1, tzinfo=UTC),
        "io.debezium.time.ZonedTimestamp": "1970-01-01T00:00:00Z",
        "io.debezium.time.ZonedTime": "00:00:00Z",
        decimals.DECIMAL: b"\x00",
        decimals.VARIABLE_SCALE_DECIMAL: {"scale": 0, "value": b"\x00"},
    }
    return named[schema.name] if schema.name in named else _FALLBACK.get(schema.type)


def _field(column: Column) -> Schema:
    return column.type.schema.as_optional() if column.optional else column.type.schema


def shape_of(
    settings: CdcSettings,
    schema: str,
    table: str,
    names: Sequence[tuple[str, int, int]],
    catalog: Sequence[CatalogColumn],
    types: CatalogTypes,
    options: PostgresTypeOptions,
) -> TableShape:
    """The shape of a table whose tuples hold the columns `names` ((name, type oid, typmod) in order), with
    nullability, primary key and type names from the catalog; raises UnsupportedTypeError for a kept column
    no Connect type fits."""
    by_name = {c.name: c for c in catalog}
    columns = []
    for position, (name, oid, modifier) in enumerate(names):
        if not settings.keeps_column(schema, table, name):
            continue
        known = by_name.get(name)
        type_name = known.type_name if known is not None else f"oid {oid}"
        kind = require_type(f"{schema}.{table}", name, oid, modifier, type_name, options, types)
        short_name = known.type_short_name if known is not None else ""
        if short_name and settings.propagates_type(schema, table, name, short_name):
            extra = source_type.parameters(name, *types.base(oid, modifier), short_name)
            kind = replace(kind, schema=replace(kind.schema, parameters=kind.schema.parameters + extra))
        key_position = known.key_position if known is not None else 0
        optional = known is None or known.nullable
        columns.append(Column(position, name, kind, optional, key_position, type_name))
    return TableShape(settings, schema, table, columns)


def source_struct(
    settings: CdcSettings,
    shape: TableShape,
    *,
    ts_us: int,
    snapshot: str,
    tx_id: int | None,
    lsn: int | None,
    sequence: str | None,
) -> dict[str, Any]:
    """`source`, as Debezium 2.6+ writes it: `ts_ms`, `ts_us` and `ts_ns` are one instant (the commit's, or the
    snapshot's start), which PostgreSQL gives in microseconds."""
    return {
        "version": VERSION,
        "connector": "postgresql",
        "name": settings.topic_prefix,
        "ts_ms": ts_us // 1000,
        "snapshot": snapshot,
        "db": settings.dbname,
        "sequence": sequence,
        "ts_us": ts_us,
        "ts_ns": ts_us * 1000,
        "schema": shape.schema_name,
        "table": shape.table,
        "txId": tx_id,
        "lsn": lsn,
        "xmin": None,
    }
