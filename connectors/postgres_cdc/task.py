"""`PostgresCdcTask`: the snapshot (if `snapshot.mode` and the committed offsets call for one), then the
replication slot's stream, as Debezium-shaped change records; its life is the coordinator's
(debezium/coordinator.py), its start decision start_plan.py's.

Offsets (one source partition, `{"server": topic.prefix}`, as Debezium's) hold `lsn` (where streaming
resumes), `txId` and `ts_usec`; snapshot records add `snapshot: true` and, on the snapshot's last record,
`last_snapshot_record: true`. A restart whose committed offset is a finished snapshot or a streamed change
resumes the stream from `lsn`; one whose snapshot was cut short snapshots again on a new slot.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from connectworker.api.errors import ConnectError

from ..debezium.column_mappers import SourceColumn
from ..debezium.coordinator import CdcTask, SnapshotSource, Start
from ..debezium.settings import CaptureSettings
from ..debezium.table_shape import warn_unmatched_columns
from . import pgoutput as pg
from .catalog_types import catalog_types
from .database import (
    check_setup,
    check_signal_table,
    connect,
    drop_slot,
    ensure_publication,
    list_tables,
    publication_exists,
    slot_state,
    table_columns,
)
from .settings import CdcSettings, parse_settings
from .snapshot import BlockingSnapshotReader, SnapshotReader
from .source_column import source_column
from .start_plan import plan_start
from .stream import ChangeStream, epoch_micros

log = logging.getLogger(__name__)


class PostgresCdcTask(CdcTask):
    settings: CdcSettings | None

    def parse(self, props: Mapping[str, str]) -> CdcSettings:
        return parse_settings(props)

    def begin(self, settings: CaptureSettings, committed: Mapping[str, Any] | None) -> Start:
        assert isinstance(settings, CdcSettings)
        connection = connect(settings)
        try:
            check_setup(connection, settings)
            warn_unmatched_columns(settings, captured_columns(connection, settings))
            ensure_publication(connection, settings)
            check_signal_table(connection, settings)
            plan = plan_start(settings, committed, slot_state(connection, settings.slot))
            for note in plan.notes:
                log.warning("%s", note)
            if plan.drop_slot:
                log.info(
                    "Slot %s exists but a snapshot is due (snapshot.mode=%s, committed offset %s): "
                    "creating it anew for an exact cut",
                    settings.slot,
                    settings.snapshot_mode,
                    committed,
                )
                drop_slot(connection, settings.slot)
        finally:
            connection.close()
        if plan.idle:
            return Start(None, None)
        resume, snapshot = plan.resume_lsn, None
        if plan.create_slot:
            slot_connection, slot_lsn, snapshot_name = self._create_slot(settings)
            try:  # the exported snapshot lives while the connection that made it does: until it is imported
                if plan.snapshot:
                    snapshot = SnapshotReader(settings, snapshot_name, slot_lsn, datetime_now_us())
            finally:
                slot_connection.close()
            resume = max(resume, slot_lsn)
        stream = ChangeStream(settings, self.partition, resume, None if plan.snapshot else committed)
        log.info(
            "PostgreSQL CDC task for %s starts with %s",
            settings.topic_prefix,
            "a snapshot" if snapshot else f"the stream at {pg.format_lsn(resume)}",
        )
        return Start(snapshot, stream)

    def dry_start(self, props: Mapping[str, str]) -> None:
        """For a dry run: say what a start would do with the committed offset and the slot as they are (a gap
        between them is a warning here, the failure of a real start), and learn which captured tables have a
        key (for compact.keyed.table.topics), over one read-only session. No publication, slot or snapshot."""
        self.settings = settings = parse_settings(props)
        committed = self.context.offset_storage_reader.offset(self.partition)
        connection = connect(settings, read_only=True)
        try:
            check_setup(connection, settings)
            if not publication_exists(connection, settings.publication):
                log.info(
                    "Dry run: publication %s does not exist; a start would create it (publication.autocreate.mode=%s)",
                    settings.publication,
                    settings.publication_autocreate,
                )
            try:
                plan = plan_start(settings, committed, slot_state(connection, settings.slot))
                log.info("Dry run: a start of %s would %s", settings.topic_prefix, plan.describe(settings))
                for note in plan.notes:
                    log.warning("Dry run: %s", note)
            except ConnectError as exc:
                log.warning("Dry run: a start of %s would fail: %s", settings.topic_prefix, exc)
            self.keyed_topics = {
                settings.topic(schema, table)
                for relid, schema, table in list_tables(connection, settings)
                if any(column.key_position for column in table_columns(connection, relid))
            }
        finally:
            connection.close()

    def _create_slot(self, settings: CdcSettings) -> tuple[Any, int, str]:
        """Creates the slot: the connection that did (its exported snapshot lives while it is open), the
        slot's consistent point and the name of the snapshot it exported."""
        connection = connect(settings, replication=True)
        cursor = connection.cursor()
        cursor.create_replication_slot(settings.slot, output_plugin="pgoutput")
        _name, consistent_point, snapshot_name, _plugin = cursor.fetchone()
        log.info("Created slot %s at %s (exported snapshot %s)", settings.slot, consistent_point, snapshot_name)
        return connection, pg.parse_lsn(consistent_point), snapshot_name

    def blocking_snapshot(self, tables: Sequence[str]) -> SnapshotSource:
        assert self.settings is not None and isinstance(self._stream, ChangeStream)
        return BlockingSnapshotReader(self.settings, tables, self._stream.position())

    def snapshot_done(self) -> None:
        settings = self.settings
        assert settings is not None
        if settings.snapshot_mode == "initial_only":  # a slot nobody reads would keep WAL for ever
            connection = connect(settings)
            try:
                drop_slot(connection, settings.slot)
            finally:
                connection.close()
            log.info("Snapshot done (snapshot.mode=initial_only): slot %s dropped", settings.slot)

    def stopped(self) -> None:
        settings = self.settings
        if settings is None or not settings.slot_drop_on_stop:
            return
        try:
            connection = connect(settings)
            try:
                drop_slot(connection, settings.slot)
            finally:
                connection.close()
        except ConnectError as exc:  # stop() must not fail: the slot stays, say so
            log.warning("slot.drop.on.stop: could not drop slot %s: %s", settings.slot, exc)
        else:
            log.info("Dropped slot %s (slot.drop.on.stop)", settings.slot)


def captured_columns(connection: Any, settings: CdcSettings) -> list[SourceColumn]:
    """Every kept column of the captured tables, as the column mappers see them (one catalog query a table:
    only asked when a mapper is set)."""
    if settings.mappers.empty:
        return []
    types = catalog_types(connection)
    return [
        source_column(f"{schema}.{table}", c.name, c.type_oid, c.type_modifier, c.type_short_name, types)
        for relid, schema, table in list_tables(connection, settings)
        for c in table_columns(connection, relid)
        if settings.keeps_column(schema, table, c.name)
    ]


def datetime_now_us() -> int:
    from datetime import UTC, datetime

    return epoch_micros(datetime.now(UTC))
