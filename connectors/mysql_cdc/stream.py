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
from collections.abc import Sequence
from typing import Any

from connectworker.api.errors import ConnectError, RetriableError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import SchemaAndValue

from ..debezium.envelope import envelope
from ..debezium.setup_errors import first_line
from . import gtids as gtid_sets
from .database import ServerInfo, connect
from .ddl import ddl_tables, is_transaction_control
from .ddl_parser import parse_statement
from .heartbeat import heartbeat_record
from .held_schemas import PRIMED, HeldSchemas
from .history import HistoryRecord, SchemaHistory
from .reader import BinlogReader
from .row_decoder import decode_rows
from .schema_change import schema_change_record
from .schema_state import SchemaState
from .settings import MySqlSettings
from .source import Position, source_struct, streaming_offset
from .table_shape import Route, TableShape

log = logging.getLogger(__name__)

MAX_BATCH = 2048
SAME_REPLICA_ID = "same server_uuid/server_id"  # in MariaDB's refusal (4052) and MySQL's (1236) of a twin id
NEW_KEY_HEADER, OLD_KEY_HEADER = "__debezium.newkey", "__debezium.oldkey"  # a primary-key change's, as Debezium's


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
        self._last_heartbeat = time.monotonic()
        self._next: tuple[str, int] = (resume.file, resume.pos)  # where the next event starts
        self._broken: ConnectError | None = None  # a lost connection, raised once its read's records are out
        self.topics_keyed = self._schemas.topics_keyed

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
        if self._reader is not None:
            self._reader.close()
            self._reader = None
        if self._schemas.catalog is not None:
            try:
                self._schemas.catalog.close()
            except Exception as exc:  # a broken connection: nothing more to do with it
                log.debug("Closing the catalog connection: %s", exc)
            self._schemas.catalog = None

    # -- reading -------------------------------------------------------------------------------
    def read(self, stopping: threading.Event, poll_s: float = 0.5) -> list[SourceRecord]:
        """The records of the events that come within `poll_s`, at most about MAX_BATCH of them."""
        import pymysql

        if self._broken is not None:  # after the records handled before it, which the last read returned
            broken, self._broken = self._broken, None
            raise broken
        self._ensure_started()
        assert self._reader is not None
        out: list[SourceRecord] = []
        deadline = time.monotonic() + poll_s
        try:
            while len(out) < MAX_BATCH and not stopping.is_set():
                left = deadline - time.monotonic()
                item = self._reader.next(min(left, 0.05) if out else max(left, 0.0))
                if item is None:
                    if not out:
                        self._heartbeat(out)
                    if out or time.monotonic() >= deadline:
                        break
                    continue
                file, pos, event = item
                self._handle(file, pos, event, out)
        except (pymysql.err.Error, OSError) as exc:
            if SAME_REPLICA_ID in str(exc):  # retrying would not help: the other client stays connected
                return self._broke(first_line(exc), out, self._same_replica_id(exc))
            return self._broke(first_line(exc), out)
        except ConnectError as exc:
            if isinstance(exc, RetriableError) or "ended the binlog stream" in str(exc):
                return self._broke(str(exc), out)
            raise
        return out

    def _broke(self, reason: str, out: list[SourceRecord], error: ConnectError | None = None) -> list[SourceRecord]:
        """The connection is lost: reconnect at the next read, where the last event handed on ends (or, with
        `error`, fail with it). The records of this read's events are returned first (the position has moved
        past them): the error is raised by the next read."""
        self.close()
        error = error or RetriableError(f"The binlog stream of {self._where()} broke: {reason}; reconnecting")
        if not out:
            raise error
        self._broken = error
        return out

    def _same_replica_id(self, exc: BaseException) -> ConnectError:
        return ConnectError(
            f"The server at {self._where()} refuses the binlog stream: another replica or connector reads its "
            f"binlog with the same replica id, database.server.id={self._settings.replica_id} ({first_line(exc)}). "
            "Give this connector an id no other replica of that server uses; it resumes from its committed "
            "position when restarted"
        )

    def _handle(self, file: str, pos: int, event: Any, out: list[SourceRecord]) -> None:
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
                self._ddl(statement, schema, event, (file, end), out)
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
                self._rows(self._schemas.shape(table, self._where_at(file, pos)), kind, event, number, out)
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
    def _ddl(self, statement: str, schema: str, event: Any, after: tuple[str, int], out: list[SourceRecord]) -> None:
        """A statement that may be DDL: when it changes a captured database, it is parsed and applied to the
        held schema (or, for a DDL the history has from before a restart, its record replayed), recorded in
        the history, and (with include.schema.changes) sent as a schema change event when it changed a
        captured table."""
        assert self._txn is not None
        position = self._txn
        found = ddl_tables(statement, schema)
        schemas = self._schemas
        if found.truncated is not None and schemas.captures(*found.truncated):
            self._truncate(schemas.shape(found.truncated, self._where_at(*after)), out)
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
            out.append(schema_change_record(self._settings, self._partition, offset, source, recorded, captured))

    # -- changes -------------------------------------------------------------------------------
    def _source(self, shape: TableShape | None, database: str, position: Position, row: int) -> dict[str, Any]:
        return source_struct(
            connector=self._settings.connector_name,
            name=self._settings.topic_prefix,
            db=shape.database if shape is not None else database,
            table=shape.table if shape is not None else None,
            ts_us=position.ts_sec * 1_000_000,
            snapshot="false",
            server_id=position.server_id,
            gtid=self._txn_gtid,
            file=position.file,
            pos=position.pos,
            row=row,
        )

    def _rows(self, shape: TableShape, kind: str, event: Any, number: int, out: list[SourceRecord]) -> None:
        assert self._txn is not None
        txn, skipped = self._txn, self._settings.skipped
        skip_rows = -1
        skip = self._skip
        if skip is not None and (skip[0], skip[1]) == (txn.file, txn.pos):
            if number < skip[2]:
                return
            skip_rows = skip[3] if number == skip[2] else -1
        event_offset = streaming_offset(Position(txn.file, txn.pos, txn.gtids, number, 0, txn.server_id, txn.ts_sec))
        event_source = self._source(shape, shape.database, txn, 0)
        now = time.time_ns()

        def offset(done: int) -> dict[str, Any]:
            return {**event_offset, "row": done}

        rows = decode_rows(event)
        for index, row in enumerate(rows):
            if index < skip_rows:
                continue
            source = {**event_source, "row": index}
            if kind == "c":
                if "c" not in skipped:
                    after = shape.row(row["values"])
                    self._emit(
                        out, shape.route, offset(index + 1), shape.key(after), envelope(None, after, source, "c", now)
                    )
            elif kind == "u":
                before, after = shape.row(row["before_values"]), shape.row(row["after_values"])
                old_key, new_key = shape.key(before), shape.key(after)
                if shape.keyed and old_key != new_key:  # as Debezium: a delete (and tombstone), then a create
                    if "d" not in skipped:
                        moved_to = ((NEW_KEY_HEADER, SchemaAndValue(shape.key_schema, new_key)),)
                        self._delete(
                            out, shape, offset(index), old_key, envelope(before, None, source, "d", now), moved_to
                        )
                    if "c" not in skipped:
                        moved_from = ((OLD_KEY_HEADER, SchemaAndValue(shape.key_schema, old_key)),)
                        route = (*shape.route[:3], moved_from)
                        self._emit(out, route, offset(index + 1), new_key, envelope(None, after, source, "c", now))
                elif "u" not in skipped:
                    self._emit(out, shape.route, offset(index + 1), new_key, envelope(before, after, source, "u", now))
            elif "d" not in skipped:
                before = shape.row(row["values"])
                tombstone = self._settings.tombstones
                value = envelope(before, None, source, "d", now)
                self._delete(
                    out,
                    shape,
                    offset(index if tombstone else index + 1),
                    shape.key(before),
                    value,
                    (),
                    offset(index + 1),
                )
        if rows:
            self._resume = Position(txn.file, txn.pos, txn.gtids, number, len(rows), txn.server_id, txn.ts_sec)

    def _delete(
        self,
        out: list[SourceRecord],
        shape: TableShape,
        offset: dict[str, Any],
        key: Any,
        value: dict[str, Any],
        headers: tuple[tuple[str, Any], ...] = (),
        tombstone_offset: dict[str, Any] | None = None,
    ) -> None:
        """A delete, and its tombstone unless tombstones.on.delete=false; both carry `headers`."""
        self._emit(out, (*shape.route[:3], headers) if headers else shape.route, offset, key, value)
        if self._settings.tombstones:
            route = (*shape.tombstone_route[:3], headers) if headers else shape.tombstone_route
            self._emit(out, route, tombstone_offset or offset, key, None)

    def _truncate(self, shape: TableShape, out: list[SourceRecord]) -> None:
        assert self._txn is not None
        if "t" in self._settings.skipped:
            log.info("TRUNCATE of %s.%s not sent (skipped.operations has t, its default)", shape.database, shape.table)
            return
        txn = self._txn
        offset = streaming_offset(Position(txn.file, txn.pos, txn.gtids, 0, 0, txn.server_id, txn.ts_sec))
        source = self._source(shape, shape.database, txn, 0)
        self._emit(
            out,
            (shape.topic, None, shape.envelope_schema, ()),
            offset,
            None,
            envelope(None, None, source, "t", time.time_ns()),
        )

    def _emit(self, out: list[SourceRecord], route: Route, offset: dict[str, Any], key: Any, value: Any) -> None:
        topic, key_schema, value_schema, headers = route
        out.append(
            SourceRecord(
                self._partition,
                offset,
                topic,
                value,
                key,
                key_schema=key_schema,
                value_schema=value_schema,
                headers=[*headers],
            )
        )

    def _heartbeat(self, out: list[SourceRecord]) -> None:
        """With heartbeat.interval.ms, a record carrying the current position, so the offsets advance
        while no captured table changes."""
        if not self._settings.heartbeat_s or self._txn is not None:
            return
        if time.monotonic() - self._last_heartbeat < self._settings.heartbeat_s:
            return
        self._last_heartbeat = time.monotonic()
        file, pos = self._next
        self._resume = Position(file, pos, self._gtids, server_id=self._resume.server_id, ts_sec=int(time.time()))
        out.append(heartbeat_record(self._settings, self._partition, streaming_offset(self._resume)))
