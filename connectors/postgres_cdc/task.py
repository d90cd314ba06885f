"""`PostgresCdcTask`: the snapshot (if `snapshot.mode` and the committed offsets call for one), then the
replication slot's stream, as Debezium-shaped change records.

Offsets (one source partition, `{"server": topic.prefix}`, as Debezium's) hold `lsn` (where streaming
resumes), `txId` and `ts_usec`; snapshot records add `snapshot: true` and, on the snapshot's last record,
`last_snapshot_record: true`. A restart whose committed offset is a finished snapshot or a streamed change
resumes the stream from `lsn`; one whose snapshot was cut short snapshots again on a new slot.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Mapping
from typing import Any

import connectworker
from connectworker.api.errors import ConnectError
from connectworker.api.record import SourceRecord, SourceRecordBatch
from connectworker.api.task import SourceTask
from connectworker.api.topic_settings import CleanupPolicy, TopicSettings

from ..debezium.envelope import read_records
from ..debezium.snapshot_markers import SnapshotMarkers
from . import pgoutput as pg
from .database import (
    check_setup,
    connect,
    drop_slot,
    ensure_publication,
    list_tables,
    publication_exists,
    slot_state,
    table_columns,
)
from .envelope import source_struct
from .settings import CdcSettings, parse_settings
from .snapshot import SnapshotReader
from .start_plan import plan_start
from .stream import ChangeStream, epoch_micros

log = logging.getLogger(__name__)


def source_partition(settings: CdcSettings) -> dict[str, str]:
    return {"server": settings.topic_prefix}


class PostgresCdcTask(SourceTask):
    def __init__(self) -> None:
        self._settings: CdcSettings | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # poll() and stop() take turns with the connections
        self._snapshot: SnapshotReader | None = None
        self._snapshot_lsn = 0
        self._snapshot_started = datetime_now_us()
        self._markers = SnapshotMarkers()
        self._stream: ChangeStream | None = None
        self._slot_connection: Any = None  # keeps the exported snapshot alive until it is imported
        self._keyed_topics: set[str] = set()  # found by a dry start (a running task learns them as it reads)

    def version(self) -> str:
        return connectworker.__version__

    def start(self, props: Mapping[str, str]) -> None:
        self._settings = settings = parse_settings(props)
        self._snapshot_started = datetime_now_us()
        partition = source_partition(settings)
        committed = self.context.offset_storage_reader.offset(partition)
        connection = connect(settings)
        try:
            check_setup(connection, settings)
            ensure_publication(connection, settings)
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
            log.info("snapshot.mode=initial_only and the snapshot was taken: nothing more to read")
            return
        resume = plan.resume_lsn
        if plan.create_slot:
            slot_lsn, snapshot_name = self._create_slot(settings)
            if plan.snapshot:
                self._snapshot = SnapshotReader(settings, snapshot_name)
                self._snapshot_lsn = slot_lsn
            resume = max(resume, slot_lsn)
            self._slot_connection.close()  # the snapshot is imported (or not wanted)
            self._slot_connection = None
        self._stream = ChangeStream(settings, partition, resume, None if plan.snapshot else committed)
        log.info(
            "PostgreSQL CDC task for %s starts with %s",
            settings.topic_prefix,
            "a snapshot" if self._snapshot else f"the stream at {pg.format_lsn(resume)}",
        )

    def dry_start(self, props: Mapping[str, str]) -> None:
        """For a dry run: say what a start would do with the committed offset and the slot as they are (a gap
        between them is a warning here, the failure of a real start), and learn which captured tables have a
        key (for compact.keyed.table.topics), over one read-only session. No publication, slot or snapshot."""
        self._settings = settings = parse_settings(props)
        committed = self.context.offset_storage_reader.offset(source_partition(settings))
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
            self._keyed_topics = {
                settings.topic(schema, table)
                for relid, schema, table in list_tables(connection, settings)
                if any(column.key_position for column in table_columns(connection, relid))
            }
        finally:
            connection.close()

    def _create_slot(self, settings: CdcSettings) -> tuple[int, str]:
        """Creates the slot; its consistent point and the name of the snapshot it exported."""
        self._slot_connection = connect(settings, replication=True)
        cursor = self._slot_connection.cursor()
        cursor.create_replication_slot(settings.slot, output_plugin="pgoutput")
        _name, consistent_point, snapshot_name, _plugin = cursor.fetchone()
        log.info("Created slot %s at %s (exported snapshot %s)", settings.slot, consistent_point, snapshot_name)
        return pg.parse_lsn(consistent_point), snapshot_name

    def poll(self) -> list[SourceRecord] | SourceRecordBatch | None:
        with self._lock:
            if self._stopping.is_set() or self._settings is None:
                return None
            if self._snapshot is not None:
                return self._snapshot_batch()
            if self._settings.snapshot_mode == "initial_only":
                self._stopping.wait(self._settings.poll_s)
                return None
            assert self._stream is not None
            return self._stream.read(self._stopping) or None

    def _snapshot_batch(self) -> list[SourceRecord]:
        """The next rows of the snapshot as read (`op` r) records. Each batch's newest record is held back until
        the next batch shows whether it ended its table or the snapshot, for its `source.snapshot` marker."""
        assert self._snapshot is not None and self._settings is not None
        settings = self._settings
        batch = self._snapshot.next_batch()
        if batch is None:
            out: list[SourceRecord] = []
            last = self._markers.finish()
            if last is not None:
                last.source_offset = {**(last.source_offset or {}), "last_snapshot_record": True}
                out.append(last)
            self._snapshot.close()
            self._snapshot = None
            if settings.snapshot_mode == "initial_only":  # a slot nobody reads would keep WAL for ever
                connection = connect(settings)
                try:
                    drop_slot(connection, settings.slot)
                finally:
                    connection.close()
                log.info("Snapshot done (snapshot.mode=initial_only): slot %s dropped", settings.slot)
            else:
                log.info("Snapshot done; streaming from %s", pg.format_lsn(self._snapshot_lsn))
            return out
        shape, rows = batch
        offset = {
            "lsn": self._snapshot_lsn,
            "txId": None,
            "ts_usec": self._snapshot_started,
            "snapshot": True,
            "last_snapshot_record": False,
        }
        source = source_struct(
            settings,
            shape,
            ts_us=self._snapshot_started,
            snapshot="true",
            tx_id=None,
            lsn=self._snapshot_lsn,
            sequence=None,
        )
        records = read_records(shape, rows, source_partition(settings), offset, source)
        out = self._markers.batch((shape.schema_name, shape.table), records)
        if shape.keyed and self._stream is not None:
            self._stream.topics_keyed.add(shape.topic)
        return out

    def commit(self) -> None:
        """The worker stored offsets: tell the slot (through the polling thread) how far Kafka has the changes."""
        if self._settings is None or self._stream is None:
            return
        committed = self.context.offset_storage_reader.offset(source_partition(self._settings))
        if committed and committed.get("lsn") and not committed.get("snapshot"):
            self._stream.committed(int(committed["lsn"]))

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            if self._snapshot is not None:
                self._snapshot.close()
                self._snapshot = None
            if self._slot_connection is not None:
                self._slot_connection.close()
                self._slot_connection = None
            if self._stream is not None:
                self._stream.close()
            settings = self._settings
        if settings is not None and settings.slot_drop_on_stop:
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

    def settings_for_new_topic(self, settings: TopicSettings) -> TopicSettings | None:
        """With compact.keyed.table.topics, a keyed table's topic is compacted: each record's key is the row's
        primary key, so compaction keeps every row's newest change (and drops deleted rows after their
        tombstone)."""
        keyed = self._stream.topics_keyed if self._stream is not None else self._keyed_topics
        if self._settings is not None and self._settings.compact_keyed and settings.name in keyed:
            return settings.with_cleanup_policy(CleanupPolicy.COMPACT)
        return settings


def datetime_now_us() -> int:
    from datetime import UTC, datetime

    return epoch_micros(datetime.now(UTC))
