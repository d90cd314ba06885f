"""Streaming a replication slot: pgoutput messages in, Debezium change records out.

Changes are handed on a transaction at a time where possible: the records of a transaction wait until
its Commit, and the last of them carries the transaction's end LSN as the offset's `lsn` (the point to
resume from). A transaction larger than a poll's `max.batch.size` is handed on in parts whose offsets
keep the previous transaction's end as `lsn`, so a restart re-reads the whole transaction (duplicates,
never a loss). The slot is told (a standby status update's flush LSN) only what the task's `commit()`
reports as committed to the offset store: PostgreSQL keeps the WAL until Kafka has the records.

A lost connection (the server restarted, the slot held by another client) is a `RetriableError`: the
worker backs off and polls again, and the next poll reconnects and restarts the stream from the end of
the last transaction handed on.
"""

from __future__ import annotations

import logging
import select
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from connectworker.api.errors import ConnectError, RetriableError
from connectworker.api.record import SourceRecord, SourceRecordBatch

from ..debezium.emitter import ChangeEmitter
from ..debezium.heartbeat import Heartbeats
from ..debezium.incremental_setup import incremental_snapshot
from ..debezium.pending import PendingRecords
from ..debezium.routes import Route
from ..debezium.setup_errors import first_line
from . import pgoutput as pg
from .catalog_types import catalog_types
from .chunks import PostgresChunks
from .database import connect, visible_table_columns
from .settings import CdcSettings
from .source import source_struct
from .table_shape import PostgresTableShape, shape_of

if TYPE_CHECKING:
    import psycopg2.extensions

log = logging.getLogger(__name__)

_INSERT, _UPDATE = 73, 85  # first bytes of pgoutput's Insert and Update messages
_MORE_S = 0.002  # how long a poll with records waits for more before returning them


def epoch_micros(moment: Any) -> int:
    return int(moment.timestamp() * 1_000_000)


