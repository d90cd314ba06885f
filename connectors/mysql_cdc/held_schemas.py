"""The columns the binlog stream holds for each captured table at the position it reads, their shapes, and
the priming of table map events with them (binlog.prime_columns).

A table's columns come from the snapshot or the schema history (recovered at a restart), from
information_schema after a DDL (stream.BinlogStream._ddl), or, for a captured table nothing recorded, from
information_schema when its first event comes (recorded then). Where a table map event carries the
server's full row metadata (table_map_columns.py) and it gives other columns than those held, the held
ones were read after a later DDL: the event's are taken and recorded in the history at that position.

The reader thread primes table maps ahead (`prime_ahead`) as long as a schema is held and agrees; anything
else it leaves to the polling thread (`prime`), which alone changes what is held.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from .binlog import SchemaMismatchError, prime_columns
from .catalog import CatalogColumn, table_columns
from .ddl import TableId
from .history import HistoryRecord, SchemaHistory, TableChange
from .settings import MySqlSettings
from .source import Position
from .table_map_columns import table_map_columns
from .table_shape import TableShape

log = logging.getLogger(__name__)

PRIMED = "connectworker_primed"  # set on a table map event the reader thread primed


class HeldSchemas:
    def __init__(
        self, settings: MySqlSettings, held: dict[TableId, tuple[CatalogColumn, ...]], history: SchemaHistory
    ) -> None:
        self._settings, self._history = settings, history
        self.held = held
        self._captured: dict[TableId, bool] = {}  # the table filters' answers (settings do not change)
        self._shapes: dict[TableId, TableShape] = {}
        self.catalog: Any = None  # the stream's information_schema connection, while it streams
        self.topics_keyed: set[str] = set()

    def captures(self, database: str, table: str) -> bool:
        """settings.captures, remembered per table: asked for every table map and row event."""
        key = (database, table)
        captured = self._captured.get(key)
        if captured is None:
            captured = self._captured[key] = self._settings.captures(database, table)
        return captured

    def shape(self, table: TableId, where: Position) -> TableShape:
        """The table's shape; a table with no schema held gets its columns from information_schema now,
        recorded in the history at `where` (the open transaction's start, or the event's position)."""
        shape = self._shapes.get(table)
        if shape is None:
            columns = self.held.get(table)
            if columns is None:  # captured, but no DDL or snapshot recorded it (e.g. the history was lost)
                columns = tuple(table_columns(self.catalog, *table))
                log.warning(
                    "No schema held for %s.%s at %s:%d: read from information_schema now and recorded",
                    *table,
                    where.file,
                    where.pos,
                )
                self._history.record(HistoryRecord(where, table[0], "", (TableChange(*table, columns, "CREATE"),)))
                self.held[table] = columns
            shape = self._make(table, columns)
        return shape

    def replace(self, table: TableId, columns: tuple[CatalogColumn, ...] | None) -> None:
        """After a DDL: the table's columns from here (None: dropped)."""
        self._shapes.pop(table, None)
        if columns is None:
            self.held.pop(table, None)
        else:
            self.held[table] = columns

    def prime_ahead(self, event: Any) -> bool:
        """The reader thread's: prime a table map event with the schema held for its table, when one is held
        and the event's own metadata (if any) agrees (the held schemas change only on the polling thread,
        and the reader waits for it there); False leaves it to `prime` on the polling thread."""
        table = (str(event.schema), str(event.table))
        if not self.captures(*table):
            return True
        shape = self._shapes.get(table)
        if shape is None:
            columns = self.held.get(table)
            if columns is None:
                return False
            shape = self._make(table, columns)
        own = table_map_columns(event)
        if own is not None and not _fits(own, shape, event):
            return False
        prime_columns(f"{table[0]}.{table[1]}", event.columns, shape.binlog_view)
        setattr(event, PRIMED, True)
        return True

    def prime(self, table: TableId, event: Any, where: Position) -> None:
        """Prime a table map event on the polling thread: with the schema held for its table, or, where the
        event carries the server's full row metadata and it shows other columns, with those (recorded)."""
        shape = self.shape(table, where)
        own = table_map_columns(event)
        if own is not None and not _fits(own, shape, event):
            log.warning(
                "The binlog's own metadata gives %s.%s other columns at %s:%d (%s) than the connector held (%s): "
                "it read them after a later DDL; the binlog's are used from here and recorded in the schema history",
                *table,
                where.file,
                where.pos,
                ", ".join(c.name for c in own),
                ", ".join(c.name for c in shape.catalog),
            )
            self._history.record(HistoryRecord(where, table[0], "", (TableChange(*table, own, "ALTER"),)))
            self.replace(table, own)
            shape = self.shape(table, where)
        prime_columns(f"{table[0]}.{table[1]}", event.columns, shape.binlog_view)

    def _make(self, table: TableId, columns: Sequence[CatalogColumn]) -> TableShape:
        shape = self._shapes[table] = TableShape(self._settings, table[0], table[1], columns)
        if shape.keyed:
            self.topics_keyed.add(shape.topic)
        return shape


def _fits(own: Sequence[CatalogColumn], shape: TableShape, event: Any) -> bool:
    """Whether the schema held for a table is the one its table map event's full metadata (`own`) gives:
    the same column names in order, and types the event's columns take (primes them on the way)."""
    if [c.name for c in own] != [c.name for c in shape.catalog]:
        return False
    try:
        prime_columns(f"{shape.database}.{shape.table}", event.columns, shape.binlog_view)
    except SchemaMismatchError:
        return False
    return True
