"""Which offsets may be committed: only those of a fully acknowledged prefix of batches."""

from __future__ import annotations

from confluent_kafka import KafkaError, Message

from connectworker.api import SourceRecord, SourceRecordBatch
from connectworker.runtime.offsets.file_store import partition_key
from connectworker.runtime.tasks.submitted_records import RecordAck, SubmittedRecords


class Owner:
    def __init__(self) -> None:
        self.acked: list[str] = []

    def on_failure(self, callback: RecordAck | None, err: KafkaError, msg: Message, *, pinned: bool) -> None:
        raise AssertionError("no failure expected")

    def on_ack(self, record: SourceRecord, msg: Message) -> None:
        self.acked.append(record.key)


def records(partition: dict, first: int, count: int) -> list[SourceRecord]:
    return [SourceRecord(partition, {"n": i + 1}, "t", "v", str(i)) for i in range(first, first + count)]


def test_a_later_batch_acknowledged_first_commits_nothing_until_the_earlier_one_is() -> None:
    submitted, owner = SubmittedRecords(), Owner()
    first = submitted.submit(records({"p": 1}, 0, 3), owner)
    second = submitted.submit(records({"p": 1}, 3, 2), owner)
    second.remaining = 0
    assert submitted.committable() == ({}, 0)
    first.remaining = 0
    assert submitted.committable() == ({partition_key({"p": 1}): {"n": 5}}, 5)
    assert submitted.in_flight == 0


def test_per_record_acks_count_down_their_batch_and_reach_commit_record() -> None:
    submitted, owner = SubmittedRecords(), Owner()
    batch_records = records({"p": 2}, 0, 2)
    batch = submitted.submit(batch_records, owner)
    for record in batch_records:
        RecordAck(batch, record, False)(None, None)  # type: ignore[arg-type]
    assert owner.acked == ["0", "1"]
    assert submitted.committable() == ({partition_key({"p": 2}): {"n": 2}}, 2)


def test_a_clean_flush_marks_every_batch_delivered_including_columnar_ones() -> None:
    submitted = SubmittedRecords()
    submitted.submit(records({"p": 1}, 0, 2), Owner())
    submitted.submit(SourceRecordBatch({"p": 3}, [None, {"n": 9}], ["t", "t"], ["a", "b"], ["v", "w"]), Owner())
    submitted.mark_all_delivered()
    offsets, count = submitted.committable()
    assert offsets == {partition_key({"p": 1}): {"n": 2}, partition_key({"p": 3}): {"n": 9}} and count == 4


def test_pending_offsets_name_the_newest_uncommitted_offset_of_each_partition() -> None:
    """What a stop that could not commit everything reports (tests/unit/test_uncommitted_offsets.py)."""
    submitted, owner = SubmittedRecords(), Owner()
    first = submitted.submit(records({"p": 1}, 0, 3), owner)
    submitted.submit(records({"p": 2}, 0, 2), owner)
    submitted.submit(records({"p": 1}, 3, 2), owner)
    assert submitted.pending_offsets() == {partition_key({"p": 1}): {"n": 5}, partition_key({"p": 2}): {"n": 2}}
    first.remaining = 0
    submitted.committable()
    assert submitted.pending_offsets() == {partition_key({"p": 2}): {"n": 2}, partition_key({"p": 1}): {"n": 5}}
    assert submitted.in_flight == 4