class ChangeStream:
    def __init__(
        self,
        settings: CdcSettings,
        partition: dict[str, Any],
        resume_lsn: int,
        committed: Mapping[str, Any] | None = None,
    ) -> None:
        self._settings = settings
        self._partition = partition
        self._resume_lsn = resume_lsn  # the end of the last transaction handed on whole
        self._replication: psycopg2.extensions.connection | None = None
        self._catalog: psycopg2.extensions.connection | None = None
        self._cursor: Any = None
        self._shapes: dict[int, PostgresTableShape | None] = {}
        self._begin: pg.Begin | None = None
        self._begin_usec = 0
        self._sequence_head = ""  # the open transaction's `source.sequence` up to its change's own LSN
        self._serial = 0  # records of the current change so far (a delete and its tombstone: 2)
        # The change last committed mid-transaction: (txId, lsn_proc, event_serial_no). Its transaction comes
        # again whole on a restart; its records up to that one are skipped, so none comes twice.
        self._skip: tuple[int, int, int] | None = None
        if committed and committed.get("lsn_proc") is not None and committed.get("txId") is not None:
            self._skip = (int(committed["txId"]), int(committed["lsn_proc"]), int(committed.get("event_serial_no", 1)))
        self._open = PendingRecords()  # records of the open transaction not handed on yet
        self._ready = PendingRecords()
        self._emitter = ChangeEmitter(settings.skipped, settings.tombstones)
        self._offset: dict[str, Any] = {}  # the change being emitted's
        self._heartbeats = Heartbeats(settings)
        self._flush_lock = threading.Lock()
        self._to_flush = 0  # set by commit(), sent by the polling thread
        self._flushed = 0
        self.topics_keyed: set[str] = set()
        self.incremental = incremental_snapshot(settings, self._emitter, committed)

    # -- connection ----------------------------------------------------------------------------
    def _ensure_started(self) -> None:
        if self._cursor is not None:
            return
        import psycopg2

        try:
            self._catalog = connect(self._settings)
            self._catalog.autocommit = True  # each catalog look-up sees the newest committed DDL
            self._replication = connect(self._settings, replication=True)
            cursor = self._replication.cursor()
            cursor.start_replication(
                slot_name=self._settings.slot,
                decode=False,
                start_lsn=self._resume_lsn,
                options={"proto_version": "1", "publication_names": self._settings.publication},
            )
        except (psycopg2.Error, ConnectError) as exc:
            self.close()
            raise RetriableError(
                f"Cannot stream the replication slot {self._settings.slot!r} of "
                f"{self._settings.host}:{self._settings.port}: {first_line(exc)}"
            ) from None
        self._cursor = cursor
        if self.incremental is not None:
            self.incremental.reader = PostgresChunks(self._settings, lambda: self._catalog)
        self._shapes.clear()
        self._begin = None
        self._open.clear()
        log.info("Streaming slot %s from LSN %s", self._settings.slot, pg.format_lsn(self._resume_lsn))

    def close(self) -> None:
        if self.incremental is not None:
            self.incremental.close()  # a chunk being read on its thread lets go of the catalog connection first
        for connection in (self._replication, self._catalog):
            if connection is not None:
                try:
                    connection.close()
                except Exception as exc:  # closing a broken connection: nothing more to do with it
                    log.debug("Closing a PostgreSQL connection: %s", exc)
        self._replication = self._catalog = self._cursor = None

    # -- offsets -------------------------------------------------------------------------------
    def committed(self, offset: Any) -> None:
        """The offsets store has the records up to `offset` (any thread); the next poll tells the slot its
        `lsn`, the end of the last transaction Kafka has whole (a snapshot's offset tells it nothing)."""
        lsn = offset.get("lsn")
        if not lsn or offset.get("snapshot"):
            return
        with self._flush_lock:
            self._to_flush = max(self._to_flush, int(lsn))

    def _send_flush(self) -> None:
        with self._flush_lock:
            lsn = self._to_flush
        if lsn > self._flushed and self._cursor is not None:
            self._cursor.send_feedback(flush_lsn=lsn, force=True)
            self._flushed = lsn
            log.debug("Confirmed LSN %s to slot %s", pg.format_lsn(lsn), self._settings.slot)

    # -- reading -------------------------------------------------------------------------------
    def read(self, stopping: threading.Event) -> list[SourceRecord] | SourceRecordBatch:
        """The records available within `poll.interval.ms`, at most `max.batch.size` of them."""
        import psycopg2

        self._ensure_started()
        deadline = time.monotonic() + self._settings.poll_s
        max_batch, ready, handle = self._settings.max_batch, self._ready, self._handle
        read_message, socket = self._cursor.read_message, [self._cursor.connection.fileno()]
        try:
            self._send_flush()
            if self.incremental is not None:  # between transactions: sent at the last one's position
                self.incremental.act(self._emit_between)
            max_queue, pending = self._settings.max_queue, self._open
            while len(ready) < max_batch and len(pending) < max_queue and not stopping.is_set():
                message = read_message()
                if message is not None:
                    handle(message)
                    continue
                if ready:  # more may be on its way (a backlog): a short look before handing these on
                    if select.select(socket, [], [], _MORE_S)[0]:
                        continue
                    break
                self._heartbeat()
                if ready:
                    break
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                select.select(socket, [], [], min(left, 0.5))
        except psycopg2.Error as exc:
            self.close()
            raise RetriableError(
                f"The replication stream of slot {self._settings.slot!r} broke: {first_line(exc)}; reconnecting"
            ) from None
        if len(ready) < max_batch and len(self._open) >= max_batch:
            self._open.move_to(ready)  # a large transaction: handed on in parts (max.queue.size bounds it)
        return ready.take(max_batch, self._partition)

    def _handle(self, message: Any) -> None:
        payload = message.payload
        if payload[0] in pg.CHANGE_KINDS:
            relid, old, new = pg.decode_change(payload)
            shape = self._shapes.get(relid)
            if shape is not None:
                self._change(shape, payload[0], old, new, message.data_start)
            return
        decoded = pg.decode(payload)
        if isinstance(decoded, pg.Begin):
            self._begin = decoded
            self._begin_usec = epoch_micros(decoded.commit_time)
            # the resume point only moves between transactions: the sequence's head is the same for each change
            self._sequence_head = f'["{self._resume_lsn}","' if self._resume_lsn else '[null,"'
        elif isinstance(decoded, pg.Commit):
            if self._open:
                records = self._open.records
                offset, key, value, route = records[-1]
                records[-1] = ({**offset, "lsn": decoded.end_lsn}, key, value, route)
                self._open.move_to(self._ready)
            self._resume_lsn = decoded.end_lsn
            self._begin = None
            self._skip = None  # the committed transaction was passed (or is not coming again)
        elif isinstance(decoded, pg.Relation):
            self._shapes[decoded.relid] = self._shape(decoded)
        elif isinstance(decoded, pg.Truncate):
            self._serial = 0  # one message for every table the statement truncated: numbered as one change's
            for relid in decoded.relids:
                shape = self._shapes.get(relid)
                if shape is not None and not self._emitter.truncated(
                    self._emit, shape, self._where(shape, message.data_start)
                ):
                    log.info(
                        "TRUNCATE of %s.%s not sent (skipped.operations has t, its default)",
                        shape.namespace,
                        shape.table,
                    )

    def _shape(self, relation: pg.Relation) -> PostgresTableShape | None:
        if not self._settings.captures(relation.namespace, relation.name):
            return None
        assert self._catalog is not None
        catalog = visible_table_columns(self._catalog, relation.relid, {c.name for c in relation.columns})
        shape = shape_of(
            self._settings,
            relation.namespace,
            relation.name,
            [(c.name, c.type_oid, c.type_modifier) for c in relation.columns],
            catalog,
            catalog_types(self._catalog),
            self._settings.types,
        )
        if shape.keyed:
            self.topics_keyed.add(shape.topic)
        return shape

    def _where(self, shape: PostgresTableShape, lsn: int) -> dict[str, Any]:
        """The `source` of an event at `lsn` in the open transaction; sets its offset for `_emit`. The events of
        one message share its LSN: `_emit` numbers them (`event_serial_no`) from where the caller reset
        `_serial`, so that a restart skips exactly those committed before it."""
        begin = self._begin
        if begin is None:
            raise ConnectError(f"pgoutput sent a change at LSN {pg.format_lsn(lsn)} outside a transaction")
        ts_usec = self._begin_usec
        self._offset = {"lsn": self._resume_lsn, "lsn_proc": lsn, "txId": begin.xid, "ts_usec": ts_usec}
        return source_struct(
            self._settings,
            shape.namespace,
            shape.table,
            ts_us=ts_usec,
            snapshot="false",
            tx_id=begin.xid,
            lsn=lsn,
            sequence=f'{self._sequence_head}{lsn}"]',
        )

    def _change(
        self, shape: PostgresTableShape, kind: int, old: pg.Tuple | None, new: pg.Tuple | None, lsn: int
    ) -> None:
        """The records of one change: `kind` is the message's first byte, `old` and `new` its tuples."""
        source = self._where(shape, lsn)
        self._serial = 0
        if kind == _INSERT:
            self._emitter.created(self._emit, shape, new, source)
        elif kind == _UPDATE:
            self._emitter.updated(self._emit, shape, old, new, source)
        else:
            self._emitter.deleted(self._emit, shape, old, source)

    def _emit(self, route: Route, key: Any, value: Any, last: bool) -> None:
        self._serial += 1
        serial, skip, offset = self._serial, self._skip, self._offset
        if skip is not None and skip[0] == offset["txId"] and (offset["lsn_proc"], serial) <= skip[1:]:
            return  # committed before a restart: sent already
        if self.incremental is not None and self.incremental.active:
            offset = {**offset, "event_serial_no": serial, **self.incremental.offset_state()}
        elif serial > 1:
            offset = {**offset, "event_serial_no": serial}
        self._open.records.append((offset, key, value, route))

    def _emit_between(self, route: Route, key: Any, value: Any, last: bool) -> None:
        self._ready.records.append((self.position(), key, value, route))

    def position(self) -> dict[str, Any]:
        """The offset of a record sent between transactions: the end of the last transaction handed on."""
        offset: dict[str, Any] = {"lsn": self._resume_lsn, "ts_usec": int(time.time() * 1_000_000)}
        if self.incremental is not None:
            offset.update(self.incremental.offset_state())
        return offset

    def _heartbeat(self) -> None:
        """With heartbeat.interval.ms, a record carrying the current position, so the slot advances
        while no captured table changes."""
        if self._open or self._begin is not None or not self._heartbeats.due():
            return
        lsn = max(self._resume_lsn, int(getattr(self._cursor, "wal_end", 0) or 0))
        self._resume_lsn = lsn
        offset: dict[str, Any] = {"lsn": lsn, "ts_usec": int(time.time() * 1_000_000)}
        if self.incremental is not None:
            offset.update(self.incremental.offset_state())
        self._ready.records.append(self._heartbeats.record(offset))
