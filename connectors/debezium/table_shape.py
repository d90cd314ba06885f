"""A captured table's shape, as both CDC connectors make it (Debezium's `TableSchemaBuilder`): the columns
kept, their Connect types, the key columns (the primary key, or `message.key.columns`), the topic, the three
schemas Debezium names `<topic>.Key`, `<topic>.Value` and `<topic>.Envelope`, and the compiled function from
a row's values, as the database gives them, to the `Value` struct.

The column mappers (`column.mask.*`, `column.truncate.*`, `column.propagate.source.type`, ...) act here,
on every row alike, whether the snapshot read it or the stream: a mapper converts the Connect value after
the type's conversion, and adds its schema parameters.

Each database makes `ShapeColumn`s from what it knows of a table (PostgreSQL's catalog and Relation
messages, MySQL's parsed DDL); what only it knows of a value (PostgreSQL's unchanged TOASTed value) is a
subclass's `unavailable_value`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time
from operator import itemgetter
from typing import Any
from weakref import WeakKeyDictionary

from connectworker.api.errors import ConnectError
from connectworker.api.schema import Schema, SchemaType
from connectworker.converters.logical import DATE, TIME, TIMESTAMP

from . import decimals
from .column_mappers import ColumnMappers, SourceColumn
from .column_types import ColumnType
from .envelope import envelope_schema
from .routes import Route
from .rows import Row, RowColumn, compile_row
from .settings import CaptureSettings

log = logging.getLogger(__name__)

_CONVERSION_ERRORS = (ValueError, TypeError, ArithmeticError, IndexError, UnicodeDecodeError)


@dataclass(frozen=True)
class ShapeColumn:
    position: int | str  # where a row's value is: its index in the tuple the database gives, or its name
    name: str
    type: ColumnType
    optional: bool
    key_position: int = 0  # in the table's key (the primary key, or else a unique index); 0: not in it
    type_label: str = ""  # the type as the database names it, for messages
    source: SourceColumn | None = None  # the column as the column mappers see it

    @property
    def field_schema(self) -> Schema:
        return self.type.schema.as_optional() if self.optional else self.type.schema


class UnmappableValueError(ConnectError):
    """A column's value that the connector cannot write under its settings: the task fails on it, before its
    position is confirmed past it. The message names the table, the column and its type."""


class TableShape:
    IDENTITY: frozenset[Any] = frozenset()
    """Conversions whose result is the value itself for what the database's driver gives (PostgreSQL's texts
    for a text column, MySQL's ints and floats): `row` skips the call."""

    def __init__(
        self,
        settings: CaptureSettings,
        namespace: str,
        table: str,
        columns: Sequence[ShapeColumn],
        source_schema: Schema,
        *,
        unavailable: object | None = None,
    ) -> None:
        self.namespace, self.table = namespace, table  # PostgreSQL's schema, MySQL's database
        self.topic = settings.topic(namespace, table)
        self._unavailable_marker = unavailable
        mappers = settings.mappers
        self.columns = tuple(_with_mapper_parameters(settings, c) for c in columns)
        self.key_columns = _key_columns(settings, namespace, table, self.columns)
        key_names = {c.name for c in self.key_columns}
        plain = {c.name: c for c in columns}  # Debezium's key schema has no mapper's parameters
        self.key_schema = (
            Schema.struct(f"{self.topic}.Key", *((c.name, plain[c.name].field_schema) for c in self.key_columns))
            if self.key_columns
            else None
        )
        self.row_schema = Schema.struct(
            f"{self.topic}.Value", *((c.name, c.field_schema) for c in self.columns), optional=True
        )
        self.envelope_schema = envelope_schema(self.topic, self.row_schema, source_schema)
        self.route: Route = (self.topic, self.key_schema, self.envelope_schema, ())
        self.tombstone_route: Route = (self.topic, self.key_schema, None, ())
        self.truncate_route: Route = (self.topic, None, self.envelope_schema, ())  # a TRUNCATE's event has no key
        self._mappers = tuple(
            mappers.value_mapper(c.source) if c.source is not None and not mappers.empty else None for c in self.columns
        )
        for column in self.columns:
            if column.source is not None and not mappers.empty:
                for warning in mappers.warnings(column.source, in_key=column.name in key_names):
                    _warn_once(mappers, warning)
        # row(values, previous=None): the `Value` struct of a row; a value the database marks unavailable is
        # taken from `previous` (the old row) or `unavailable_value`. A NOT NULL column the row leaves out
        # gets its type's zero value, as Debezium fills it, since its schema does not allow null. A value
        # that cannot be converted raises UnmappableValueError naming the table, column and type.
        self._key_names = tuple(c.name for c in self.key_columns)
        self._key_of = itemgetter(*self._key_names) if len(self._key_names) > 1 else None
        # Debezium maps the values only: a key column under a mapper (a mask) keeps its value in the key, built
        # from the row's values by a builder of its own (`_raw_key`)
        self._maps_key = any(m is not None for c, m in zip(self.columns, self._mappers, strict=True) if c.key_position)
        self.row: Row = self.compile_row(lambda c: c.position)
        self._raw_key = self._compile_key(lambda c: c.position)
        self.change_row: Row = self.row  # the stream's form of a row, where it is not the snapshot's
        self._raw_change_key = self._raw_key

    def compile_row(self, position: Any) -> Row:
        """A row builder reading each column's value at `position(column)` (a database with two forms of a row,
        such as MySQL's snapshot tuples and binlog dicts, compiles one for each: `row` and `change_row`)."""
        positions = tuple(position(c) for c in self.columns)

        def slow(values: Any, previous: Any = None) -> dict[str, Any]:
            return self._row_by_columns(positions, values, previous, self._mappers)

        row_columns = [
            RowColumn(at, c.name, None if c.type.parse in self.IDENTITY else c.type.parse, null_value(c), mapper)
            for at, c, mapper in zip(positions, self.columns, self._mappers, strict=True)
        ]
        return compile_row(row_columns, slow, self._unavailable_marker)

    def compile_change_row(self, position: Any) -> None:
        """The stream's form of a row, where the database gives it otherwise than the snapshot does."""
        self.change_row = self.compile_row(position)
        self._raw_change_key = self._compile_key(position)

    def _compile_key(self, position: Any) -> Row | None:
        """The key's builder from a row's values, with no mapper; None where `key` of the mapped row serves."""
        if not self._maps_key:
            return None
        key_columns = sorted(
            (c for c in self.columns if c.name in self._key_names), key=lambda c: self._key_names.index(c.name)
        )
        positions = tuple(position(c) for c in self.columns)
        unmapped = (None,) * len(self.columns)

        def slow(values: Any, previous: Any = None) -> dict[str, Any]:
            row = self._row_by_columns(positions, values, previous, unmapped)
            return {name: row[name] for name in self._key_names}

        key_row = [
            RowColumn(position(c), c.name, None if c.type.parse in self.IDENTITY else c.type.parse, null_value(c))
            for c in key_columns
        ]
        return compile_row(key_row, slow, self._unavailable_marker)

    def row_key(self, values: Any, row: dict[str, Any]) -> dict[str, Any] | None:
        """The `Key` struct of a snapshot's row (`values`, made into `row` by `row`)."""
        return self.key(row) if self._raw_key is None else self._raw_key(values)

    def change_key(self, values: Any, row: dict[str, Any]) -> dict[str, Any] | None:
        """The `Key` struct of a stream's row (`values`, made into `row` by `change_row`)."""
        return self.key(row) if self._raw_change_key is None else self._raw_change_key(values)

    @property
    def keyed(self) -> bool:
        return bool(self.key_columns)

    @property
    def id(self) -> tuple[str, str]:
        return self.namespace, self.table

    def key(self, row: dict[str, Any]) -> dict[str, Any] | None:
        """The `Key` struct of a row's `Value` struct; None for a table without key columns."""
        if self._key_of is not None:
            return dict(zip(self._key_names, self._key_of(row), strict=True))
        if self._key_names:
            (name,) = self._key_names
            return {name: row[name]}
        return None

    def _row_by_columns(
        self, positions: Sequence[Any], values: Any, previous: Any, mappers: Sequence[Any]
    ) -> dict[str, Any]:
        """`row` column by column: for a row with an unavailable value, and to name the column whose value
        the compiled `row` could not convert."""
        out: dict[str, Any] = {}
        marker = self._unavailable_marker
        for at, column, mapper in zip(positions, self.columns, mappers, strict=True):
            value = values[at]
            if marker is not None and value is marker:
                value = previous[at] if previous is not None else marker
                if value is marker:
                    out[column.name] = self.unavailable_value(column)
                    continue
            if value is None:
                converted = null_value(column)
            else:
                try:
                    converted = column.type.parse(value)
                except _CONVERSION_ERRORS as exc:
                    raise UnmappableValueError(
                        f"Column {column.name!r} of table {self.namespace}.{self.table} (type {column.type_label}) "
                        f"holds {str(value)[:80]!r}, which the connector cannot map to {_schema_label(column)}: "
                        f"{exc}. Leave the column out (column.exclude.list) or change the value."
                    ) from exc
            out[column.name] = converted if mapper is None else mapper(converted)
        return out

    def unavailable_value(self, column: ShapeColumn) -> Any:
        """The value of a column the database marked unavailable in a row, with no previous row to take it
        from: only a database with such a marker overrides this."""
        raise UnmappableValueError(
            f"Column {column.name!r} of table {self.namespace}.{self.table} has no value in a change event"
        )


