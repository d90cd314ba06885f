"""Streaming the binlog: row events in, Debezium change records out.

Positions: a change's `source.file`/`pos` and its offset's `file`/`pos` are its transaction's start (the
GTID event, or BEGIN); the offset's `event` is the row event's number within the transaction and `row`
the rows of it handed on, so a restart, which reads the transaction again from its start, skips exactly
what was sent. `gtids` is the GTID set before the transaction. A DDL's schema change event carries the
position after the DDL.

A lost connection (the server restarted or went away) is a `RetriableError`: the worker backs off and
polls again within `errors.retry.timeout`, and the next poll reconnects at the last position handed on.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from connectworker.api.errors import ConnectError, RetriableError
from connectworker.api.record import SourceRecord, SourceRecordBatch

from ..debezium.emitter import ChangeEmitter
from ..debezium.heartbeat import Heartbeats
from ..debezium.incremental_setup import incremental_snapshot
from ..debezium.pending import PendingRecords
from ..debezium.routes import Route
from ..debezium.setup_errors import first_line
from . import gtids as gtid_sets
from .chunks import MySqlChunks
from .database import ServerInfo, connect
from .ddl import ddl_tables, is_transaction_control
from .ddl_parser import parse_statement
from .held_schemas import PRIMED, HeldSchemas
from .history import HistoryRecord, SchemaHistory
from .reader import BinlogReader
from .row_decoder import decode_rows
from .schema_change import schema_change_record
from .schema_state import SchemaState
from .settings import MySqlSettings
from .source import Position, source_struct, streaming_offset
from .table_shape import MySqlTableShape

log = logging.getLogger(__name__)

SAME_REPLICA_ID = "same server_uuid/server_id"  # in MariaDB's refusal (4052) and MySQL's (1236) of a twin id
MORE_S = 0.002
"""How long a read with records waits for the next event before handing them on. Debezium hands on what the
queue holds at once; a short wait gathers a burst (a large transaction's events) into one batch, without
holding a steady trickle of changes until the batch is full or poll.interval.ms is up."""


class BinlogStream:
    def __init__(
        self,
        settings: MySqlSettings,
        server: ServerInfo,
        partition: dict[str, Any],
        resume: Position,
        state: SchemaState,
        history: SchemaHistory,
        recovered: Sequence[HistoryRecord] = (),
        committed: Mapping[str, Any] | None = None,
    ) -> None:
        self._settings, self._server, self._partition = settings, server, partition
        self._resume = resume  # where a (re)connect starts, with the events and rows of its transaction to skip
        self._schemas = HeldSchemas(settings, state, history)
        self._history, self._recovered = history, list(recovered)
        self._reader: BinlogReader | None = None
        self._gtids = resume.gtids
        self._txn: Position | None = None  # the open transaction's start (gtids: the set before it)
        self._txn_gtid: str | None = None
        self._row_event = 0  # row events of the open transaction so far
        self._skip: tuple[str, int, int, int] | None = None
        self._heartbeats = Heartbeats(settings)
        self._next: tuple[str, int] = (resume.file, resume.pos)  # where the next event starts
        self._broken: ConnectError | None = None  # a lost connection, raised once its read's records are out
        self._pending = PendingRecords()  # records made and not handed on yet
        self._emitter = ChangeEmitter(settings.skipped, settings.tombstones, by_event=True)  # as Debezium's MySQL
        self._row_offsets: tuple[dict[str, Any], dict[str, Any]] = ({}, {})  # a row's records' (not last, last)
        self.topics_keyed = self._schemas.topics_keyed
        self.incremental = incremental_snapshot(settings, self._emitter, committed)
        if self.incremental is not None:
            self._chunks = MySqlChunks(settings, self._schemas, lambda: self._txn or self._resume)
            self.incremental.reader = self._chunks

    # -- connection ----------------------------------------------------------------------------
    def _ensure_started(self) -> None:
        if self._reader is not None:
            return
        resume = self._resume
        try:
            self._schemas.catalog = connect(
                self._settings.host, self._settings.port, self._settings.user, self._settings.password
            )
        except ConnectError as exc:
            self.close()
            raise RetriableError(f"Cannot stream the binlog of {self._where()}: {first_line(exc)}") from None
        self._skip = (resume.file, resume.pos, resume.event, resume.row) if (resume.event or resume.row) else None
        self._gtids, self._txn, self._next = resume.gtids, None, (resume.file, resume.pos)
        schemas = self._schemas
        self._reader = BinlogReader(self._settings, resume.file, resume.pos, schemas.prime_ahead, schemas.captures)
        log.info("Streaming the binlog of %s from %s:%d", self._where(), resume.file, resume.pos)

    def _where(self) -> str:
        return f"{self._settings.host}:{self._settings.port}"

    def close(self) -> None:
        if self.incremental is not None:
            self.incremental.close()  # a chunk being read on its thread lets go of the connection first
            self._chunks.close()
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._schemas.catalog is not None:
            try:
                self._schemas.catalog.close()
            except Exception as exc:  # a broken connection: nothing more to do with it
                log.debug("Closing the catalog connection: %s", exc)
            self._schemas.catalog = None

    def committed(self, offset: Any) -> None:
        """Nothing to confirm: the server keeps its binlog by its own expiry, whoever has read it."""

    # -- reading -------------------------------------------------------------------------------
    def read(self, stopping: threading.Event) -> list[SourceRecord] | SourceRecordBatch:
        """The records of the events read until the stream pauses (MORE_S), or of the first that come within
        poll.interval.ms; at most max.batch.size of them (what a large row event makes beyond that waits for the
        next read)."""
        import pymysql

        settings, pending = self._settings, self._pending
        if len(pending) >= settings.max_batch:
            return pending.take(settings.max_batch, self._partition)
        if self._broken is not None:  # after the records handled before it, which the last read returned
            broken, self._broken = self._broken, None
            raise broken
        self._ensure_started()
        assert self._reader is not None
        if self.incremental is not None and self._txn is None:  # between transactions: at the last one's position
            self.incremental.act(self._emit_between)
        deadline = time.monotonic() + settings.poll_s
        try:
            while len(pending) < settings.max_batch and not stopping.is_set():
                left = deadline - time.monotonic()
                item = self._reader.next(min(left, MORE_S) if pending else max(left, 0.0))
                if item is None:
                    if not pending:
                        self._heartbeat()
                    if pending or time.monotonic() >= deadline:
                        break
                    continue
                file, pos, event = item
                self._handle(file, pos, event)
        except (pymysql.err.Error, OSError) as exc:
            if SAME_REPLICA_ID in str(exc):  # retrying would not help: the other client stays connected
                return self._broke(first_line(exc), self._same_replica_id(exc))
            return self._broke(first_line(exc))
        except ConnectError as exc:
            if isinstance(exc, RetriableError) or "ended the binlog stream" in str(exc):
                return self._broke(str(exc))
            raise
        return pending.take(settings.max_batch, self._partition)

    def _broke(self, reason: str, error: ConnectError | None = None) -> list[SourceRecord] | SourceRecordBatch:
        """The connection is lost: reconnect at the next read, where the last event handed on ends (or, with
        `error`, fail with it). The records of the events read before are returned first (the position has
        moved past them): the error is raised by the read after they are all handed on."""
        self.close()
        error = error or RetriableError(f"The binlog stream of {self._where()} broke: {reason}; reconnecting")
        if not self._pending:
            raise error
        self._broken = error
        return self._pending.take(self._settings.max_batch, self._partition)

    def _same_replica_id(self, exc: BaseException) -> ConnectError:
        return ConnectError(
            f"The server at {self._where()} refuses the binlog stream: another replica or connector reads its "
            f"binlog with the same replica id, database.server.id={self._settings.replica_id} ({first_line(exc)}). "
            "Give this connector an id no other replica of that server uses; it resumes from its committed "
            "position when restarted"
        )

    def _handle(self, file: str, pos: int, event: Any) -> None:
        from pymysqlreplication.event import GtidEvent, MariadbGtidEvent, QueryEvent, RotateEvent, XidEvent
        from pymysqlreplication.row_event import DeleteRowsEvent, TableMapEvent, UpdateRowsEvent, WriteRowsEvent

        if isinstance(event, RotateEvent):
            self._next = (event.next_binlog, int(event.position))
            return
        end = int(event.packet.log_pos or 0)
        if isinstance(event, (GtidEvent, MariadbGtidEvent)):
            self._begin(file, pos, event, str(event.gtid))
        elif isinstance(event, QueryEvent):
            statement = event.query if isinstance(event.query, str) else bytes(event.query).decode("utf-8", "replace")
            if statement.strip().upper() == "BEGIN":
                if self._txn is None:
                    self._begin(file, pos, event, None)
            elif is_transaction_control(statement):
                self._commit(file, end)
            else:
                if self._txn is None:
                    self._begin(file, pos, event, None)
                schema = event.schema if isinstance(event.schema, str) else bytes(event.schema).decode()
                self._ddl(statement, schema, event, (file, end))
                self._commit(file, end)
        elif isinstance(event, TableMapEvent) and not getattr(event, PRIMED, False):
            table = (str(event.schema), str(event.table))
            if self._schemas.captures(*table):
                self._schemas.prime(table, event, self._where_at(file, pos))
        elif isinstance(event, (WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent)):
            if self._txn is None:
                self._begin(file, pos, event, None)
            number = self._row_event
            self._row_event += 1
            table = (str(event.schema), str(event.table))
            if self._schemas.captures(*table):
                kind = "c" if isinstance(event, WriteRowsEvent) else "u" if isinstance(event, UpdateRowsEvent) else "d"
                self._rows(self._schemas.shape(table, self._where_at(file, pos)), kind, event, number)
        elif isinstance(event, XidEvent):
            self._commit(file, end)
        if end:
            self._next = (file, end)

    def _where_at(self, file: str, pos: int) -> Position:
        """Where a schema read now is recorded: the open transaction's start, or the event's position."""
        return self._txn or Position(file, pos, self._gtids)

    def _begin(self, file: str, pos: int, event: Any, gtid: str | None) -> None:
        self._txn = Position(file, pos, self._gtids, server_id=int(event.packet.server_id), ts_sec=int(event.timestamp))
        self._txn_gtid, self._row_event = gtid, 0

    def _commit(self, file: str, end: int) -> None:
        if self._txn_gtid is not None:
            self._gtids = gtid_sets.advance(self._gtids, self._txn_gtid, mariadb=self._server.mariadb)
        ts_sec = self._txn.ts_sec if self._txn is not None else 0
        server_id = self._txn.server_id if self._txn is not None else 0
        self._txn, self._txn_gtid, self._row_event = None, None, 0
        self._resume = Position(file, end, self._gtids, server_id=server_id, ts_sec=ts_sec)

    # -- schemas -------------------------------------------------------------------------------
    def _ddl(self, statement: str, schema: str, event: Any, after: tuple[str, int]) -> None:
        """A statement that may be DDL: when it changes a captured database, it is parsed and applied to the
        held schema (or, for a DDL the history has from before a restart, its record replayed), recorded in
        the history, and (with include.schema.changes) sent as a schema change event when it changed a
        captured table."""
        assert self._txn is not None
        position = self._txn
        found = ddl_tables(statement, schema)
        schemas = self._schemas
        if found.truncated is not None and schemas.captures(*found.truncated):
            self._truncate(schemas.shape(found.truncated, self._where_at(*after)))
            return
        if not found.touches(schemas.state.holds):
            return
        recorded = next(
            (r for r in self._recovered if r.same_event(HistoryRecord(position, schema, statement, ()))), None
        )
        if recorded is not None:
            schemas.state.apply_record(recorded)
        else:
            where = f"binlog position {position.file}:{position.pos}"
            edits = parse_statement(statement, schema, where, skip_unparseable=self._settings.skip_unparseable_ddl)
            if edits is None:
                return
            changes = tuple(schemas.state.apply(edits))
            recorded = HistoryRecord(position, schema, statement, changes, int(event.timestamp) * 1000)
            self._history.record(recorded)
        schemas.forget([c.id for c in recorded.changes] + [c.previous for c in recorded.changes])
        log.info("DDL at %s:%d on %s: %s", position.file, position.pos, schema or "-", statement[:200])
        captured = [
            c
            for c in recorded.changes
            if schemas.captures(*c.id) or (c.previous is not None and schemas.captures(*c.previous))
        ]
        if self._settings.schema_changes and captured:
            gtids = (
                gtid_sets.advance(self._gtids, self._txn_gtid, mariadb=self._server.mariadb)
                if self._txn_gtid
                else self._gtids
            )
            offset = streaming_offset(
                Position(after[0], after[1], gtids, server_id=position.server_id, ts_sec=position.ts_sec)
            )
            source = self._source(None, schema, position, 0)
            record = schema_change_record(self._settings, self._partition, offset, source, recorded, captured)
            route = (record.topic, record.key_schema, record.value_schema, ())
            self._pending.records.append((offset, record.key, record.value, route))

    # -- changes -------------------------------------------------------------------------------
    def _source(self, shape: MySqlTableShape | None, database: str, position: Position, row: int) -> dict[str, Any]:
        settings, table = self._settings, shape.table if shape is not None else None
        db = shape.database if shape is not None else database
        ts_us = position.ts_sec * 1_000_000
        source = source_struct(
            settings.connector_name, settings.topic_prefix, db, table, position, ts_us, "false", self._txn_gtid
        )
        return {**source, "row": row} if row else source

    def _rows(self, shape: MySqlTableShape, kind: str, event: Any, number: int) -> None:
        """The records of a row event's rows. A row's records but its last carry the offset of the rows before
        it (`row`: their count); its last one counts it too, so a restart skips exactly the rows sent whole."""
        assert self._txn is not None
        txn = self._txn
        skip_rows = -1
        skip = self._skip
        if skip is not None and (skip[0], skip[1]) == (txn.file, txn.pos):
            if number < skip[2]:
                return
            skip_rows = skip[3] if number == skip[2] else -1
        event_offset = streaming_offset(Position(txn.file, txn.pos, txn.gtids, number, 0, txn.server_id, txn.ts_sec))
        event_source = self._source(shape, shape.database, txn, 0)
        emitter, emit = self._emitter, self._emit
        rows = decode_rows(event)
        for index, row in enumerate(rows):
            if index < skip_rows:
                continue
            source = {**event_source, "row": index}
            self._row_offsets = ({**event_offset, "row": index}, {**event_offset, "row": index + 1})
            if kind == "c":
                emitter.created(emit, shape, row["values"], source)
            elif kind == "u":
                emitter.updated(emit, shape, row["before_values"], row["after_values"], source)
            else:
                emitter.deleted(emit, shape, row["values"], source)
        if rows:
            self._resume = Position(txn.file, txn.pos, txn.gtids, number, len(rows), txn.server_id, txn.ts_sec)

    def _truncate(self, shape: MySqlTableShape) -> None:
        assert self._txn is not None
        txn = self._txn
        offset = streaming_offset(Position(txn.file, txn.pos, txn.gtids, 0, 0, txn.server_id, txn.ts_sec))
        self._row_offsets = (offset, offset)
        if not self._emitter.truncated(self._emit, shape, self._source(shape, shape.database, txn, 0)):
            log.info("TRUNCATE of %s.%s not sent (skipped.operations has t, its default)", shape.database, shape.table)

    def _emit(self, route: Route, key: Any, value: Any, last: bool) -> None:
        offset = self._row_offsets[last]
        if self.incremental is not None and self.incremental.active:
            offset = {**offset, **self.incremental.offset_state()}
        self._pending.records.append((offset, key, value, route))

    def _emit_between(self, route: Route, key: Any, value: Any, last: bool) -> None:
        self._pending.records.append((self.position(), key, value, route))

    def position(self) -> dict[str, Any]:
        """The offset of a record sent between transactions: where the last one handed on ends."""
        offset = streaming_offset(self._resume)
        if self.incremental is not None:
            offset.update(self.incremental.offset_state())
        return offset

    def blocking_shapes(self, tables: Sequence[str]) -> tuple[list[MySqlTableShape], Position]:
        """The shapes of `tables` ("database.table") held now, and the position the stream stands at."""
        held = {f"{d}.{t}": (d, t) for d, t in self._schemas.state.tables if self._schemas.captures(d, t)}
        ids = [held[t] for t in tables if t in held and not self._settings.is_signal_table(*held[t])]
        return [self._schemas.shape(table, self._resume) for table in ids], self._resume

    def _heartbeat(self) -> None:
        """With heartbeat.interval.ms, a record carrying the current position, so the offsets advance
        while no captured table changes."""
        if self._txn is not None or not self._heartbeats.due():
            return
        file, pos = self._next
        self._resume = Position(file, pos, self._gtids, server_id=self._resume.server_id, ts_sec=int(time.time()))
        offset = streaming_offset(self._resume)
        if self.incremental is not None:
            offset.update(self.incremental.offset_state())
        self._pending.records.append(self._heartbeats.record(offset))
