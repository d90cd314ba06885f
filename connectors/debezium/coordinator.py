"""The life of a CDC task, for every database (Debezium's `ChangeEventSourceCoordinator`): start, the
snapshot if one is due, then the stream; commits, failures and stop.

    start ─► begin() (the database decides: snapshot? resume where?) ─► snapshot batches ─► stream reads
                                                                   └─► idle (initial_only, snapshot taken)

- **The database's part** (a subclass): `parse` its settings, `begin` (its checks, the start decision, a
  `SnapshotSource` and a `StreamingSource`), `dry_start`, and the hooks `snapshot_done` and `stopped`.
- **The snapshot**: read a batch of one table's rows at a time as `op: r` records, with Debezium's
  `source.snapshot` markers; the snapshot's last record carries the offset that says it is complete (with
  no row at all, the last record sent ahead of the rows does, such as MySQL's schema change events).
  `snapshot.mode=initial_only` stops there.
- **The stream**: each poll reads what comes within `poll.interval.ms`, at most `max.batch.size` records.
  A lost server is a `RetriableError` (the worker backs off and polls again; the source reconnects where the
  last record handed on ends) until `errors.retry.timeout` has passed: then the task fails, naming the
  server.
- **Signals and incremental snapshots** (incremental_snapshot.py): the stream acts on the signal table's
  rows as it reads them; before each read, the signals of the other channels (kafka, file: every
  `signal.poll.interval.ms`; REST) are handed to it. After each read the snapshot's progress is reported to
  the worker (REST status, /ui, /metrics); a blocking snapshot asked for runs as the initial one does, the
  stream waiting, its records at the stream's offset.
- **Commits** tell the stream what the offsets store has (PostgreSQL confirms it to its slot).
- **Stop** may come at any time, from another thread: polls and stop take turns with the connections.
"""

from __future__ import annotations

import logging
import threading
import time
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import connectworker
from connectworker.api.errors import ConnectError, RetriableError
from connectworker.api.record import SourceRecord, SourceRecordBatch
from connectworker.api.task import SourceTask
from connectworker.api.topic_settings import CleanupPolicy, TopicSettings

from .capture_keys import RETRY_TIMEOUT
from .emitter import read_records
from .incremental_snapshot import IncrementalSnapshot
from .operator_channel import RestSignalChannel, progress_document
from .settings import CaptureSettings
from .signal_channels import SignalChannels
from .signal_keys import (
    SIGNAL_CHANNELS,
    SIGNAL_FILE,
    SIGNAL_POLL_MS,
    SIGNAL_SERVERS,
    SIGNAL_TOPIC,
    signal_consumer_config,
)
from .signal_types import SnapshotProgress
from .snapshot_markers import SnapshotMarkers
from .table_shape import TableShape

log = logging.getLogger(__name__)


class SnapshotSource(Protocol):
    """A database's consistent snapshot, read a batch at a time."""

    def records_ahead(self) -> list[SourceRecord]:
        """Records sent before the rows (MySQL's schema change events); asked once."""
        ...

    def next_batch(self) -> tuple[TableShape, Sequence[Any]] | None:
        """The next rows of the table being read, as its shape's `row` takes them; None at the end."""
        ...

    def offset(self, *, completed: bool) -> dict[str, Any]:
        """The offset of a snapshot record: `completed` for the snapshot's last (a restart then streams)."""
        ...

    def source(self, shape: TableShape) -> dict[str, Any]:
        """The `source` block of a row of `shape`'s table."""
        ...

    def close(self) -> None:
        """Ends the snapshot's transaction; at the end, and on a stop mid-snapshot."""
        ...


class StreamingSource(Protocol):
    """A database's change stream."""

    topics_keyed: set[str]  # the topics of the keyed tables it has met (compact.keyed.table.topics)
    incremental: IncrementalSnapshot | None  # its incremental snapshots (with a signal table or channel)

    def read(self, stopping: threading.Event) -> list[SourceRecord] | SourceRecordBatch:
        """What comes within poll.interval.ms; raises RetriableError when the server is lost."""
        ...

    def committed(self, offset: Mapping[str, Any]) -> None:
        """The offsets store has every record up to `offset` (called from the worker's committing thread)."""
        ...

    def close(self) -> None: ...


