"""Validation's look at the captured tables: every kept column's type must have a mapping, or the connector
is refused before it starts, naming each such column and its type (a read-only catalog query). A table
created later with such a column still fails the task when its first change arrives, naming it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..debezium.capture_keys import COLUMN_EXCLUDE
from ..debezium.setup_errors import SetupError
from .catalog_types import catalog_types
from .columns import column_type
from .settings import CdcSettings

if TYPE_CHECKING:
    import psycopg2.extensions

_COLUMNS = """
SELECT n.nspname, c.relname, a.attname, a.atttypid, a.atttypmod, format_type(a.atttypid, a.atttypmod)
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
  AND n.nspname NOT LIKE 'pg_toast%%' AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
ORDER BY 1, 2, a.attnum"""


def unmappable_columns(connection: psycopg2.extensions.connection, settings: CdcSettings) -> list[str]:
    """The captured columns no mapping fits, as ``schema.table.column (type)``."""
    types = catalog_types(connection)
    with connection.cursor() as cursor:
        cursor.execute(_COLUMNS)
        rows = cursor.fetchall()
    return [
        f"{schema}.{table}.{column} ({type_name})"
        for schema, table, column, oid, modifier, type_name in rows
        if settings.captures(schema, table)
        and settings.keeps_column(schema, table, column)
        and column_type(oid, modifier, settings.types, types) is None
    ]


def check_column_types(connection: psycopg2.extensions.connection, settings: CdcSettings) -> None:
    """Raises SetupError (on column.exclude.list) naming every captured column whose type has no mapping."""
    found = unmappable_columns(connection, settings)
    if found:
        raise SetupError(
            COLUMN_EXCLUDE,
            f"The PostgreSQL CDC connector cannot map the type of {len(found)} captured column(s): "
            f"{', '.join(found)}. Leave them out with {COLUMN_EXCLUDE} (or their tables with table.exclude.list), "
            f"or change their types (docs/cdc.md lists the types it maps)",
        )