_WARNED: WeakKeyDictionary[ColumnMappers, set[str]] = WeakKeyDictionary()


def warn_unmatched_columns(settings: CaptureSettings, columns: Iterable[SourceColumn]) -> None:
    """A warning for each column mapper pattern that names none of the captured `columns` (a misspelt column
    would leave the one meant unmasked)."""
    if not settings.mappers.empty:
        for warning in settings.mappers.unmatched(columns):
            _warn_once(settings.mappers, warning)


def _warn_once(mappers: ColumnMappers, warning: str) -> None:
    """A mapper's warning about a column, once per connector's settings (a table's shape is made again after
    each schema change)."""
    warned = _WARNED.setdefault(mappers, set())
    if warning not in warned:
        warned.add(warning)
        log.warning("%s", warning)


def _with_mapper_parameters(settings: CaptureSettings, column: ShapeColumn) -> ShapeColumn:
    """The column with the schema parameters its mappers add (column.propagate.source.type, ...)."""
    if column.source is None or settings.mappers.empty:
        return column
    extra = settings.mappers.schema_parameters(column.source)
    if not extra:
        return column
    schema = column.type.schema
    return replace(column, type=replace(column.type, schema=replace(schema, parameters=schema.parameters + extra)))


def _key_columns(
    settings: CaptureSettings, namespace: str, table: str, columns: Sequence[ShapeColumn]
) -> tuple[ShapeColumn, ...]:
    """The key's columns: those message.key.columns names for the table, in its order, or else the table's
    key (the primary key, or PostgreSQL's first unique index) in the index's order."""
    named = settings.message_key(namespace, table)
    if named is None:
        return tuple(sorted((c for c in columns if c.key_position), key=lambda c: c.key_position))
    by_name = {c.name: c for c in columns}
    missing = [name for name in named if name not in by_name]
    if missing:
        raise ConnectError(
            f"message.key.columns keys table {namespace}.{table} by {', '.join(missing)}, which it does not have "
            f"(or which column.include.list / column.exclude.list leave out); its columns: "
            f"{', '.join(by_name) or 'none'}"
        )
    return tuple(by_name[name] for name in named)


def null_value(column: ShapeColumn) -> Any:
    """A NULL's value: null, or for a NOT NULL column (a row leaves it out) its type's zero value."""
    if column.optional:
        return None
    return _fallback(column.type.schema) if column.type.fallback is None else column.type.fallback


def _schema_label(column: ShapeColumn) -> str:
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
_NAMED_FALLBACK: dict[str | None, Any] = {
    DATE: date(1970, 1, 1),
    TIME: time(0),
    TIMESTAMP: datetime(1970, 1, 1, tzinfo=UTC),
    "io.debezium.time.ZonedTimestamp": "1970-01-01T00:00:00Z",
    "io.debezium.time.ZonedTime": "00:00:00Z",
    decimals.DECIMAL: b"\x00",
    decimals.VARIABLE_SCALE_DECIMAL: {"scale": 0, "value": b"\x00"},
}


def _fallback(schema: Schema) -> Any:
    """The value of a NOT NULL column a row leaves out: its type's zero, as Debezium's converters fall back
    to it (the epoch for temporal types, zero for decimals)."""
    return _NAMED_FALLBACK[schema.name] if schema.name in _NAMED_FALLBACK else _FALLBACK.get(schema.type)
