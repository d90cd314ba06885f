"""What the server says of the databases and tables the connector holds schemas of, for the snapshot (and
snapshot.mode=recovery): the server's and each captured database's default character set, their base
tables, and each table's `SHOW CREATE TABLE`, which the snapshot parses as Debezium does (schema_state.py);
and `CatalogColumn`, a column as the table shapes and the priming of table map events (binlog.py) read it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .settings import MySqlSettings
from .snapshot import quote

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


def server_charset(connection: Any) -> tuple[str, str]:
    """The server's default character set and collation (those of a database created without one)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT @@GLOBAL.character_set_server, @@GLOBAL.collation_server")
        charset, collation = cursor.fetchone()
    return str(charset), str(collation)


def held_databases(connection: Any, settings: MySqlSettings) -> list[tuple[str, str, str]]:
    """(name, default character set, default collation) of every database the filters capture, system
    databases left out, in order: the databases whose tables the connector holds schemas of."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT SCHEMA_NAME, DEFAULT_CHARACTER_SET_NAME, DEFAULT_COLLATION_NAME FROM information_schema.SCHEMATA "
            "ORDER BY SCHEMA_NAME"
        )
        rows = [(str(name), str(charset), str(collation)) for name, charset, collation in cursor.fetchall()]
    return [row for row in rows if row[0] not in SYSTEM_DATABASES and settings.captures_namespace(row[0])]


def base_tables(connection: Any, databases: list[str]) -> list[tuple[str, str]]:
    """(database, table) of every base table of `databases`, in order."""
    if not databases:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT TABLE_SCHEMA, TABLE_NAME FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' "
            f"AND TABLE_SCHEMA IN ({', '.join(['%s'] * len(databases))}) ORDER BY TABLE_SCHEMA, TABLE_NAME",
            databases,
        )
        return [(str(db), str(table)) for db, table in cursor.fetchall()]


def show_create_table(connection: Any, database: str, table: str) -> str:
    """The table's `SHOW CREATE TABLE`: its definition as the server writes it."""
    with connection.cursor() as cursor:
        cursor.execute(f"SHOW CREATE TABLE {quote(database)}.{quote(table)}")
        return str(cursor.fetchone()[1])


def holds_database(settings: MySqlSettings, database: str) -> bool:
    """Whether the connector holds the schemas of a database's tables (and parses its DDL): a captured
    database that is not one of the server's own."""
    return database not in SYSTEM_DATABASES and settings.captures_namespace(database)
