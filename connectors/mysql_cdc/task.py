"""`MySqlCdcTask`: the snapshot (if `snapshot.mode` and the committed offset call for one), then the
binlog's stream (stream.py), as Debezium-shaped change records.

The snapshot reads every captured table in one REPEATABLE READ consistent-snapshot transaction
(snapshot.py), records each table's columns in the schema history at the snapshot's binlog position, and
hands on its rows as `op: r` records with Debezium's `source.snapshot` markers; streaming then starts at
that position. `no_data` / `never` record the schemas the same way, without rows. A restart recovers the
held schemas from the history as of its resumed position.

With `include.schema.changes` (its default), each captured table's `CREATE TABLE` at the snapshot is also a
schema change event on `<topic.prefix>` (source.snapshot `true`), ahead of the rows, as Debezium sends. They
carry the snapshot's offset: when no row follows (every table empty, or `no_data`), the last of them marks
the snapshot completed, so a restart does not take it again.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

import connectworker
from connectworker.api.errors import ConnectError, RetriableError
from connectworker.api.record import SourceRecord
from connectworker.api.task import SourceTask
from connectworker.api.topic_settings import TopicSettings

from ..debezium.envelope import read_records
from ..debezium.snapshot_markers import SnapshotMarkers
from .catalog import holds_database
from .database import ServerInfo, check_position_available, check_setup, connect
from .history import HistoryRecord, SchemaHistory
from .keys import HISTORY_TOPIC, SNAPSHOT_MODE
from .schema_change import schema_change_record
from .schema_snapshot import read_schemas, record_schemas
from .schema_state import SchemaState, schemas_as_of
from .settings import RETRY_TIMEOUT, MySqlSettings, parse_settings
from .snapshot import begin_snapshot, end_snapshot, table_rows
from .source import Position, resume_position, snapshot_finished, snapshot_offset, source_struct
from .stream import MAX_BATCH, BinlogStream
from .table_shape import TableShape

log = logging.getLogger(__name__)

Batch = tuple[TableShape, list[list[Any]]]


def needs_snapshot(mode: str, committed: Mapping[str, Any] | None) -> bool:
    if mode in ("no_data", "never", "recovery"):
        return False
    return not snapshot_finished(committed)


class MySqlCdcTask(SourceTask):
    def __init__(self) -> None:
        self._settings: MySqlSettings | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # poll() and stop() take turns with the connections
        self._server: ServerInfo | None = None
        self._history: SchemaHistory | None = None
        self._stream: BinlogStream | None = None
        self._idle = False  # initial_only after its snapshot
        self._snapshot_connection: Any = None
        self._batches: Iterator[Batch] | None = None
        self._snapshot_position: Position | None = None
        self._snapshot_started = 0
        self._markers = SnapshotMarkers()
        self._schema_changes: list[SourceRecord] = []  # the snapshot's, sent ahead of its rows
        self._failing_since: float | None = None  # monotonic time of the first of consecutive failed reads

    def version(self) -> str:
        return connectworker.__version__

    def start(self, props: Mapping[str, str]) -> None:
        self._settings = settings = parse_settings(props, source="MySqlCdcTask")
        partition = {"server": settings.topic_prefix}
        committed = self.context.offset_storage_reader.offset(partition)
        self._history = history = SchemaHistory(settings.history_servers, settings.history_topic, settings.topic_prefix)
        connection = connect(settings.host, settings.port, settings.user, settings.password)
        try:
            self._server = server = check_setup(connection)
            if settings.snapshot_mode == "recovery" and not committed:
                raise ConnectError(
                    f"{SNAPSHOT_MODE}=recovery rebuilds the schema history of a connector that has streamed before, "
                    f"from its committed binlog position; {settings.topic_prefix} has no committed offsets. Set "
                    f"{SNAPSHOT_MODE}=initial (or no_data) to start it."
                )
            snapshot = needs_snapshot(settings.snapshot_mode, committed)
            resume: Position | None = None
            if committed and not snapshot:
                resume = resume_position(committed)
                try:
                    check_position_available(connection, resume.file, resume.pos)
                except ConnectError as exc:
                    if settings.snapshot_mode != "when_needed":
                        raise
                    log.warning("%s: a new snapshot is taken (snapshot.mode=when_needed)", exc)
                    snapshot, resume = True, None
        finally:
            connection.close()
        if settings.snapshot_mode == "initial_only" and not snapshot:
            log.info("snapshot.mode=initial_only and the snapshot was taken: nothing more to read")
            self._idle = True
            return
        if resume is not None:
            recovered: list[HistoryRecord] = []
            if settings.snapshot_mode == "recovery":
                state = self._rebuild_history(settings, resume)
            else:
                recovered = history.recover()
                if not recovered:
                    raise ConnectError(
                        f"The schema history topic {settings.history_topic} ({HISTORY_TOPIC}) holds no record of "
                        f"{settings.topic_prefix}, which has committed offsets: it was lost or deleted, and the "
                        f"tables' schemas at {resume.file}:{resume.pos} with it. Set {SNAPSHOT_MODE}=recovery to "
                        "rebuild it from the tables' schemas now (right only if no DDL ran since that position), or "
                        "take a new snapshot (delete the connector's offsets)."
                    )
                state = schemas_as_of(recovered, resume, self._holds)
            self._stream = BinlogStream(settings, server, partition, resume, state, history, recovered)
            log.info(
                "MySQL CDC task for %s resumes the binlog at %s:%d", settings.topic_prefix, resume.file, resume.pos
            )
            return
        self._begin_snapshot(settings, server, with_rows=snapshot)

    def dry_start(self, props: Mapping[str, str]) -> None:
        """For a dry run: say what a start would do with the committed offset, touching nothing: no connection
        to the server (a start locks tables for its snapshot), no schema history read or written. This task
        keeps every topic's settings as the rules make them, so nothing more is needed to answer."""
        self._settings = settings = parse_settings(props, source="MySqlCdcTask")
        committed = self.context.offset_storage_reader.offset({"server": settings.topic_prefix})
        if settings.snapshot_mode == "recovery" and not committed:
            what = f"fail: {SNAPSHOT_MODE}=recovery needs committed offsets, and there are none"
        elif needs_snapshot(settings.snapshot_mode, committed):
            what = f"take a snapshot (snapshot.mode={settings.snapshot_mode}, committed offset {committed})"
        elif settings.snapshot_mode == "initial_only":
            what = "read nothing (snapshot.mode=initial_only, and its snapshot was taken)"
        elif committed:
            position = resume_position(committed)
            rebuild = (
                "rebuild the schema history from the tables' schemas now, then "
                if settings.snapshot_mode == "recovery"
                else ""
            )
            what = f"{rebuild}resume the binlog at {position.file}:{position.pos}"
        else:
            what = "record the captured tables' schemas, then stream the binlog from its current end"
        log.info("Dry run: a start of %s would %s", settings.topic_prefix, what)

    def _holds(self, database: str) -> bool:
        assert self._settings is not None
        return holds_database(self._settings, database)

    def _rebuild_history(self, settings: MySqlSettings, resume: Position) -> SchemaState:
        """snapshot.mode=recovery: the tables' schemas as the server has them now, recorded in the history at
        the committed position, as Debezium's recovery snapshot records them."""
        assert self._history is not None
        log.warning(
            "%s=recovery: the schema history of %s is rebuilt from the tables' schemas now, recorded at the committed "
            "position %s:%d; changes made before a DDL that ran since are decoded with the later schema",
            SNAPSHOT_MODE,
            settings.topic_prefix,
            resume.file,
            resume.pos,
        )
        connection = connect(settings.host, settings.port, settings.user, settings.password)
        try:
            statements = read_schemas(connection, settings)
        finally:
            connection.close()
        state = SchemaState(self._holds)
        record_schemas(statements, state, self._history, resume, int(time.time() * 1000), settings)
        return state

    def _begin_snapshot(self, settings: MySqlSettings, server: ServerInfo, *, with_rows: bool) -> None:
        """The consistent snapshot's position and the captured databases' schemas there (read under its lock,
        parsed and recorded in the history); its rows are read by poll() (with_rows), or streaming starts at
        once (no_data, never)."""
        assert self._history is not None
        connection = connect(settings.host, settings.port, settings.user, settings.password)
        self._snapshot_started = time.time_ns() // 1000
        statements: list[tuple[str, str]] = []
        at = begin_snapshot(
            connection,
            settings.locking_mode,
            mariadb=server.mariadb,
            under_lock=lambda: statements.extend(read_schemas(connection, settings)),
        )
        self._snapshot_position = position = Position(
            at.file, at.pos, at.gtids, server_id=server.server_id, ts_sec=self._snapshot_started // 1_000_000
        )
        state = SchemaState(self._holds)
        partition = {"server": settings.topic_prefix}

        def schema_change(record: HistoryRecord) -> None:
            captured = [c for c in record.changes if c.table is not None and settings.captures(*c.id)]
            if settings.schema_changes and captured:
                source = self._snapshot_source(*captured[0].id)
                offset = snapshot_offset(position, completed=False)
                self._schema_changes.append(schema_change_record(settings, partition, offset, source, record, captured))

        record_schemas(
            statements, state, self._history, position, self._snapshot_started // 1000, settings, schema_change
        )
        tables = [table for table in state.tables if settings.captures(*table)]
        if not with_rows and self._schema_changes:  # streaming starts after them: they end the snapshot
            self._schema_changes[-1].source_offset = snapshot_offset(position, completed=True)
        log.info(
            "Snapshot at %s:%d of %d table(s)%s: %s",
            at.file,
            at.pos,
            len(tables),
            "" if with_rows else " (schemas only)",
            ", ".join(f"{d}.{t}" for d, t in tables) or "none",
        )
        self._stream = BinlogStream(settings, server, partition, position, state, self._history)
        if not with_rows:
            end_snapshot(connection)
            connection.close()
            return
        self._snapshot_connection = connection
        shapes = [TableShape(settings, d, t, state.tables[(d, t)].catalog()) for d, t in tables]
        self._batches = self._read(connection, shapes)

    def _read(self, connection: Any, shapes: list[TableShape]) -> Iterator[Batch]:
        for shape in shapes:
            for rows in table_rows(connection, shape.database, shape.table, shape.column_names, MAX_BATCH):
                yield shape, rows
            log.info("Snapshot of %s.%s done", shape.database, shape.table)

    def poll(self) -> list[SourceRecord] | None:
        with self._lock:
            if self._stopping.is_set() or self._settings is None:
                return None
            if self._batches is not None:
                return self._snapshot_batch()
            if self._schema_changes:  # no_data / never: the snapshot's schema change events, then the stream
                out, self._schema_changes = self._schema_changes, []
                return out
            if self._idle or self._stream is None:
                self._stopping.wait(1.0)
                return None
            try:
                records = self._stream.read(self._stopping)
            except RetriableError as exc:
                self._give_up_after_retry_timeout(exc)
                raise
            self._failing_since = None
            return records or None

    def _give_up_after_retry_timeout(self, exc: RetriableError) -> None:
        """Raises a ConnectError (the task fails) once the stream has been failing for longer than
        errors.retry.timeout; before that the worker polls again with backoff."""
        assert self._settings is not None
        limit = self._settings.retry_timeout_ms
        now = time.monotonic()
        if self._failing_since is None:
            self._failing_since = now
        if limit is None or limit < 0 or (now - self._failing_since) * 1000 < limit:
            return
        settings = self._settings
        raise ConnectError(
            f"{exc}. The server at {settings.host}:{settings.port} was unreachable for longer than "
            f"{RETRY_TIMEOUT}={limit} ms: the task stops. Restart it once the server is back (it resumes at its "
            f"committed binlog position), or raise {RETRY_TIMEOUT} (-1: retry forever)."
        ) from None

    def _snapshot_batch(self) -> list[SourceRecord]:
        """The next rows of the snapshot as read (`op` r) records. Each batch's newest record is held back until
        the next batch shows whether it ended its table or the snapshot, for its `source.snapshot` marker."""
        assert self._batches is not None and self._settings is not None and self._server is not None
        assert self._snapshot_position is not None
        settings, position = self._settings, self._snapshot_position
        out, self._schema_changes = self._schema_changes, []
        batch = next(self._batches, None)
        if batch is None:
            held = self._markers.finish()
            if held is not None:
                out.append(held)
            if out:  # the last row, or with no row at all the last schema change event, ends the snapshot
                out[-1].source_offset = snapshot_offset(position, completed=True)
            self._finish_snapshot()
            return out
        shape, rows = batch
        offset = snapshot_offset(position, completed=False)
        source = self._snapshot_source(shape.database, shape.table)
        partition = {"server": settings.topic_prefix}
        records = read_records(shape, rows, partition, offset, source)
        out += self._markers.batch((shape.database, shape.table), records)
        if shape.keyed and self._stream is not None:
            self._stream.topics_keyed.add(shape.topic)
        return out

    def _snapshot_source(self, database: str, table: str) -> dict[str, Any]:
        assert self._settings is not None and self._server is not None and self._snapshot_position is not None
        position = self._snapshot_position
        return source_struct(
            connector=self._settings.connector_name,
            name=self._settings.topic_prefix,
            db=database,
            table=table,
            ts_us=self._snapshot_started,
            snapshot="true",
            server_id=self._server.server_id,
            gtid=None,
            file=position.file,
            pos=position.pos,
            row=0,
        )

    def _finish_snapshot(self) -> None:
        self._batches = None
        if self._snapshot_connection is not None:
            end_snapshot(self._snapshot_connection)
            self._snapshot_connection.close()
            self._snapshot_connection = None
        assert self._settings is not None
        if self._settings.snapshot_mode == "initial_only":
            log.info("Snapshot done (snapshot.mode=initial_only): nothing more to read")
            self._idle = True
        else:
            log.info("Snapshot done; streaming the binlog")

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            if self._stream is not None:
                self._stream.close()
            if self._snapshot_connection is not None:
                try:
                    self._snapshot_connection.close()
                except Exception as exc:  # stop() must not fail
                    log.debug("Closing the snapshot connection: %s", exc)
                self._snapshot_connection = None
            if self._history is not None:
                self._history.close()

    def settings_for_new_topic(self, settings: TopicSettings) -> TopicSettings | None:
        return settings
