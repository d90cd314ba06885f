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
from typing import TYPE_CHECKING, Any

from connectworker.api.errors import ConnectError, RetriableError
from connectworker.api.record import SourceRecord, SourceRecordBatch
from connectworker.api.schema import Schema, SchemaAndValue, SchemaType

from ..debezium.envelope import envelope
from ..debezium.setup_errors import first_line
from . import pgoutput as pg
from .catalog_types import catalog_types
from .database import connect, visible_table_columns
from .envelope import Route, TableShape, shape_of, source_struct
from .pending import PendingRecords
from .settings import CdcSettings

if TYPE_CHECKING:
    import psycopg2.extensions

log = logging.getLogger(__name__)

NEW_KEY_HEADER, OLD_KEY_HEADER = "__debezium.newkey", "__debezium.oldkey"  # a primary-key change's, as Debezium's
_INSERT, _UPDATE, _DELETE = 73, 85, 68  # first bytes of pgoutput's Insert, Update and Delete messages
_MORE_S = 0.002  # how long a poll with records waits for more before returning them

HEARTBEAT_KEY = Schema.struct("io.debezium.connector.common.ServerNameKey", ("serverName", Schema(SchemaType.STRING)))
HEARTBEAT_VALUE = Schema.struct("io.debezium.connector.common.Heartbeat", ("ts_ms", Schema(SchemaType.INT64)))


def epoch_micros(moment: Any) -> int:
    return int(moment.timestamp() * 1_000_000)


