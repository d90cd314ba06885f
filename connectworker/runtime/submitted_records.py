"""Which source offsets may be committed: those whose record, and every earlier record of the same
source partition, Kafka has acknowledged (Kafka Connect's `SubmittedRecords`).

Each produced record gets a `Submission`, which is also the producer's delivery callback, so the
per-record cost is one small object. Acks may arrive out of order across Kafka partitions; a
source partition's offset advances only over its acknowledged prefix.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Protocol

from confluent_kafka import KafkaError, Message

from connectworker.api.record import SourcePartition, SourceRecord
from connectworker.runtime.offset_store import partition_key

class SubmissionOwner(Protocol):
    """Told about failures always, and about acks only when `on_ack` is not None (it costs a call)."""

    on_ack: Any  # Callable[[Submission, Message], None] | None

    def on_failure(self, submission: Submission, err: KafkaError) -> None: ...


class Submission:
    """One in-flight record; called by the producer when Kafka acknowledges or rejects it."""

    __slots__ = ("acked", "owner", "record", "resends")

    def __init__(self, record: SourceRecord, owner: SubmissionOwner) -> None:
        self.record = record
        self.owner = owner
        self.acked = False
        self.resends = 0

    def __call__(self, err: KafkaError | None, msg: Message) -> None:
        if err is None:
            self.acked = True
            on_ack = self.owner.on_ack
            if on_ack is not None:
                on_ack(self, msg)
        else:
            self.owner.on_failure(self, err)


class SubmittedRecords:
    """In-flight records per source partition, in submission order. Used by one task thread."""

    def __init__(self) -> None:
        self._pending: dict[str, deque[Submission]] = {}
        self._last_partition: SourcePartition | None = None
        self._last_key = ""
        self._in_flight = 0

    def submit(self, record: SourceRecord, owner: SubmissionOwner) -> Submission:
        partition = record.source_partition
        # Connectors usually reuse one partition dict: skip re-serialising it for every record.
        if partition is not self._last_partition:
            self._last_partition = partition
            self._last_key = partition_key(partition)
        submission = Submission(record, owner)
        queue = self._pending.get(self._last_key)
        if queue is None:
            queue = self._pending[self._last_key] = deque()
        queue.append(submission)
        self._in_flight += 1
        return submission

    def committable(self) -> dict[str, Any]:
        """Pop each partition's acknowledged prefix; return the newest offset of each prefix."""
        offsets: dict[str, Any] = {}
        for key, queue in self._pending.items():
            newest = None
            while queue and queue[0].acked:
                offset = queue.popleft().record.source_offset
                if offset is not None:  # records without an offset are delivered but never committed
                    newest = offset
            if newest is not None:
                offsets[key] = newest
        self._in_flight = sum(len(q) for q in self._pending.values())
        for key in [k for k, q in self._pending.items() if not q]:
            del self._pending[key]
        return offsets

    @property
    def in_flight(self) -> int:
        """Records submitted but not yet popped by `committable` (acked or not)."""
        return self._in_flight
