"""A captured table's shape: the columns kept (`column.exclude.list`), their Connect types, the key columns
(the primary key, or `message.key.columns`), its topic and the schemas Debezium names `<topic>.Key`,
`<topic>.Value` and `<topic>.Envelope`; and the function from a row, as the snapshot or the binlog gives it,
to the `Value` struct.

A shape is made from the table's columns (catalog.CatalogColumn, tables.Table.catalog) as the connector
holds them at a binlog position: parsed from the snapshot's `SHOW CREATE TABLE` and from each DDL after it
(schema_state.py), or recovered from the schema history on a restart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from connectworker.api.errors import ConnectError
from connectworker.api.schema import Schema

from ..debezium.column_types import ColumnType
from ..debezium.envelope import envelope_schema
from .catalog import CatalogColumn
from .settings import MySqlSettings
from .source import source_schema
from .types import require_type

Route = tuple[str, Schema | None, Schema | None, tuple[tuple[str, Any], ...]]
"""Where a record goes and how it is described: its topic, key schema, value schema and headers."""


class UnmappableValueError(ConnectError):
    """A column's value that the connector cannot write under its settings; the message names the table, the
    column and its type."""


@dataclass(frozen=True)
class ShapeColumn:
    name: str
    type: ColumnType
    optional: bool
    column_type: str  # information_schema's COLUMN_TYPE, for messages

    @property
    def field_schema(self) -> Schema:
        return self.type.schema.as_optional() if self.optional else self.type.schema


class TableShape:
    def __init__(self, settings: MySqlSettings, database: str, table: str, catalog: Sequence[CatalogColumn]) -> None:
        self.database, self.table = database, table
        self.catalog = tuple(catalog)  # every column, kept or not: a binlog row event carries them all
        self.topic = settings.topic(database, table)
        name = f"{database}.{table}"
        kept = [c for c in catalog if settings.keeps_column(database, table, c.name)]
        self.columns = tuple(
            ShapeColumn(c.name, require_type(name, c.name, c.column_type, settings.types), c.nullable, c.column_type)
            for c in kept
        )
        self.key_columns = _key_columns(settings, database, table, kept, self.columns)
        self.key_schema = (
            Schema.struct(f"{self.topic}.Key", *((c.name, c.field_schema) for c in self.key_columns))
            if self.key_columns
            else None
        )
        self.row_schema = Schema.struct(
            f"{self.topic}.Value", *((c.name, c.field_schema) for c in self.columns), optional=True
        )
        self.envelope_schema = envelope_schema(self.topic, self.row_schema, source_schema(settings.connector_name))
        self.route: Route = (self.topic, self.key_schema, self.envelope_schema, ())
        self.tombstone_route: Route = (self.topic, self.key_schema, None, ())
        self._key_names = tuple(c.name for c in self.key_columns)
        # (name, parse) per kept column; parse None where the driver's value is already the Connect value
        # (an int for an integer column, a float for a float): `row` skips the call
        self._parsers = tuple((c.name, None if c.type.parse in _IDENTITY else c.type.parse) for c in self.columns)

    @property
    def keyed(self) -> bool:
        return bool(self.key_columns)

    @property
    def column_names(self) -> tuple[str, ...]:
        """The kept columns, in the table's order: what a snapshot SELECTs, the order `row` reads a list in."""
        return tuple(c.name for c in self.columns)

    @property
    def binlog_view(self) -> list[tuple[str, str, str | None]]:
        """Every column as binlog.prime_columns takes them."""
        return [c.binlog_view for c in self.catalog]

    def row(self, values: Sequence[Any] | Mapping[str, Any]) -> dict[str, Any]:
        """The `Value` struct of a row: a snapshot's list (the kept columns in order) or a binlog row's dict
        (every column by name; the excluded ones are left out here). One comprehension on the way of every
        change; a value that fails is looked at again column by column, to name it."""
        try:
            if isinstance(values, Mapping):
                return {
                    name: value if (value := values[name]) is None or parse is None else parse(value)
                    for name, parse in self._parsers
                }
            return {
                name: value if value is None or parse is None else parse(value)
                for (name, parse), value in zip(self._parsers, values, strict=True)
            }
        except (ValueError, TypeError, ArithmeticError, IndexError, UnicodeDecodeError):
            return self._row_by_columns(values)

    def _row_by_columns(self, values: Sequence[Any] | Mapping[str, Any]) -> dict[str, Any]:
        if isinstance(values, Mapping):
            pairs = zip(self.columns, (values[c.name] for c in self.columns), strict=True)
        else:
            pairs = zip(self.columns, values, strict=True)
        out: dict[str, Any] = {}
        for column, value in pairs:
            if value is None:
                out[column.name] = None
                continue
            try:
                out[column.name] = column.type.parse(value)
            except (ValueError, TypeError, ArithmeticError, IndexError, UnicodeDecodeError) as exc:
                raise UnmappableValueError(
                    f"Column {column.name!r} of table {self.database}.{self.table} (type {column.column_type}) "
                    f"holds {str(value)[:80]!r}, which the connector cannot map to "
                    f"{column.type.schema.name or column.type.schema.type.value}: {exc}. Leave the column out "
                    "(column.exclude.list) or change the value."
                ) from exc
        return out

    def key(self, row: Mapping[str, Any]) -> dict[str, Any] | None:
        """The `Key` struct of a row's `Value` struct; None for a table without key columns."""
        if not self._key_names:
            return None
        return {name: row[name] for name in self._key_names}


_IDENTITY: frozenset[Any] = frozenset({int, float})
"""Parsers whose result is the value itself for what PyMySQL and mysql-replication give (ints, floats)."""


def _key_columns(
    settings: MySqlSettings,
    database: str,
    table: str,
    kept: Sequence[CatalogColumn],
    columns: Sequence[ShapeColumn],
) -> tuple[ShapeColumn, ...]:
    """message.key.columns's columns for the table, in its order, or else the primary key's in its order."""
    by_name = {c.name: c for c in columns}
    named = settings.message_key(database, table)
    if named is None:
        in_key = sorted((c for c in kept if c.key_position), key=lambda c: c.key_position)
        return tuple(by_name[c.name] for c in in_key if c.name in by_name)
    missing = [name for name in named if name not in by_name]
    if missing:
        raise ConnectError(
            f"message.key.columns keys table {database}.{table} by {', '.join(missing)}, which it does not have "
            f"(or which column.exclude.list leaves out); its columns: {', '.join(by_name) or 'none'}"
        )
    return tuple(by_name[name] for name in named)
