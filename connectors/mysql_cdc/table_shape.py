"""A captured MySQL table's shape (debezium/table_shape.py), made from the table's columns
(catalog.CatalogColumn, tables.Table.catalog) as the connector holds them at a binlog position: parsed from
the snapshot's `SHOW CREATE TABLE` and from each DDL after it (schema_state.py), or recovered from the schema
history on a restart.

A row comes in two forms: the snapshot's list of the kept columns in order (`row`), and a binlog row event's
dict of every column by name (`change_row`); the excluded columns are left out of both.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..debezium.table_shape import ShapeColumn, TableShape
from .catalog import CatalogColumn
from .settings import MySqlSettings
from .source import source_schema
from .source_column import source_column
from .types import require_type


class MySqlTableShape(TableShape):
    IDENTITY = frozenset({int, float})

    def __init__(self, settings: MySqlSettings, database: str, table: str, catalog: Sequence[CatalogColumn]) -> None:
        self.catalog = tuple(catalog)  # every column, kept or not: a binlog row event carries them all
        name = f"{database}.{table}"
        columns = [
            ShapeColumn(
                position,
                c.name,
                require_type(name, c.name, c.column_type, settings.types),
                c.nullable,
                c.key_position,
                c.column_type,
                source_column(name, c.name, c.column_type),
            )
            for position, c in enumerate(c for c in catalog if settings.keeps_column(database, table, c.name))
        ]
        super().__init__(settings, database, table, columns, source_schema(settings.connector_name))
        self.compile_change_row(lambda c: c.name)

    @property
    def database(self) -> str:
        return self.namespace

    @property
    def column_names(self) -> tuple[str, ...]:
        """The kept columns, in the table's order: what a snapshot SELECTs, the order `row` reads a list in."""
        return tuple(c.name for c in self.columns)

    @property
    def binlog_view(self) -> list[tuple[str, str, str | None]]:
        """Every column as binlog.prime_columns takes them."""
        return [c.binlog_view for c in self.catalog]
