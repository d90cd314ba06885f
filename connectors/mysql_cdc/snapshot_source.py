"""The snapshot's rows as the coordinator reads them (its `SnapshotSource`): each captured table's rows from
the consistent snapshot's transaction (snapshot.py), `max.batch.size` at a time, after the schema change
events of the tables' `CREATE TABLE`s (sent ahead of the rows, with include.schema.changes).

Its records' offsets hold the snapshot's binlog position with `snapshot: true`; the last one's
`snapshot_completed: true` says it is complete (with no row at all, the last schema change event's does)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

from connectworker.api.record import SourceRecord

from ..debezium.table_shape import TableShape
from .database import connect
from .settings import MySqlSettings
from .snapshot import end_snapshot, table_rows
from .source import Position, snapshot_offset, source_struct
from .table_shape import MySqlTableShape

log = logging.getLogger(__name__)


class BinlogSnapshot:
    def __init__(
        self,
        settings: MySqlSettings,
        connection: Any,
        shapes: list[MySqlTableShape],
        position: Position,
        started_us: int,
        schema_changes: list[SourceRecord],
    ) -> None:
        self._settings, self._connection, self._position = settings, connection, position
        self._started_us = started_us
        self._ahead = schema_changes
        self._batches = self._read(shapes)

    def records_ahead(self) -> list[SourceRecord]:
        out, self._ahead = self._ahead, []
        return out

    def next_batch(self) -> tuple[MySqlTableShape, list[list[Any]]] | None:
        return next(self._batches, None)

    def _read(self, shapes: list[MySqlTableShape]) -> Iterator[tuple[MySqlTableShape, list[list[Any]]]]:
        for shape in shapes:
            rows = table_rows(
                self._connection, shape.database, shape.table, shape.column_names, self._settings.max_batch
            )
            for batch in rows:
                yield shape, batch
            log.info("Snapshot of %s.%s done", shape.database, shape.table)

    def offset(self, *, completed: bool) -> dict[str, Any]:
        return snapshot_offset(self._position, completed=completed)

    def source(self, shape: TableShape) -> dict[str, Any]:
        return snapshot_source(self._settings, self._position, self._started_us, shape.namespace, shape.table)

    def close(self) -> None:
        """Ends the snapshot's transaction and closes its connection (at the end, or on a stop mid-snapshot)."""
        connection, self._connection = self._connection, None
        if connection is None:
            return
        try:
            end_snapshot(connection)
            connection.close()
        except Exception as exc:  # a broken connection (the stop came mid-read): nothing more to do with it
            log.debug("Closing the snapshot connection: %s", exc)


class BlockingBinlogSnapshot(BinlogSnapshot):
    """A blocking snapshot's reads (a signal's `execute-snapshot` of type `blocking`): the tables as they are
    now, in one consistent-snapshot transaction, while the stream waits; its records carry the stream's
    offset, as Debezium's reuse it, so a restart streams on from there and does not take it again."""

    def __init__(
        self, settings: MySqlSettings, shapes: list[MySqlTableShape], position: Position, offset: dict[str, Any]
    ) -> None:
        connection = connect(settings.host, settings.port, settings.user, settings.password)
        with connection.cursor() as cursor:
            cursor.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cursor.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY")
        super().__init__(settings, connection, shapes, position, time.time_ns() // 1000, [])
        self._stream_offset = offset

    def offset(self, *, completed: bool) -> dict[str, Any]:
        return dict(self._stream_offset)


def snapshot_source(
    settings: MySqlSettings, position: Position, started_us: int, database: str, table: str
) -> dict[str, Any]:
    """The `source` block of a snapshot's record of `database.table` (`snapshot` "true"; the markers set it)."""
    return source_struct(
        settings.connector_name, settings.topic_prefix, database, table, position, started_us, "true", None
    )
