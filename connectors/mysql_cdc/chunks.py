"""An incremental snapshot's reads and writes on MySQL / MariaDB (debezium/incremental_snapshot.py's
`ChunkReader`), over a connection of its own in autocommit (each statement sees what is committed before it,
and each watermark is committed at once).

A chunk is `SELECT <kept columns> FROM t WHERE <after the last key> AND NOT <after the maximum key>
[AND (<condition>)] ORDER BY k… LIMIT <chunk size>`, a key's "after" written out column by column
(`(k1 > ?) OR (k1 = ? AND k2 > ?)`), as Debezium's MySQL connector writes it for MySQL's optimizer. The rows
and keys are the driver's values, as the snapshot reads them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from ..debezium.chunk_reader import ChunkQuery, read_max_key, watermark_statement
from ..debezium.table_shape import TableShape
from .database import connect
from .held_schemas import HeldSchemas
from .settings import MySqlSettings
from .snapshot import quote
from .source import Position, source_struct
from .table_shape import MySqlTableShape


class MySqlChunks:
    def __init__(self, settings: MySqlSettings, schemas: HeldSchemas, position: Callable[[], Position]) -> None:
        self._settings, self._schemas, self._position = settings, schemas, position
        self._connection: Any = None

    def _cursor(self) -> Any:
        if self._connection is None:
            s = self._settings
            self._connection = connect(s.host, s.port, s.user, s.password)
            self._connection.autocommit(True)
        return self._connection.cursor()

    def close(self) -> None:
        if self._connection is not None:
            try:
                self._connection.close()
            finally:
                self._connection = None

    def tables(self) -> Sequence[str]:
        settings = self._settings
        return [
            f"{d}.{t}"
            for d, t in self._schemas.state.tables
            if self._schemas.captures(d, t) and not settings.is_signal_table(d, t)
        ]

    def shape(self, table: str, fresh: bool = True) -> TableShape | None:
        """The shape the stream holds now (it follows the DDL)."""
        found = next(((d, t) for d, t in self._schemas.state.tables if f"{d}.{t}" == table), None)
        if found is None or not self._schemas.captures(*found):
            return None
        return self._schemas.shape(found, self._position())

    def max_key(self, shape: TableShape, columns: Sequence[str], condition: str | None) -> tuple[Any, ...] | None:
        with self._cursor() as cursor:
            return read_max_key(cursor, _table(shape), columns, condition, quote)

    def chunk(self, shape: TableShape, query: ChunkQuery) -> list[tuple[Any, tuple[Any, ...]]]:
        assert isinstance(shape, MySqlTableShape)
        with self._cursor() as cursor:
            return query.read(cursor, _table(shape), shape.column_names, quote, ExpandedBounds())

    def write_watermark(self, insert: bool, id: str, kind: str, data: str) -> None:
        with self._cursor() as cursor:
            cursor.execute(*watermark_statement(self._settings.signals.table, insert, id, kind, data, quote))

    def source(self, shape: TableShape) -> dict[str, Any]:
        """The stream's position (the close watermark's), as Debezium's MySQL connector writes it; `ts_ms` now."""
        settings = self._settings
        return source_struct(
            settings.connector_name,
            settings.topic_prefix,
            shape.namespace,
            shape.table,
            self._position(),
            time.time_ns() // 1000,
            "incremental",
            None,
        )


class ExpandedBounds:
    """A key compared column by column: `(k1 > ?) OR (k1 = ? AND k2 > ?)`, as Debezium writes it for MySQL's
    optimizer; at most a key is NOT greater than it."""

    def greater(self, columns: Sequence[str], values: Sequence[Any]) -> tuple[str, list[Any]]:
        terms, params = [], []
        for i, column in enumerate(columns):
            equal = [f"{quote(c)} = %s" for c in columns[:i]]
            terms.append("(" + " AND ".join([*equal, f"{quote(column)} > %s"]) + ")")
            params.extend([*values[:i], values[i]])
        return "(" + " OR ".join(terms) + ")", params

    def at_most(self, columns: Sequence[str], values: Sequence[Any]) -> tuple[str, list[Any]]:
        greater, params = self.greater(columns, values)
        return f"NOT {greater}", params


def _table(shape: TableShape) -> str:
    return f"{quote(shape.namespace)}.{quote(shape.table)}"
