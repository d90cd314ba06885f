"""Which source offsets may be committed.

Kafka Connect commits a source partition's offset once that record and every earlier record of the
partition were acknowledged. We track acknowledgements per poll batch instead of per record: a
batch's offsets are committed once it and every earlier batch of the task are fully acknowledged.
That commits a prefix of each source partition, as Kafka requires (a little more conservatively
when one task interleaves partitions), at a fraction of the per-record cost.

A batch learns it was acknowledged in one of two ways:
- counted down by per-record delivery reports (a `RecordAck` per record), when the task wants
  `commit_record` calls;
- otherwise, the producer reports only failures (`delivery.report.only.error`, which saves a Python
  call per record), and a producer flush that leaves nothing outstanding, with no failure reported,
  proves every batch submitted before it was acknowledged (`mark_all_delivered`).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Protocol

from confluent_kafka import KafkaError, Message

from connectworker.api.record import SourceRecord, SourceRecordBatch
from connectworker.runtime.offsets.source_offsets import newest_offsets


class BatchOwner(Protocol):
    def on_failure(self, callback: RecordAck | None, err: KafkaError, msg: Message, *, pinned: bool) -> None: ...

    def on_ack(self, record: SourceRecord, msg: Message) -> None: ...


class InFlightBatch:
    """The records of one poll: their newest offsets, and how many Kafka has yet to acknowledge."""

    __slots__ = ("offsets", "owner", "remaining", "size")

    def __init__(self, offsets: dict[str, Any], size: int, owner: BatchOwner) -> None:
        # Keep only the offsets, not the records: in-flight records would otherwise stay alive until
        # the next commit, and a heap of live objects makes every garbage collection slower.
        self.offsets = offsets
        self.owner = owner
        self.size = self.remaining = size


class RecordAck:
    """Per-record callback, used only for tasks that override `commit_record`."""

    __slots__ = ("batch", "pinned", "record")

    def __init__(self, batch: InFlightBatch, record: SourceRecord, pinned: bool) -> None:
        self.batch = batch
        self.record = record
        self.pinned = pinned  # the task chose the record's partition

    def __call__(self, err: KafkaError | None, msg: Message) -> None:
        batch = self.batch
        if err is None:
            batch.remaining -= 1
            batch.owner.on_ack(self.record, msg)
        else:
            batch.owner.on_failure(self, err, msg, pinned=self.pinned)


class SubmittedRecords:
    """A task's in-flight batches, oldest first. Used by the task's own thread only."""

    def __init__(self) -> None:
        self._batches: deque[InFlightBatch] = deque()
        self.in_flight = 0  # records submitted and not yet popped by `committable`

    def submit(self, records: list[SourceRecord] | SourceRecordBatch, owner: BatchOwner) -> InFlightBatch:
        return self.submit_offsets(newest_offsets(records), len(records), owner)

    def submit_offsets(self, offsets: dict[str, Any], size: int, owner: BatchOwner) -> InFlightBatch:
        """Track `size` records about to be produced, whose newest offsets per partition are `offsets`."""
        batch = InFlightBatch(offsets, size, owner)
        self._batches.append(batch)
        self.in_flight += size
        return batch

    def clear(self) -> None:
        """Forget every batch (an aborted transaction's: its records are produced again)."""
        self._batches.clear()
        self.in_flight = 0

    def shrink(self, batch: InFlightBatch, offsets: dict[str, Any], produced: int) -> None:
        """Only the first `produced` records of `batch` reached the producer: the rest never will, so
        the batch commits `offsets` (those of the records before the first unsent one) once they are
        acknowledged. The caller holds off delivery reports while it shrinks the batch."""
        unsent = batch.size - produced
        batch.offsets = offsets
        batch.size = produced
        batch.remaining -= unsent
        self.in_flight -= unsent

    def mark_all_delivered(self) -> None:
        """Every submitted record was acknowledged (a flush left nothing outstanding, no failure)."""
        for batch in self._batches:
            batch.remaining = 0

    def pending_offsets(self) -> dict[str, Any]:
        """The newest offset per source partition of the batches not committed yet."""
        offsets: dict[str, Any] = {}
        for batch in self._batches:  # oldest first: a newer batch's offset wins
            offsets.update(batch.offsets)
        return offsets

    def committable(self) -> tuple[dict[str, Any], int]:
        """Pop the fully acknowledged prefix of batches: (newest offset per partition, record count)."""
        offsets: dict[str, Any] = {}
        count = 0
        batches = self._batches
        while batches and batches[0].remaining == 0:
            batch = batches.popleft()
            offsets.update(batch.offsets)
            count += batch.size
        self.in_flight -= count
        return offsets, count
