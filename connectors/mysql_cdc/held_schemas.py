"""The schema the binlog stream holds at the position it reads (schema_state.SchemaState: parsed from the
snapshot's `SHOW CREATE TABLE` and each DDL after it, or recovered from the schema history), the captured
tables' shapes made from it, and the priming of table map events with them (binlog.prime_columns).

A captured table the held schema has no columns of (its database was added to the filters after the
snapshot, or it was created LIKE / renamed from a table of a database not captured) gets them from its
`SHOW CREATE TABLE` when its first event comes, recorded in the history then, with a warning.

Where the server writes full row metadata (`binlog_row_metadata=FULL`), each table map event says the
table's columns at that event (table_map_columns.py): a cross-check of the parsed schema. Column names or
types other than those held fail the task, naming the table, the column and both views, instead of
decoding the rows with a schema the connector got wrong.

The reader thread primes table maps ahead (`prime_ahead`) as long as a schema is held and agrees; anything
else it leaves to the polling thread (`prime`), which alone changes what is held.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from connectworker.api.errors import ConnectError

from ..debezium.setup_errors import first_line
from .binlog import SchemaMismatchError, prime_columns
from .catalog import CatalogColumn, holds_database, show_create_table
from .ddl_parser import parse_statement
from .history import HistoryRecord, SchemaHistory
from .schema_state import SchemaState
from .settings import MySqlSettings
from .source import Position
from .table_map_columns import binlog_signature, table_map_columns
from .table_shape import MySqlTableShape
from .tables import TableId

log = logging.getLogger(__name__)

PRIMED = "connectworker_primed"  # set on a table map event the reader thread primed


class HeldSchemas:
    def __init__(self, settings: MySqlSettings, state: SchemaState, history: SchemaHistory) -> None:
        self._settings, self._history = settings, history
        self.state = state
        self._captured: dict[TableId, bool] = {}  # the table filters' answers (settings do not change)
        self._shapes: dict[TableId, MySqlTableShape] = {}
        self.catalog: Any = None  # the stream's connection to the server, while it streams
        self.topics_keyed: set[str] = set()

    def captures(self, database: str, table: str) -> bool:
        """settings.captures, remembered per table: asked for every table map and row event."""
        key = (database, table)
        captured = self._captured.get(key)
        if captured is None:  # the server's own databases never (as Debezium's table.ignore.builtin)
            captured = holds_database(self._settings, database) and self._settings.captures(database, table)
            self._captured[key] = captured
        return captured

    def shape(self, table: TableId, where: Position) -> MySqlTableShape:
        """The table's shape; a table with no schema held gets it from its `SHOW CREATE TABLE` now, recorded
        in the history at `where` (the open transaction's start, or the event's position)."""
        shape = self._shapes.get(table)
        if shape is None:
            if table not in self.state.tables:
                self._read_now(table, where)
            shape = self._make(table)
        return shape

    def _read_now(self, table: TableId, where: Position) -> None:
        import pymysql

        try:
            ddl = show_create_table(self.catalog, *table)
        except pymysql.err.ProgrammingError as exc:  # no such table (any more)
            raise ConnectError(
                f"The binlog has changes of {table[0]}.{table[1]} at {where.file}:{where.pos}, a table the connector "
                f"holds no schema of, and the server no longer has it to read one ({first_line(exc)}). Take a new "
                "snapshot: delete the connector's offsets and history topic (or start it with a new topic.prefix)."
            ) from None
        place = f"binlog position {where.file}:{where.pos} (read from the server for {table[0]}.{table[1]})"
        edits = parse_statement(ddl, table[0], place, skip_unparseable=False)
        changes = self.state.apply(edits or ())
        log.warning(
            "No schema held for %s.%s at %s:%d (its database was not captured when the schema was, or it was "
            "made from a table the connector does not hold): read from the server now and recorded; changes made "
            "to it before this position are decoded with it",
            *table,
            where.file,
            where.pos,
        )
        self._history.record(HistoryRecord(where, table[0], ddl, tuple(changes)))

    def forget(self, tables: Iterable[TableId | None]) -> None:
        """After a DDL: the shapes of the tables it changed are made again from the held schema."""
        for table in tables:
            if table is not None:
                self._shapes.pop(table, None)

    def prime_ahead(self, event: Any) -> bool:
        """The reader thread's: prime a table map event with the schema held for its table, when one is held
        and the event's own metadata (if any) agrees (the held schemas change only on the polling thread,
        and the reader waits for it there); False leaves it to `prime` on the polling thread."""
        table = (str(event.schema), str(event.table))
        if not self.captures(*table):
            return True
        shape = self._shapes.get(table)
        if shape is None:
            if table not in self.state.tables:
                return False
            shape = self._make(table)
        own = table_map_columns(event)
        if own is not None and _difference(own, shape.catalog) is not None:
            return False
        try:
            prime_columns(f"{table[0]}.{table[1]}", event.columns, shape.binlog_view)
        except SchemaMismatchError:
            return False  # raised on the polling thread, after the changes before it
        setattr(event, PRIMED, True)
        return True

    def prime(self, table: TableId, event: Any, where: Position) -> None:
        """Prime a table map event on the polling thread with the schema held for its table; where the event
        carries the server's full row metadata and it shows other columns, the task fails naming both."""
        shape = self.shape(table, where)
        own = table_map_columns(event)
        if own is not None:
            difference = _difference(own, shape.catalog)
            if difference is not None:
                raise SchemaMismatchError(
                    f"The binlog's table map of {table[0]}.{table[1]} at {where.file}:{where.pos} "
                    f"(binlog_row_metadata=FULL) gives {difference}. The schema the connector parsed from the DDL "
                    "is wrong for this table here: a DDL statement it skipped (schema.history.internal.skip."
                    "unparseable.ddl) or read wrongly, or a schema history rebuilt (snapshot.mode=recovery) after "
                    "the table was altered. Take a new snapshot: delete the connector's offsets and history topic "
                    "(or start it with a new topic.prefix); report a statement read wrongly."
                )
        prime_columns(f"{table[0]}.{table[1]}", event.columns, shape.binlog_view)

    def _make(self, table: TableId) -> MySqlTableShape:
        shape = self._shapes[table] = MySqlTableShape(self._settings, *table, self.state.tables[table].catalog())
        if shape.keyed:
            self.topics_keyed.add(shape.topic)
        return shape


def _difference(own: Sequence[CatalogColumn], held: Sequence[CatalogColumn]) -> str | None:
    """Where a table map's full metadata (`own`) and the held schema disagree on the columns' names or
    types: the first column that differs, with both views; None when they agree."""
    for index in range(max(len(own), len(held))):
        mine = own[index] if index < len(own) else None
        ours = held[index] if index < len(held) else None
        if (
            mine is None
            or ours is None
            or mine.name.lower() != ours.name.lower()
            or binlog_signature(mine.column_type) != binlog_signature(ours.column_type)
        ):
            return (
                f"column {index + 1} as {_view(mine)} where the schema held has {_view(ours)} (the binlog's columns: "
                f"{_views(own)}; the schema held: {_views(held)})"
            )
    return None


def _view(column: CatalogColumn | None) -> str:
    return f"{column.name} {column.column_type}" if column is not None else "no column"


def _views(columns: Sequence[CatalogColumn]) -> str:
    return ", ".join(_view(c) for c in columns) or "none"
