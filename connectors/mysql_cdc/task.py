"""`MySqlCdcTask`: the snapshot (if `snapshot.mode` and the committed offset call for one), then the
binlog's stream (stream.py), as Debezium-shaped change records; its life is the coordinator's
(debezium/coordinator.py).

The snapshot reads every captured table in one REPEATABLE READ consistent-snapshot transaction
(snapshot.py), records each table's columns in the schema history at the snapshot's binlog position, and
hands on its rows as `op: r` records with Debezium's `source.snapshot` markers (snapshot_source.py);
streaming then starts at that position. `no_data` / `never` record the schemas the same way, without rows.
A restart recovers the held schemas from the history as of its resumed position.

With `include.schema.changes` (its default), each captured table's `CREATE TABLE` at the snapshot is also a
schema change event on `<topic.prefix>` (source.snapshot `true`), ahead of the rows, as Debezium sends. They
carry the snapshot's offset: when no row follows (every table empty, or `no_data`), the last of them marks
the snapshot completed, so a restart does not take it again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from connectworker.api.errors import ConnectError
from connectworker.api.record import SourceRecord

from ..debezium.column_mappers import SourceColumn
from ..debezium.coordinator import CdcTask, SnapshotSource, Start
from ..debezium.settings import CaptureSettings
from ..debezium.table_shape import warn_unmatched_columns
from .catalog import holds_database
from .database import ServerInfo, check_position_available, check_setup, connect
from .history import HistoryRecord, SchemaHistory
from .keys import HISTORY_TOPIC, SNAPSHOT_MODE
from .schema_change import schema_change_record
from .schema_snapshot import read_schemas, record_schemas
from .schema_state import SchemaState, schemas_as_of
from .settings import MySqlSettings, parse_settings
from .snapshot import begin_snapshot, end_snapshot
from .snapshot_source import BinlogSnapshot, BlockingBinlogSnapshot, snapshot_source
from .source import Position, resume_position, snapshot_finished, snapshot_offset
from .source_column import source_column
from .stream import BinlogStream
from .table_shape import MySqlTableShape

log = logging.getLogger(__name__)


def captured_columns(settings: MySqlSettings, state: SchemaState) -> list[SourceColumn]:
    """Every kept column of the captured tables held, as the column mappers see them (none asked for when no
    mapper is set)."""
    if settings.mappers.empty:
        return []
    return [
        source_column(f"{database}.{table}", c.name, c.column_type)
        for (database, table), held in state.tables.items()
        if settings.captures(database, table)
        for c in held.catalog()
        if settings.keeps_column(database, table, c.name)
    ]


def needs_snapshot(mode: str, committed: Mapping[str, Any] | None) -> bool:
    if mode in ("no_data", "never", "recovery"):
        return False
    return not snapshot_finished(committed)


class MySqlCdcTask(CdcTask):
    settings: MySqlSettings | None

    def __init__(self) -> None:
        super().__init__()
        self._history: SchemaHistory | None = None

    def parse(self, props: Mapping[str, str]) -> MySqlSettings:
        return parse_settings(props, source="MySqlCdcTask")

    def begin(self, settings: CaptureSettings, committed: Mapping[str, Any] | None) -> Start:
        assert isinstance(settings, MySqlSettings)
        self._history = history = SchemaHistory(settings.history_servers, settings.history_topic, settings.topic_prefix)
        connection = connect(settings.host, settings.port, settings.user, settings.password)
        try:
            server = check_setup(connection)
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
            return Start(None, None)
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
            warn_unmatched_columns(settings, captured_columns(settings, state))
            log.info(
                "MySQL CDC task for %s resumes the binlog at %s:%d", settings.topic_prefix, resume.file, resume.pos
            )
            stream = BinlogStream(settings, server, self.partition, resume, state, history, recovered, committed)
            return Start(None, stream)
        return self._begin_snapshot(settings, server, with_rows=snapshot)

    def dry_start(self, props: Mapping[str, str]) -> None:
        """For a dry run: say what a start would do with the committed offset, touching nothing: no connection
        to the server (a start locks tables for its snapshot), no schema history read or written. This task
        keeps every topic's settings as the rules make them, so nothing more is needed to answer."""
        self.settings = settings = self.parse(props)
        committed = self.context.offset_storage_reader.offset(self.partition)
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
        assert self.settings is not None
        return holds_database(self.settings, database)

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

    def _begin_snapshot(self, settings: MySqlSettings, server: ServerInfo, *, with_rows: bool) -> Start:
        """The consistent snapshot's position and the captured databases' schemas there (read under its lock,
        parsed and recorded in the history); its rows are read by the coordinator (with_rows), or streaming
        starts after the schema change events (no_data, never)."""
        assert self._history is not None
        connection = connect(settings.host, settings.port, settings.user, settings.password)
        started_us = time.time_ns() // 1000
        statements: list[tuple[str, str]] = []
        at = begin_snapshot(
            connection,
            settings.locking_mode,
            mariadb=server.mariadb,
            under_lock=lambda: statements.extend(read_schemas(connection, settings)),
        )
        position = Position(at.file, at.pos, at.gtids, server_id=server.server_id, ts_sec=started_us // 1_000_000)
        state = SchemaState(self._holds)
        schema_changes: list[SourceRecord] = []

        def schema_change(record: HistoryRecord) -> None:
            captured = [c for c in record.changes if c.table is not None and settings.captures(*c.id)]
            if settings.schema_changes and captured:
                source = snapshot_source(settings, position, started_us, *captured[0].id)
                offset = snapshot_offset(position, completed=False)
                schema_changes.append(schema_change_record(settings, self.partition, offset, source, record, captured))

        record_schemas(statements, state, self._history, position, started_us // 1000, settings, schema_change)
        tables = [t for t in state.tables if settings.captures(*t) and not settings.is_signal_table(*t)]
        shapes = [MySqlTableShape(settings, d, t, state.tables[(d, t)].catalog()) for d, t in tables]
        warn_unmatched_columns(settings, captured_columns(settings, state))
        log.info(
            "Snapshot at %s:%d of %d table(s)%s: %s",
            at.file,
            at.pos,
            len(tables),
            "" if with_rows else " (schemas only)",
            ", ".join(f"{d}.{t}" for d, t in tables) or "none",
        )
        stream = BinlogStream(settings, server, self.partition, position, state, self._history)
        if not with_rows:
            end_snapshot(connection)
            connection.close()
            connection, shapes = None, []
        return Start(BinlogSnapshot(settings, connection, shapes, position, started_us, schema_changes), stream)

    def blocking_snapshot(self, tables: Sequence[str]) -> SnapshotSource:
        assert self.settings is not None and isinstance(self._stream, BinlogStream)
        shapes, position = self._stream.blocking_shapes(tables)
        return BlockingBinlogSnapshot(self.settings, shapes, position, self._stream.position())

    def stopped(self) -> None:
        if self._history is not None:
            self._history.close()