class ChangeStream:
    def __init__(
        self, settings: CdcSettings, partition: dict[str, Any], resume_lsn: int, committed: dict[str, Any] | None = None
    ) -> None:
        self._settings = settings
        self._partition = partition
        self._resume_lsn = resume_lsn  # the end of the last transaction handed on whole
        self._replication: psycopg2.extensions.connection | None = None
        self._catalog: psycopg2.extensions.connection | None = None
        self._cursor: Any = None
        self._shapes: dict[int, TableShape | None] = {}
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
        self._heartbeat_route: Route = (settings.heartbeat_topic, HEARTBEAT_KEY, HEARTBEAT_VALUE, ())
        self._flush_lock = threading.Lock()
        self._to_flush = 0  # set by commit(), sent by the polling thread
        self._flushed = 0
        self._last_heartbeat = time.monotonic()
        self.topics_keyed: set[str] = set()

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
        self._shapes.clear()
        self._begin = None
        self._open.clear()
        log.info("Streaming slot %s from LSN %s", self._settings.slot, pg.format_lsn(self._resume_lsn))

    def close(self) -> None:
        for connection in (self._replication, self._catalog):
            if connection is not None:
                try:
                    connection.close()
                except Exception as exc:  # closing a broken connection: nothing more to do with it
                    log.debug("Closing a PostgreSQL connection: %s", exc)
        self._replication = self._catalog = self._cursor = None

    # -- offsets -------------------------------------------------------------------------------
    def committed(self, lsn: int) -> None:
        """The offsets up to `lsn` are stored (any thread); the next poll tells the slot."""
        with self._flush_lock:
            self._to_flush = max(self._to_flush, lsn)

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
            while len(ready) < max_batch and not stopping.is_set():
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
            self._open.move_to(ready)  # a large transaction: handed on in parts
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
            if "t" in self._settings.skipped:
                log.info("TRUNCATE of relation(s) %s not sent (skipped.operations has t, its default)", decoded.relids)
            else:  # one message for every table the statement truncated: its events numbered as one change's
                self._serial = 0
                for relid in decoded.relids:
                    shape = self._shapes.get(relid)
                    if shape is not None:
                        self._truncate(shape, message.data_start)

    def _shape(self, relation: pg.Relation) -> TableShape | None:
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

    def _where(self, shape: TableShape, lsn: int) -> tuple[dict[str, Any], dict[str, Any]]:
        """The offset and the `source` of an event at `lsn` in the open transaction. The events of one message
        share its LSN: `_emit` numbers them (`event_serial_no`) from where the caller reset `_serial`, so that
        a restart skips exactly those committed before it."""
        begin = self._begin
        if begin is None:
            raise ConnectError(f"pgoutput sent a change at LSN {pg.format_lsn(lsn)} outside a transaction")
        ts_usec = self._begin_usec
        offset = {"lsn": self._resume_lsn, "lsn_proc": lsn, "txId": begin.xid, "ts_usec": ts_usec}
        source = source_struct(
            self._settings,
            shape,
            ts_us=ts_usec,
            snapshot="false",
            tx_id=begin.xid,
            lsn=lsn,
            sequence=f'{self._sequence_head}{lsn}"]',
        )
        return offset, source

    def _truncate(self, shape: TableShape, lsn: int) -> None:
        """A TRUNCATE of a captured table, as Debezium sends it: `op` t, no row, a null key."""
        offset, source = self._where(shape, lsn)
        self._emit(shape.truncate_route, offset, None, envelope(None, None, source, "t", time.time_ns()))

    def _change(self, shape: TableShape, kind: int, old: pg.Tuple | None, new: pg.Tuple | None, lsn: int) -> None:
        """The records of one change: `kind` is the message's first byte, `old` and `new` its tuples."""
        skipped = self._settings.skipped
        if (kind == _INSERT and "c" in skipped) or (kind == _DELETE and "d" in skipped):
            return  # skipped.operations (decoding the row would be wasted)
        offset, source = self._where(shape, lsn)
        now = time.time_ns()
        self._serial = 0
        if kind == _INSERT:
            assert new is not None
            after = shape.row(new)
            self._emit(shape.route, offset, shape.key(after), envelope(None, after, source, "c", now))
        elif kind == _UPDATE:
            assert new is not None
            before = shape.row(old) if old is not None else None
            after = shape.row(new, old)
            old_key, new_key = (shape.key(before) if before is not None else None), shape.key(after)
            if shape.keyed and old_key is not None and old_key != new_key:
                # As Debezium: a delete (and its tombstone) carrying the new key in a header, then a create
                # carrying the old one; skipped.operations applies to each of them as to any delete or
                # create, so `u` does not skip a key change.
                if "d" not in skipped:
                    moved_to = ((NEW_KEY_HEADER, SchemaAndValue(shape.key_schema, new_key)),)
                    self._delete(shape, offset, old_key, envelope(before, None, source, "d", now), moved_to)
                if "c" not in skipped:
                    moved_from = ((OLD_KEY_HEADER, SchemaAndValue(shape.key_schema, old_key)),)
                    route = (*shape.route[:3], moved_from)
                    self._emit(route, offset, new_key, envelope(None, after, source, "c", now))
            elif "u" not in skipped:
                self._emit(shape.route, offset, new_key, envelope(before, after, source, "u", now))
        else:
            assert old is not None
            before = shape.row(old)
            self._delete(shape, offset, shape.key(before), envelope(before, None, source, "d", now))

    def _delete(
        self,
        shape: TableShape,
        offset: dict[str, Any],
        key: Any,
        value: dict[str, Any],
        headers: tuple[tuple[str, Any], ...] = (),
    ) -> None:
        """A delete, and its tombstone unless tombstones.on.delete=false; both carry `headers`."""
        self._emit((*shape.route[:3], headers) if headers else shape.route, offset, key, value)
        if self._settings.tombstones:
            tombstone = (*shape.tombstone_route[:3], headers) if headers else shape.tombstone_route
            self._emit(tombstone, offset, key, None)

    def _emit(self, route: Route, offset: dict[str, Any], key: Any, value: Any) -> None:
        self._serial += 1
        serial, skip = self._serial, self._skip
        if skip is not None and skip[0] == offset["txId"] and (offset["lsn_proc"], serial) <= skip[1:]:
            return  # committed before a restart: sent already
        self._open.records.append(({**offset, "event_serial_no": serial} if serial > 1 else offset, key, value, route))

    def _heartbeat(self) -> None:
        """With heartbeat.interval.ms, a record carrying the current position, so the slot advances
        while no captured table changes."""
        if not self._settings.heartbeat_s or self._open or self._begin is not None:
            return
        if time.monotonic() - self._last_heartbeat < self._settings.heartbeat_s:
            return
        self._last_heartbeat = time.monotonic()
        lsn = max(self._resume_lsn, int(getattr(self._cursor, "wal_end", 0) or 0))
        self._resume_lsn = lsn
        self._ready.records.append(
            (
                {"lsn": lsn, "ts_usec": int(time.time() * 1_000_000)},
                {"serverName": self._settings.topic_prefix},
                {"ts_ms": int(time.time() * 1000)},
                self._heartbeat_route,
            )
        )
