"""The schema of the captured databases read from the server and recorded in the schema history, as
Debezium's snapshot records it: the server's default character set (`SET character_set_server=...,
collation_server=...`), each captured database's (`CREATE DATABASE ... DEFAULT CHARACTER SET ...`), and
every base table of them as `SHOW CREATE TABLE` writes it, each statement parsed and applied to the held
schema (schema_state.py) and written as a history record at one binlog position.

The snapshot reads them under its lock (snapshot.py) at its position; `snapshot.mode=recovery` reads them
as they are now, at the committed position it resumes from (right only if no DDL ran since). Tables of a
captured database that the table filters leave out are held too, as Debezium holds them (a captured table
can be renamed from one, or created LIKE one).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .catalog import base_tables, held_databases, server_charset, show_create_table
from .ddl_parser import parse_statement
from .history import HistoryRecord, SchemaHistory
from .schema_state import SchemaState
from .settings import MySqlSettings
from .snapshot import quote
from .source import Position
from .tables import Table

Statement = tuple[str, str]  # (the database it runs in, its text)


def read_schemas(connection: Any, settings: MySqlSettings) -> list[Statement]:
    """The statements that make the captured databases' schema as the server has it now."""
    charset, collation = server_charset(connection)
    statements = [("", f"SET character_set_server={charset}, collation_server={collation}")]
    databases = held_databases(connection, settings)
    for name, charset, collation in databases:
        statements.append((name, f"CREATE DATABASE {quote(name)} DEFAULT CHARACTER SET {charset} COLLATE {collation}"))
    for database, table in base_tables(connection, [name for name, _, _ in databases]):
        statements.append((database, show_create_table(connection, database, table)))
    return statements


def record_schemas(
    statements: list[Statement],
    state: SchemaState,
    history: SchemaHistory,
    position: Position,
    ts_ms: int,
    settings: MySqlSettings,
    on_record: Callable[[HistoryRecord], None] = lambda record: None,
) -> None:
    """Each statement parsed, applied to `state` and recorded in the history at `position`; `on_record` is
    given each record written."""
    where = f"the snapshot's binlog position {position.file}:{position.pos}"
    for database, ddl in statements:
        edits = parse_statement(ddl, database, where, skip_unparseable=settings.skip_unparseable_ddl)
        if edits is None:
            continue
        record = HistoryRecord(position, database, ddl, tuple(state.apply(edits)), ts_ms, snapshot=True)
        history.record(record)
        on_record(record)


def parsed_table(connection: Any, database: str, table: str) -> Table:
    """A table as its `SHOW CREATE TABLE` says it is now (which names its default character set)."""
    ddl = show_create_table(connection, database, table)
    state = SchemaState()
    state.apply(
        parse_statement(ddl, database, f"SHOW CREATE TABLE of {database}.{table}", skip_unparseable=False) or ()
    )
    return state.tables[(database, table)]
