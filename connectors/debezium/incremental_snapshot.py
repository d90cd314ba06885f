"""Incremental snapshots, as Debezium's (DDD-3, `AbstractIncrementalSnapshotChangeEventSource`): a table
read again in chunks of its key while its changes keep streaming, in both CDC connectors.

A chunk is read between two watermarks written to the signal table (`signal.data.collection`): INSERT the
open one, SELECT the rows after the last key sent up to the table's maximum key at its start, INSERT the
close one (`insert_delete`: DELETE the open one). They come back through the stream like any change; in
between, each streamed change of the table removes its row from the chunk (the stream's copy is newer). At
the close the chunk's rows are sent (`op: r`, `source.snapshot: incremental`) and the next chunk is read.
A table ends when a chunk comes back empty; the snapshot when its last table does.

While one runs every offset carries its state (snapshot_offsets.py), so a restart reads on after the last
row Kafka has; a stale watermark replayed by the stream is ignored (its chunk id is not the current one).
The database supplies a `ChunkReader` (chunk_reader.py); the stream calls `seen` for each change it emits
and `act` between transactions, and merges `offset_state()` into its offsets.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .chunk_fetch import ChunkFetch, Watermark, watermark_error, window_watermarks
from .chunk_reader import ChunkQuery, ChunkReader, Rows, chunk_columns
from .emitter import Sink
from .envelope import envelope
from .setup_errors import first_line
from .signal_types import Notification, Signal, SnapshotProgress
from .snapshot_offsets import (
    KAFKA_POSITION,
    StateOffsets,
    array_key,
    joined_key,
    state_from_offset,
)
from .snapshot_requests import CLOSE, OPEN, Collection, expand, signal_data, signal_from_row, snapshot_request
from .snapshot_window import SnapshotWindow
from .table_shape import TableShape

log = logging.getLogger(__name__)

AGGREGATE = "Incremental Snapshot"


Notify = Callable[[Sink, Notification], None]


@dataclass
class IncrementalSnapshot:
    """The state of the incremental snapshots of one connector and what moves it on."""

    connector_name: str  # topic.prefix
    signal_table: str  # "<namespace>.<table>"
    chunk_size: int = 1024
    insert_delete: bool = False  # incremental.snapshot.watermarking.strategy=insert_delete
    notify: Notify = field(default=lambda sink, notification: None)
    queue: list[Collection] = field(default_factory=list)
    sent_key: tuple[Any, ...] | None = None  # the chunking key of the last row sent: a restart reads after it
    max_key: tuple[Any, ...] | None = None
    correlation_id: str | None = None
    paused: bool = False
    stop_requested: list[str] | None = None
    _window: SnapshotWindow = field(default_factory=SnapshotWindow)
    _chunk_end: tuple[Any, ...] | None = None  # the last key read (the next chunk starts after it)
    fetch_ahead: bool = True  # a table's chunks after its first read by a ChunkFetch (False: by the task)
    _rows_scanned: dict[str, int] = field(default_factory=dict)
    _table_from: tuple[Any, ...] | None = None
    blocking: list[Collection] | None = None  # a blocking snapshot asked for, for the coordinator
    resume_on_start: bool = False
    reader: ChunkReader | None = None  # set once the stream is connected
    positions: dict[str, Any] = field(default_factory=dict)  # the signal channels' (signal_kafka_offset)
    signals: list[Signal] = field(default_factory=list)  # of the other channels than the signal table: for `act`
    _state: StateOffsets = field(default_factory=StateOffsets)

    # -- the offsets ---------------------------------------------------------------------------------
    @property
    def active(self) -> bool:
        """Whether a snapshot is queued, or a signal channel has a position: its state goes into every offset."""
        return bool(self.queue) or bool(self.positions)

    def offset_state(self) -> dict[str, Any]:
        """The state each offset carries now, to merge into it (not to keep: it changes)."""
        if not self.queue:
            return dict(self.positions)
        return self._state.of(self.queue, self.positions, self.sent_key, self.max_key, self.correlation_id)

    def restore(self, offset: Mapping[str, Any] | None) -> None:
        """The state a committed offset holds; the next `resume` reads on after its last row sent."""
        if offset and isinstance(offset.get(KAFKA_POSITION), int):
            self.positions[KAFKA_POSITION] = offset[KAFKA_POSITION]
        state = state_from_offset(offset)
        if state is None:
            log.info("No incremental snapshot in progress, no action needed on start")
            return
        self.queue, self.sent_key, self.max_key, self.correlation_id = state
        self._chunk_end, self.resume_on_start = self.sent_key, True
        log.info(
            "Incremental snapshot of %s in progress, reading a new chunk on start (after key %s)",
            ", ".join(c.id for c in self.queue),
            self.sent_key,
        )

    # -- the stream's hooks --------------------------------------------------------------------------
    def is_signal_table(self, shape: TableShape) -> bool:
        return bool(self.signal_table) and f"{shape.namespace}.{shape.table}" == self.signal_table

    def seen(
        self, sink: Sink, shape: TableShape, op: str, row: dict[str, Any] | None, key: dict[str, Any] | None
    ) -> None:
        """A change the stream is about to emit (`row`: its after, or its before for a delete): a signal of
        the signal table is acted on; another table's change removes its row from an open window."""
        if self.is_signal_table(shape):
            if row is not None and (op == "c" or (op == "d" and self.insert_delete)):
                signal = signal_from_row(op, row)
                if signal is not None:
                    self.signal(sink, signal)
            return
        current = self.queue[0].id if self.queue else None
        if key is not None and f"{shape.namespace}.{shape.table}" == current:
            self._window.changed(key)  # the streamed change wins over the chunk's copy, read or still coming

    def act(self, sink: Sink) -> None:
        """Between two transactions of the stream: a snapshot in progress at the start read on, and the
        signals the other channels brought (`signals`) acted on."""
        fetch = self._window.fetch
        failure = fetch.failure() if fetch is not None else None
        if failure is not None:
            raise watermark_error(self.signal_table, self.insert_delete, failure)
        self.resume(sink)
        while self.signals:
            self.signal(sink, self.signals.pop(0))

    def resume(self, sink: Sink) -> None:
        """After a restart with a snapshot in progress: read the chunk after the last row Kafka has."""
        if self.resume_on_start:
            self.resume_on_start = False
            self._read_chunk(sink)

    # -- signals -------------------------------------------------------------------------------------
    def signal(self, sink: Sink, signal: Signal) -> None:
        """Acts on a signal (any channel). A malformed one is logged with its id and skipped: never raised."""
        handlers: dict[str, Callable[[Sink, Signal, dict[str, Any]], None]] = {
            "execute-snapshot": self._execute,
            "stop-snapshot": self._stop,
            "pause-snapshot": self._pause,
            "resume-snapshot": self._resume,
            "log": self._log,
            OPEN: self._open_window,
            CLOSE: self._close_window,
        }
        if signal.channel == "kafka" and isinstance(signal.position, int):
            self.positions[KAFKA_POSITION] = signal.position  # acted on: not again after a restart
        handler = handlers.get(signal.type)
        if handler is None:
            log.warning("Signal '%s' has been received but the type '%s' is not recognized", signal.id, signal.type)
            return
        data = signal_data(signal)
        if data is not None:
            handler(sink, signal, data)

    def _execute(self, sink: Sink, signal: Signal, data: dict[str, Any]) -> None:
        request = snapshot_request(signal, data, self.reader.tables() if self.reader is not None else ())
        if request is None:
            return
        kind, collections, conditions = request
        if kind == "blocking":
            if conditions:
                log.warning(
                    "Signal '%s': the additional-conditions of a blocking snapshot are not implemented (Debezium "
                    "reads them as whole SELECT statements): every row of the tables is read",
                    signal.id,
                )
            self.blocking = collections
            return
        if not self.signal_table:
            log.warning(
                "Signal '%s' asks for an incremental snapshot, but there is no signal table to write its watermarks "
                "to: set signal.data.collection",
                signal.id,
            )
            return
        starts = not self.queue
        self.queue.extend(collections)
        self.correlation_id = signal.id
        if starts and self.queue:
            self._notify(sink, "STARTED", data_collections=self._names())
            self._read_chunk(sink)

    def _stop(self, sink: Sink, signal: Signal, data: dict[str, Any]) -> None:
        patterns = data.get("data-collections") or [".*"]
        if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
            log.warning("Stop snapshot signal '%s' contains a non-string data collection: skipped", signal.id)
            return
        if not self.queue:
            log.info("Stop snapshot signal '%s': no incremental snapshot is running", signal.id)
            return
        self.stop_requested = [*(self.stop_requested or []), *patterns]
        log.info("Requested stop of incremental snapshot for data collections '%s'", patterns)
        if self._window.chunk_id is None:  # paused, or between windows: stop now
            self._process_stop(sink)

    def _pause(self, sink: Sink, signal: Signal, data: dict[str, Any]) -> None:
        if self.queue and not self.paused:
            self.paused = True
            log.info("Incremental snapshot paused")
            self._notify(sink, "PAUSED", data_collections=self._names())

    def _resume(self, sink: Sink, signal: Signal, data: dict[str, Any]) -> None:
        if self.queue and self.paused:
            self.paused = False
            log.info("Incremental snapshot resumed")
            self._notify(sink, "RESUMED", data_collections=self._names())
            if self._window.chunk_id is None:  # no window in flight: the next chunk now
                self._read_chunk(sink)

    def _log(self, sink: Sink, signal: Signal, data: dict[str, Any]) -> None:
        message = data.get("message")
        if message is None:
            log.warning("Logging signal '%s' has arrived but the requested field 'message' is missing from data", data)
            return
        log.info(str(message).replace("{}", json.dumps(self.offset_state() or {}), 1))

    def _open_window(self, sink: Sink, signal: Signal, data: dict[str, Any]) -> None:
        if not self._window.carries(signal.id):
            log.info("Received request to open window %s, expected %s: ignored", signal.id, self._window.chunk_id)
            return
        self._window.open = True

    def _close_window(self, sink: Sink, signal: Signal, data: dict[str, Any]) -> None:
        if not self._window.carries(signal.id):
            log.info("Received request to close window %s, expected %s: ignored", signal.id, self._window.chunk_id)
            return
        fetch = self._window.end()
        if fetch is not None:  # its thread wrote the close watermark the stream just brought back
            rows = fetch.result()
            failure = fetch.failure()
            if failure is not None:
                raise watermark_error(self.signal_table, self.insert_delete, failure)
            self._take_rows(sink, fetch.shape, self.queue[0], rows)
        self._send_window(sink)
        self._read_chunk(sink)

    def close(self) -> None:
        """The task stops (the stream calls it before closing its connections)."""
        self._window.close()

    # -- the chunks ----------------------------------------------------------------------------------
    def _read_chunk(self, sink: Sink) -> None:
        """Opens a window, reads the next chunk into the buffer, closes the window (the watermarks): a table's
        next chunk on a thread of its own (`ChunkFetch`), its first one (and the tables it skips) here."""
        self._process_stop(sink)
        if not self.queue or self.reader is None:
            return
        if self.paused:
            log.info("Incremental snapshot is paused: no chunk read")
            return
        chunk_id = self._window.begin()
        opening, closing = window_watermarks(chunk_id, self.correlation_id, self.queue[0].id, self.insert_delete)
        if self._fetch_next(opening, closing):
            return
        self._watermark(opening)
        while self.queue:
            collection = self.queue[0]
            shape = self.reader.shape(collection.id, fresh=self.max_key is None)
            columns = chunk_columns(shape, collection)
            if isinstance(columns, tuple):
                log.warning("Incremental snapshot for table '%s' skipped because %s", collection.id, columns[1])
                self._next_table(sink, columns[0])
                continue
            assert shape is not None
            try:
                rows: Rows | Exception | None = self._read_rows(shape, columns, collection)
            except Exception as exc:  # a bad condition or surrogate key: the table is skipped, the stream goes on
                rows = exc
            if self._take_rows(sink, shape, collection, rows):
                break
        self._watermark(closing())

    def _fetch_next(self, opening: Watermark, closing: Callable[[], Watermark]) -> bool:
        """A table's next chunk (its first was read: its shape and maximum key are known) read by a `ChunkFetch`,
        its rows taken at the close (`_close_window`); False: the task reads this one itself."""
        if not self.fetch_ahead or self.max_key is None or self.reader is None:
            return False
        collection = self.queue[0]
        shape = self.reader.shape(collection.id, fresh=False)
        columns = chunk_columns(shape, collection)
        if shape is None or isinstance(columns, tuple):
            return False
        query = ChunkQuery(columns, self._chunk_end, self.max_key, collection.condition, self.chunk_size)
        self._window.read_on_thread(ChunkFetch(self.reader, shape, query, opening, closing))
        return True

    def _take_rows(self, sink: Sink, shape: TableShape, collection: Collection, rows: Rows | Exception | None) -> bool:
        """A chunk read (None: the table is empty; an exception: its SELECT failed) into the window's buffer: True;
        False when its table is done (or skipped) instead."""
        if isinstance(rows, Exception):
            log.warning(
                "Snapshotting of table %s failed, skipping it (correlation id %s): %s",
                collection.id,
                collection.correlation_id,
                first_line(rows),
            )
            self._next_table(sink, "SQL_EXCEPTION")
            return False
        if not rows:
            log.info(
                "Incremental snapshot of table '%s' finished%s",
                collection.id,
                ": the table is empty" if rows is None else "",
            )
            self._next_table(sink, "EMPTY" if rows is None else "SUCCEEDED")
            return False
        self._buffer_rows(sink, shape, collection, rows)
        return True

    def _buffer_rows(self, sink: Sink, shape: TableShape, collection: Collection, rows: Rows) -> None:
        """A chunk's rows into the window's buffer, but those the stream changed since the window opened."""
        if self._table_from is None:
            self._table_from = rows[0][1]
        self._window.keep(shape, rows)
        self._chunk_end = rows[-1][1]
        self._rows_scanned[collection.id] = self._rows_scanned.get(collection.id, 0) + len(rows)
        self._notify(
            sink,
            "IN_PROGRESS",
            data_collections=self._names(),
            current_collection_in_progress=collection.id,
            maximum_key=joined_key(self.max_key),
            last_processed_key=joined_key(self._chunk_end),
        )

    def _read_rows(self, shape: TableShape, columns: Sequence[str], collection: Collection) -> Rows | None:
        """The next chunk's rows (none: the table is done); None: the table is empty."""
        assert self.reader is not None
        if self.max_key is None:
            self.max_key = self.reader.max_key(shape, columns, collection.condition)
            if self.max_key is None:
                return None
            log.info("Incremental snapshot for table '%s' will end at position %s", collection.id, self.max_key)
        query = ChunkQuery(columns, self._chunk_end, self.max_key, collection.condition, self.chunk_size)
        return self.reader.chunk(shape, query)

    def _watermark(self, watermark: Watermark) -> None:
        """A watermark written, or the task fails naming what the connector's user lacks: without them no chunk
        can be read, and a snapshot left half way would look like one still running."""
        assert self.reader is not None
        try:
            self.reader.write_watermark(*watermark)
        except Exception as exc:
            raise watermark_error(self.signal_table, self.insert_delete, exc) from None

    def _send_window(self, sink: Sink) -> None:
        """The buffer's rows, as read (`op: r`) records: each one's offset names its own key."""
        rows = self._window.rows
        if not rows or self.reader is None:
            return
        now = time.time_ns()
        sources: dict[int, dict[str, Any]] = {}
        for shape, row, key, chunk_key in rows.values():
            if id(shape) not in sources:
                sources[id(shape)] = {**self.reader.source(shape), "snapshot": "incremental"}
            self.sent_key = chunk_key
            sink(shape.route, key, envelope(None, row, sources[id(shape)], "r", now), False)
        rows.clear()
        self.sent_key = self._chunk_end

    def _next_table(self, sink: Sink, status: str) -> None:
        done = self.queue[0]
        self._notify(
            sink,
            "TABLE_SCAN_COMPLETED",
            data_collections=self._names(),
            scanned_collection=done.id,
            total_rows_scanned=str(self._rows_scanned.get(done.id, 0)),
            status=status,
        )
        self._forget_table()
        if not self.queue:
            log.info("Incremental snapshot completed")
            self._notify(sink, "COMPLETED")
            self.correlation_id = None
            self.paused = False

    def _forget_table(self) -> None:
        """The table at the queue's head is done with: the next one starts from its first key."""
        self.queue.pop(0)
        self.max_key = self.sent_key = self._chunk_end = self._table_from = None
        self._window.rows.clear()

    def _process_stop(self, sink: Sink) -> None:
        patterns, self.stop_requested = self.stop_requested, None
        if not patterns or not self.queue:
            return
        names = expand(patterns, [c.id for c in self.queue], case_sensitive=True)
        stopped = [c.id for c in self.queue if c.id in names]
        current = self.queue[0].id
        self.queue = [c for c in self.queue if c.id not in names or c.id == current]
        if current in names:
            self._forget_table()
            if not self.queue:
                self.correlation_id, self.paused = None, False
        log.info("Removed collections from incremental snapshot: '%s'", stopped)
        self._notify(sink, "ABORTED", data_collections=",".join(stopped))

    # -- what operators see --------------------------------------------------------------------------
    def progress(self) -> SnapshotProgress | None:
        if not self.queue:
            return None
        current = self.queue[0].id
        return SnapshotProgress(
            kind="incremental",
            running=True,
            paused=self.paused,
            table=current,
            tables_remaining=len(self.queue),
            total_tables=len(self.queue) + sum(1 for t in self._rows_scanned if t not in {c.id for c in self.queue}),
            chunk_id=self._window.chunk_id,
            chunk_from=array_key(self.sent_key),
            chunk_to=array_key(self._chunk_end),
            table_from=array_key(self._table_from),
            table_to=array_key(self.max_key),
            rows_scanned=dict(self._rows_scanned),
            rows_sent=self._rows_scanned.get(current, 0) - len(self._window.rows),
        )

    # -- helpers -------------------------------------------------------------------------------------
    def _names(self) -> str:
        return ",".join(c.id for c in self.queue)

    def _notify(self, sink: Sink, kind: str, **data: str) -> None:
        notification = Notification(
            self.correlation_id or str(uuid.uuid4()),
            AGGREGATE,
            kind,
            {"connector_name": self.connector_name, **data},
            int(time.time() * 1000),
        )
        self.notify(sink, notification)
