"""The initial snapshot: every captured table read in one transaction that sees the database exactly as
the replication slot's starting point does.

The slot is created with an exported snapshot (`CREATE_REPLICATION_SLOT ... LOGICAL pgoutput` exports one
by default); a REPEATABLE READ transaction imports it (`SET TRANSACTION SNAPSHOT`), so the rows read are
the state as of the slot's consistent point and the stream carries every change after it: nothing is read
twice and nothing is missed. Rows are read through a server-side cursor, `max.batch.size` at a time, each
value in its text form (a typecaster per column type that returns the text), as pgoutput sends them.
The typecaster is the cursor's own: registered on the shared connection, it turned the next table's
catalog query (type modifiers, nullability, key flags) into text, and rows into zeros and empty strings.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from connectworker.api.record import SourceRecord

from ..debezium.table_shape import TableShape
from .catalog_types import CatalogTypes, catalog_types
from .database import CatalogColumn, connect, list_tables, quote, table_columns
from .settings import CdcSettings
from .source import source_struct
from .table_shape import PostgresTableShape, shape_of

if TYPE_CHECKING:
    import psycopg2.extensions

log = logging.getLogger(__name__)


class SnapshotReader:
    """Reads the captured tables of an exported snapshot, a batch of rows at a time (the coordinator's
    `SnapshotSource`). Its records' offsets hold the slot's consistent point (`lsn`), where streaming
    starts, and `snapshot: true`; the last one's `last_snapshot_record: true` says it is complete."""

    def __init__(
        self,
        settings: CdcSettings,
        snapshot_name: str | None,
        lsn: int,
        started_us: int,
        only: Collection[str] | None = None,
    ) -> None:
        """`snapshot_name`: the slot's exported snapshot to read (None: the database as it is now, for a
        blocking snapshot); `only`: the tables to read ("schema.table"), else every captured one."""
        self._settings = settings
        self._lsn, self._started_us = lsn, started_us
        self._connection: psycopg2.extensions.connection = connect(settings)
        self._connection.autocommit = False
        self._connection.set_session(isolation_level="REPEATABLE READ", readonly=True)
        if snapshot_name is not None:
            with self._connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION SNAPSHOT %s", (snapshot_name,))
        self.tables = [
            t
            for t in list_tables(self._connection, settings)
            if not settings.is_signal_table(*t[1:]) and (only is None or f"{t[1]}.{t[2]}" in only)
        ]
        self._types = catalog_types(self._connection)
        self._batches = self._read()
        log.info(
            "Snapshot of %d table(s): %s", len(self.tables), ", ".join(f"{s}.{t}" for _, s, t in self.tables) or "none"
        )

    def records_ahead(self) -> list[SourceRecord]:
        return []

    def next_batch(self) -> tuple[PostgresTableShape, list[list[Any]]] | None:
        """The next rows (as text tuples in the shape's column order) of the table being read; None at the end."""
        return next(self._batches, None)

    def offset(self, *, completed: bool) -> dict[str, Any]:
        return {
            "lsn": self._lsn,
            "txId": None,
            "ts_usec": self._started_us,
            "snapshot": True,
            "last_snapshot_record": completed,
        }

    def source(self, shape: TableShape) -> dict[str, Any]:
        return source_struct(
            self._settings,
            shape.namespace,
            shape.table,
            ts_us=self._started_us,
            snapshot="true",
            tx_id=None,
            lsn=self._lsn,
            sequence=None,
        )

    def _read(self) -> Iterator[tuple[PostgresTableShape, list[list[Any]]]]:
        for number, (relid, schema, table) in enumerate(self.tables):
            shape, catalog = table_shape(self._connection, self._settings, self._types, relid, schema, table)
            columns = ", ".join(quote(c.name) for c in catalog) or "NULL"
            with text_cursor(self._connection, self._types, catalog, f"cdc_snapshot_{number}") as cursor:
                cursor.itersize = self._settings.max_batch
                cursor.execute(f"SELECT {columns} FROM {quote(schema)}.{quote(table)}")
                while True:
                    rows = cursor.fetchmany(self._settings.max_batch)
                    if not rows:
                        break
                    yield shape, [list(row) for row in rows]
            log.info("Snapshot of %s.%s done", schema, table)

    def close(self) -> None:
        try:
            self._connection.rollback()
        finally:
            self._connection.close()


def _text(value: str | None, cursor: Any) -> str | None:
    return value


class BlockingSnapshotReader(SnapshotReader):
    """A blocking snapshot's reads (a signal's `execute-snapshot` of type `blocking`): the tables as they are
    now, while the stream waits; its records carry the stream's position, as Debezium's reuse the streaming
    offset, so a restart streams on from there and does not take the snapshot again."""

    def __init__(self, settings: CdcSettings, tables: Collection[str], offset: dict[str, Any]) -> None:
        self._stream_offset = offset
        super().__init__(settings, None, int(offset.get("lsn") or 0), int(time.time_ns() // 1000), tables)

    def offset(self, *, completed: bool) -> dict[str, Any]:
        return dict(self._stream_offset)


def table_shape(
    connection: Any, settings: CdcSettings, types: CatalogTypes, relid: int, schema: str, table: str
) -> tuple[PostgresTableShape, list[CatalogColumn]]:
    """A table's shape from the catalog, and its columns in the order a `SELECT` of them all gives them."""
    catalog = table_columns(connection, relid)
    names = [(c.name, c.type_oid, c.type_modifier) for c in catalog]
    return shape_of(settings, schema, table, names, catalog, types, settings.types), catalog


def text_cursor(connection: Any, types: CatalogTypes, catalog: Sequence[CatalogColumn], name: str | None = None) -> Any:
    """A cursor (server-side when `name` is given) that reads the values of `catalog`'s columns as their text,
    as pgoutput sends them. A domain's values come as its base type's (RowDescription names the base type):
    both are read as text. The typecaster is the cursor's own: on the connection, a catalog query would
    read text too."""
    import psycopg2.extensions

    cursor = connection.cursor(name=name) if name else connection.cursor()
    oids = tuple({c.type_oid for c in catalog} | {types.base(c.type_oid, -1)[0] for c in catalog})
    if oids:
        raw = psycopg2.extensions.new_type(oids, f"CDC_TEXT_{name or 'chunk'}", _text)
        psycopg2.extensions.register_type(raw, cursor)
    return cursor
