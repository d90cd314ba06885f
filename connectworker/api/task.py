"""`SourceTask`: the unit of work that polls an external system for records."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection, Mapping
from typing import Any, Protocol

from connectworker.api.errors import DryRunUnsupported
from connectworker.api.exactly_once import TransactionContext
from connectworker.api.operator import OperatorSignal
from connectworker.api.record import RecordMetadata, SourceOffset, SourcePartition, SourceRecord, SourceRecordBatch
from connectworker.api.topic_settings import TopicSettings


class OffsetStorageReader(Protocol):
    """Reads the last committed source offsets, so a restarted task resumes where it stopped."""

    def offset(self, partition: SourcePartition) -> SourceOffset | None: ...

    def offsets(self, partitions: Collection[SourcePartition]) -> dict[str, SourceOffset | None]:
        """Offsets keyed by the canonical JSON of each partition (see `partition_key`)."""
        ...


class SourceTaskContext(Protocol):
    @property
    def offset_storage_reader(self) -> OffsetStorageReader: ...

    def configs(self) -> Mapping[str, str]: ...

    @property
    def transaction_context(self) -> TransactionContext | None:
        """Present only for `transaction.boundary=connector` on an exactly-once worker."""
        ...

    def report_progress(self, progress: Mapping[str, Any] | None) -> None:
        """Publish what the task is doing, for its operators (api/operator.py): a small JSON object the
        REST status shows as the task's `progress` (its `snapshot` member also on `/ui` and `/metrics`);
        None takes it away. Kept as a copy; raises ValueError for what is not a JSON object or is over
        `MAX_PROGRESS_BYTES`. Cheap enough to call after every batch; a context without operators
        ignores it."""
        ...

    def operator_signals(self) -> list[OperatorSignal]:
        """The signals operators sent the task (`POST /connectors/NAME/signals`) since the last call,
        oldest first; each is handed out once. A context without operators has none."""
        ...


class SourceTask(ABC):
    """Subclass this to read from an external system.

    The worker calls `start` once, then `poll` in a loop on the task's own thread, and `stop` from
    another thread when the task must end (so `poll` should return within a second or so).
    """

    context: SourceTaskContext

    def initialize(self, context: SourceTaskContext) -> None:
        self.context = context

    @abstractmethod
    def version(self) -> str: ...

    @abstractmethod
    def start(self, props: Mapping[str, str]) -> None: ...

    def dry_start(self, props: Mapping[str, str]) -> None:
        """Start for a dry run, only to answer `settings_for_new_topic` (`connectworker plan`, the REST
        plan, topic drift), with **no side effect outside this process**: read what the answer needs (the
        committed offsets, which `context.offset_storage_reader` gives as the real run would get them; a
        catalog query), but create, lock or write nothing (no table, replication slot, lock, file, topic,
        offset) and leave nothing behind `stop` (no thread, no open session). `poll` is never called;
        `stop` follows.

        The default refuses (raises `DryRunUnsupported`): the dry run then shows the settings of the
        connector's `topic.creation.*` rules, saying that this task's `settings_for_new_topic` was not
        asked. A task whose `start` has no such side effect implements it as `self.start(props)`."""
        raise DryRunUnsupported(
            f"{type(self).__name__} does not implement dry_start "
            "(its start may have side effects a dry run must not have)"
        )

    @abstractmethod
    def poll(self) -> list[SourceRecord] | SourceRecordBatch | None:
        """Records available now, or None/[] when there are none (the worker polls again).

        High-rate sources may return a `SourceRecordBatch` (columns instead of record objects).
        """

    @abstractmethod
    def stop(self) -> None:
        """Signal the task to stop; called from another thread, must not block for long."""

    def commit(self) -> None:
        """Called after the worker committed offsets; hook for acknowledging upstream."""

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        """Called once Kafka acknowledged `record` (metadata None if it was filtered out)."""

    def settings_for_new_topic(self, settings: TopicSettings) -> TopicSettings | None:
        """Adjust or veto the settings of a topic the worker is about to create.

        Called once per new topic with the settings of the connector's matching `topic.creation.*`
        rule. Return the (possibly modified) settings, or ``None`` to skip creating the topic, in which
        case the broker's auto-create applies when the first record is produced.
        """
        return settings