@dataclass
class Start:
    """What `begin` decided: a snapshot to read first or not, and the stream after it (None: nothing more to
    read, as after `snapshot.mode=initial_only`'s snapshot)."""

    snapshot: SnapshotSource | None
    stream: StreamingSource | None


class CdcTask(SourceTask):
    def __init__(self) -> None:
        self.settings: CaptureSettings | None = None
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # poll() and stop() take turns with the connections
        self._snapshot: SnapshotSource | None = None
        self._stream: StreamingSource | None = None
        self._markers = SnapshotMarkers()
        self._failing_since: float | None = None  # monotonic time of the first of consecutive failed reads
        self.keyed_topics: set[str] = set()  # met by the snapshot (or found by a dry start)
        self._channels: SignalChannels | None = None  # the kafka and file signal channels
        self._blocking = False  # the snapshot running is a blocking one (the stream waits for it)
        self._reported: dict[str, Any] | None = None  # the progress last reported

    # -- the database's part ---------------------------------------------------------------------
    @abstractmethod
    def parse(self, props: Mapping[str, str]) -> CaptureSettings:
        """The settings of `props`; raises ConfigError naming every bad key."""

    @abstractmethod
    def begin(self, settings: CaptureSettings, committed: Mapping[str, Any] | None) -> Start:
        """Checks the server, decides how the task starts from its committed offset, and makes its sources."""

    @abstractmethod
    def blocking_snapshot(self, tables: Sequence[str]) -> SnapshotSource:
        """A snapshot of `tables` now, its records at the stream's position (a blocking snapshot: the stream
        waits meanwhile)."""

    def snapshot_done(self) -> None:
        """After the snapshot's last record is handed on (PostgreSQL drops an initial_only snapshot's slot)."""

    def stopped(self) -> None:
        """After the sources are closed at stop (PostgreSQL's slot.drop.on.stop, MySQL's history)."""

    # -- the life ----------------------------------------------------------------------------------
    @property
    def partition(self) -> dict[str, str]:
        """Debezium's one source partition: `{"server": <topic.prefix>}`."""
        assert self.settings is not None
        return {"server": self.settings.topic_prefix}

    def version(self) -> str:
        return connectworker.__version__

    def start(self, props: Mapping[str, str]) -> None:
        self.settings = settings = self.parse(props)
        committed = self.context.offset_storage_reader.offset(self.partition)
        start = self.begin(settings, committed)
        self._snapshot, self._stream = start.snapshot, start.stream
        if start.stream is not None and settings.signals.channels - {"source"}:
            self._channels = open_channels(settings, props, committed)
        if start.snapshot is None and start.stream is None:
            log.info("snapshot.mode=%s and the snapshot was taken: nothing more to read", settings.snapshot_mode)

    def poll(self) -> list[SourceRecord] | SourceRecordBatch | None:
        with self._lock:
            if self._stopping.is_set() or self.settings is None:
                return None
            if self._snapshot is not None:
                return self._snapshot_batch(self._snapshot)
            if self._stream is None:  # idle: nothing more to read
                self._stopping.wait(self.settings.poll_s)
                return None
            engine = self._stream.incremental
            if engine is not None:  # the other channels' signals, acted on at the stream's next read
                engine.signals.extend(self._channels.poll_due() if self._channels is not None else ())
                engine.signals.extend(RestSignalChannel(self.context).poll())
            try:
                records = self._stream.read(self._stopping)
            except RetriableError as exc:
                self._give_up_after_retry_timeout(exc)
                raise
            self._failing_since = None
            if engine is not None:
                self._report(engine.progress())
            if engine is not None and engine.blocking is not None:
                tables, engine.blocking = [c.id for c in engine.blocking], None
                log.info("Blocking snapshot of %s: streaming waits until it is done", ", ".join(tables))
                self._snapshot, self._blocking = self.blocking_snapshot(tables), True
                self._markers = SnapshotMarkers()
            return records or None

    def _snapshot_batch(self, snapshot: SnapshotSource) -> list[SourceRecord]:
        """The next rows of the snapshot as read (`op: r`) records. Each batch's last record is held back
        until the next batch shows whether it ended its table or the snapshot, for its marker."""
        assert self.settings is not None
        out = snapshot.records_ahead()
        batch = snapshot.next_batch()
        if batch is None:
            last = self._markers.finish()
            if last is not None:
                out.append(last)
            if out:  # the last row, or with no row at all the last record sent ahead, ends the snapshot
                out[-1].source_offset = snapshot.offset(completed=True)
            snapshot.close()
            self._snapshot = None
            if self._blocking:
                self._blocking = False
                log.info("Blocking snapshot done; streaming resumes")
                return out
            if self.settings.snapshot_mode == "initial_only":
                if self._stream is not None:
                    self._stream.close()
                    self._stream = None
                log.info("Snapshot done (snapshot.mode=initial_only): nothing more to read")
            else:
                log.info("Snapshot done; streaming")
            self.snapshot_done()
            return out
        shape, rows = batch
        records = read_records(shape, rows, self.partition, snapshot.offset(completed=False), snapshot.source(shape))
        out += self._markers.batch(shape.id, records)
        if shape.keyed:
            self.keyed_topics.add(shape.topic)
        return out

    def _report(self, progress: SnapshotProgress | None) -> None:
        """The snapshot's progress for the REST status, /ui and /metrics, when it changed."""
        document = progress_document(progress)
        if document != self._reported:
            self._reported = document
            self.context.report_progress(document)

    def _give_up_after_retry_timeout(self, exc: RetriableError) -> None:
        """Raises a ConnectError (the task fails) once the stream has been failing for longer than
        errors.retry.timeout; before that the worker polls again with backoff."""
        assert self.settings is not None
        limit = self.settings.retry_timeout_ms
        now = time.monotonic()
        if self._failing_since is None:
            self._failing_since = now
        if limit is None or limit < 0 or (now - self._failing_since) * 1000 < limit:
            return
        raise ConnectError(
            f"{exc}. The server at {self.settings.where} was unreachable for longer than {RETRY_TIMEOUT}={limit} "
            f"ms: the task stops. Restart it once the server is back (it resumes at its committed offset), or "
            f"raise {RETRY_TIMEOUT} (-1: retry forever)."
        ) from None

    def commit(self) -> None:
        """The worker stored offsets: tell the stream how far Kafka has the changes."""
        if self.settings is None or self._stream is None:
            return
        committed = self.context.offset_storage_reader.offset(self.partition)
        if committed:
            self._stream.committed(committed)

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            if self._snapshot is not None:
                self._snapshot.close()
                self._snapshot = None
            if self._stream is not None:
                self._stream.close()
            if self._channels is not None:
                self._channels.close()
            self.stopped()

    def settings_for_new_topic(self, settings: TopicSettings) -> TopicSettings | None:
        """With compact.keyed.table.topics, a keyed table's topic is compacted: each record's key is the row's
        key, so compaction keeps every row's newest change (and drops deleted rows after their tombstone)."""
        if self.settings is None or not self.settings.compact_keyed:
            return settings
        keyed = settings.name in self.keyed_topics or (
            self._stream is not None and settings.name in self._stream.topics_keyed
        )
        return settings.with_cleanup_policy(CleanupPolicy.COMPACT) if keyed else settings


def open_channels(
    settings: CaptureSettings, props: Mapping[str, str], committed: Mapping[str, Any] | None
) -> SignalChannels:
    """The kafka and file signal channels the settings enable, Kafka's read on from the committed position."""
    signals = settings.signals
    values = {
        SIGNAL_CHANNELS: sorted(signals.channels),
        SIGNAL_FILE: signals.file,
        SIGNAL_SERVERS: signals.kafka_servers,
        SIGNAL_TOPIC: signals.kafka_topic,
        SIGNAL_POLL_MS: int(signals.poll_s * 1000),
    }
    return SignalChannels.from_values(
        values, topic_prefix=settings.topic_prefix, offset=committed, consumer_config=signal_consumer_config(props)
    )
