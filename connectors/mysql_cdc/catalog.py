"""What information_schema says of the captured tables: which tables the filters capture, and each table's
columns (name, COLUMN_TYPE, character set, nullability, place in the primary key), which build its schema
for the snapshot and prime the binlog's table map events (binlog.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .settings import MySqlSettings

SYSTEM_DATABASES = frozenset({"mysql", "information_schema", "performance_schema", "sys"})


@dataclass(frozen=True)
class CatalogColumn:
    name: str
    column_type: str  # information_schema's COLUMN_TYPE, e.g. "int(10) unsigned"
    charset: str | None
    nullable: bool
    key_position: int  # in the primary key, from 1; 0: not in it

    @property
    def binlog_view(self) -> tuple[str, str, str | None]:
        return self.name, self.column_type, self.charset


def captured_tables(connection: Any, settings: MySqlSettings) -> list[tuple[str, str]]:
    """(database, table) of every base table the filters capture, system databases left out, in order."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' "
            "ORDER BY TABLE_SCHEMA, TABLE_NAME"
        )
        rows = [(str(db), str(table)) for db, table in cursor.fetchall()]
    return [(db, table) for db, table in rows if db not in SYSTEM_DATABASES and settings.captures(db, table)]


def table_columns(connection: Any, database: str, table: str) -> list[CatalogColumn]:
    """A table's columns in their order (the binlog's row order)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.COLUMN_NAME, c.COLUMN_TYPE, c.CHARACTER_SET_NAME, c.IS_NULLABLE, "
            "COALESCE(k.ORDINAL_POSITION, 0) FROM information_schema.COLUMNS c "
            "LEFT JOIN information_schema.KEY_COLUMN_USAGE k ON k.TABLE_SCHEMA = c.TABLE_SCHEMA "
            "AND k.TABLE_NAME = c.TABLE_NAME AND k.COLUMN_NAME = c.COLUMN_NAME AND k.CONSTRAINT_NAME = 'PRIMARY' "
            "WHERE c.TABLE_SCHEMA = %s AND c.TABLE_NAME = %s ORDER BY c.ORDINAL_POSITION",
            (database, table),
        )
        return [
            CatalogColumn(str(name), str(kind), str(charset) if charset else None, nullable == "YES", int(key))
            for name, kind, charset, nullable, key in cursor.fetchall()
        ]
