"""An incremental snapshot's reads and writes on PostgreSQL (debezium/incremental_snapshot.py's
`ChunkReader`), over the stream's catalog connection (autocommit: each statement sees what is committed
before it, and each watermark is committed at once).

A chunk is `SELECT <every column> FROM t WHERE ROW(k…) > ROW(<last key>) AND ROW(k…) <= ROW(<maximum key>)
[AND (<condition>)] ORDER BY k… LIMIT <chunk size>` (row-value comparisons, as Debezium's PostgreSQL
connector writes them), every value read as its text, as pgoutput sends it: the keys kept in the offsets are
those texts, bound back with a cast to the column's type.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from ..debezium.chunk_reader import ChunkQuery, read_max_key, watermark_statement
from ..debezium.table_shape import TableShape
from .catalog_types import CatalogTypes, catalog_types
from .database import CatalogColumn, list_tables, quote
from .settings import CdcSettings
from .snapshot import table_shape, text_cursor
from .source import source_struct
from .table_shape import PostgresTableShape


class PostgresChunks:
    def __init__(self, settings: CdcSettings, connection: Callable[[], Any]) -> None:
        self._settings, self._connection = settings, connection
        self._shapes: dict[str, tuple[PostgresTableShape, list[CatalogColumn]]] = {}
        self._types: CatalogTypes | None = None

    def tables(self) -> Sequence[str]:
        return [f"{s}.{t}" for _, s, t in self._captured().values() if not self._settings.is_signal_table(s, t)]

    def _captured(self) -> dict[str, tuple[int, str, str]]:
        return {f"{s}.{t}": (relid, s, t) for relid, s, t in list_tables(self._connection(), self._settings)}

    def shape(self, table: str, fresh: bool = True) -> TableShape | None:
        """Read from the catalog at a table's start (`fresh`), as Debezium's PostgreSQL connector refreshes it;
        the same for its next chunks."""
        if not fresh and table in self._shapes:
            return self._shapes[table][0]
        found = self._captured().get(table)
        if found is None:
            self._shapes.pop(table, None)
            return None
        relid, schema, name = found
        connection = self._connection()
        self._types = catalog_types(connection)
        self._shapes[table] = table_shape(connection, self._settings, self._types, relid, schema, name)
        return self._shapes[table][0]

    def max_key(self, shape: TableShape, columns: Sequence[str], condition: str | None) -> tuple[Any, ...] | None:
        with text_cursor(self._connection(), self._catalog_types(), self._catalog(shape)) as cursor:
            return read_max_key(cursor, _table(shape), columns, condition, quote)

    def chunk(self, shape: TableShape, query: ChunkQuery) -> list[tuple[Any, tuple[Any, ...]]]:
        catalog = self._catalog(shape)
        bounds = RowBounds({c.name: c.type_name for c in catalog})
        with text_cursor(self._connection(), self._catalog_types(), catalog) as cursor:
            return query.read(cursor, _table(shape), [c.name for c in catalog], quote, bounds)

    def write_watermark(self, insert: bool, id: str, kind: str, data: str) -> None:
        with self._connection().cursor() as cursor:
            cursor.execute(*watermark_statement(self._settings.signals.table, insert, id, kind, data, quote))

    def source(self, shape: TableShape) -> dict[str, Any]:
        """As Debezium's PostgreSQL connector writes an incremental row's: no `txId`, `lsn` or `xmin`; `ts_ms` now."""
        return source_struct(
            self._settings,
            shape.namespace,
            shape.table,
            ts_us=time.time_ns() // 1000,
            snapshot="incremental",
            tx_id=None,
            lsn=None,
            sequence=None,
        )

    def _catalog_types(self) -> CatalogTypes:
        if self._types is None:
            self._types = catalog_types(self._connection())
        return self._types

    def _catalog(self, shape: TableShape) -> list[CatalogColumn]:
        return self._shapes[f"{shape.namespace}.{shape.table}"][1]


class RowBounds:
    """Row-value comparisons, `ROW(k1, k2) > ROW(…)`, each value its text cast to the column's type (keys are
    NOT NULL here, where PostgreSQL plans them well)."""

    def __init__(self, types: dict[str, str]) -> None:
        self._types = types

    def greater(self, columns: Sequence[str], values: Sequence[Any]) -> tuple[str, list[Any]]:
        return f"{self._row(columns)} > {self._values(columns)}", list(values)

    def at_most(self, columns: Sequence[str], values: Sequence[Any]) -> tuple[str, list[Any]]:
        return f"{self._row(columns)} <= {self._values(columns)}", list(values)

    @staticmethod
    def _row(columns: Sequence[str]) -> str:
        return f"ROW({', '.join(quote(c) for c in columns)})"

    def _values(self, columns: Sequence[str]) -> str:
        return f"ROW({', '.join(f'CAST(%s AS {self._types[c]})' for c in columns)})"


def _table(shape: TableShape) -> str:
    return f"{quote(shape.namespace)}.{quote(shape.table)}"
