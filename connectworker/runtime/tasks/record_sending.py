"""The send half of a source task (`RecordSender`, held by `WorkerSourceTask`): one poll's records
through the transforms, the converters and the topic gate to the producer, re-sent when their topic
vanished and was created again, and the failures the producer reports.

Nothing of a poll reaches the producer before every record is converted and its offsets are known to
be storable; when the producer refuses a record, the poll's in-flight batch shrinks to the records
before it, so no offset is ever committed for a record that was not sent.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterator, Sequence
from functools import partial
from itertools import islice
from operator import length_hint
from typing import Any, NoReturn

from confluent_kafka import KafkaError, KafkaException, Message, Producer

from connectworker.api.record import SourceRecord, SourceRecordBatch
from connectworker.api.task import SourceTask
from connectworker.runtime.observability.task_metrics import TaskMetrics
from connectworker.runtime.offsets.source_offsets import InvalidSourceOffsetError, newest_offsets
from connectworker.runtime.tasks.delivery_reports import DeliveryReportPump
from connectworker.runtime.tasks.error_tolerance import ToleranceOperator
from connectworker.runtime.tasks.poll_results import BadPollResultError, bad_item_message, check_poll_result
from connectworker.runtime.tasks.poll_survey import survey
from connectworker.runtime.tasks.record_conversion import ConvertedPoll
from connectworker.runtime.tasks.send_failures import pinned_partition_hint, placement, send_failure_message
from connectworker.runtime.tasks.submitted_records import BatchOwner, InFlightBatch, RecordAck, SubmittedRecords
from connectworker.runtime.tasks.task_parts import TaskParts
from connectworker.runtime.tasks.transform_chain import TransformationChain
from connectworker.runtime.tasks.vanished_topics import TaskFailure, VanishedTopics
from connectworker.topics.admin import MISSING_CODES

log = logging.getLogger(__name__)

QUEUE_FULL_WAIT_S = 0.002
"""How long a task waits when the producer's local queue is full. Short, because without per-record
delivery reports nothing wakes the wait early when room is made: a 50 ms wait left the broker idle
for a third of a bulk run."""


DeliveryCallback = Callable[[KafkaError | None, Message], None]
"""What `Producer.produce` calls with a record's delivery report (`on_delivery`)."""

_consume: Callable[[Iterator[object]], object] = partial(deque, maxlen=0)
"""Run an iterator to its end in C (the `consume` recipe of itertools)."""


def _byte_count(chunks: list[bytes | None]) -> int:
    """Bytes in `chunks`, None counting 0. This runs for every record produced: one C loop over the
    lengths (in place, cheaper than joining them: 57 against 84 ns per record), and only a column with a
    None (a null key or value) takes the filtered second loop."""
    try:
        return sum(map(len, chunks))  # type: ignore[arg-type]  # a None raises TypeError: filtered below
    except TypeError:
        return sum(map(len, filter(None, chunks)))


def _topics_of(topics: Sequence[str]) -> set[str]:
    """The distinct topics of a poll; most polls name one topic only, which a C count tells at once."""
    if topics and isinstance(topics, list) and topics.count(topics[0]) == len(topics):
        return {topics[0]}
    return set(topics)


class RecordSender:
    """Sends a task's polls to its producer. Owns what sending needs between polls: the topics known to
    be ready, the transform chain, the poll being sent, the topics being re-created, the first failure
    reported, and the counters of records polled, produced and their bytes.

    Used by the task's thread, but for the delivery callbacks (`on_error`, `on_pinned_error`,
    `failed`), which run on whichever thread serves delivery reports."""

    def __init__(
        self,
        *,
        name: str,
        task: SourceTask,
        parts: TaskParts,
        tolerance: ToleranceOperator,
        submitted: SubmittedRecords,
        listener: BatchOwner,
        wants_acks: bool,
        vanished: VanishedTopics,
        metrics: TaskMetrics,
        before_produce: Callable[[Producer, Collection[str]], None],
        on_topics: Callable[[set[str]], None] | None = None,
    ) -> None:
        self.name = name
        self.task = task
        """The connector's task (its `settings_for_new_topic` and `commit_record`); replaced when the
        exactly-once task restarts it."""
        self.tolerance = tolerance
        self.metrics = metrics
        self.vanished = vanished
        self.failure: str | None = None
        """The first failure a delivery report gave: the task fails with it."""
        self.pump: DeliveryReportPump | None = None  # set once the producer exists
        self.chain: TransformationChain | None = None  # built on the task thread, so a failure fails the task
        self.produced = 0
        self.polled = 0  # records the task returned, transformed or dropped alike
        self.bytes_out = 0  # key and value bytes of the records handed to the producer
        self._gate = parts.topic_gate
        self._errors = parts.error_handling
        self._serializer = parts.serializer(tolerance)
        self._submitted = submitted
        self._listener = listener
        self._wants_acks = wants_acks
        self._before_produce = before_produce
        self._on_topics = on_topics
        self._ready_topics: set[str] = set()
        self._forget_topics = threading.Event()
        self._poll_origin: tuple[Sequence[SourceRecord] | SourceRecordBatch, list[int]] | None = None

    def _ensure_topics(self, topics: set[str]) -> None:
        new = topics - self._ready_topics
        self._gate.ensure(new, self.task.settings_for_new_topic, self.name)
        self._ready_topics |= new
        if self._on_topics is not None:
            self._on_topics(new)

    def forget_reported_topics(self) -> None:
        """Report every topic again on its next use (REST `PUT /connectors/{name}/topics/reset`)."""
        self._forget_topics.set()

    def send(self, producer: Producer, result: object, poll_seconds: float) -> None:
        """Check, convert and produce one poll. Nothing of it reaches the producer before every record
        is converted and its offsets are known to be storable; if the producer refuses a record, the
        poll's batch shrinks to the records before it, so no offset is committed for an unsent record."""
        if self._forget_topics.is_set():
            self._forget_topics.clear()
            self._ready_topics = set()  # re-checked against the worker's cache: no Admin request
        polled = check_poll_result(result, self.name)
        self.polled += len(polled)
        self.metrics.polled(poll_seconds, len(polled))
        try:
            surveyed = None if isinstance(polled, SourceRecordBatch) else survey(polled)
            # of every record polled: those the chain drops advance too
            offsets = newest_offsets(polled, one_partition=surveyed is not None and surveyed.one_partition)
            sent = self._transformed(polled)
            if isinstance(sent, SourceRecordBatch):
                converted = self._serializer.convert_batch(sent)
            else:
                converted = self._serializer.convert_records(sent, surveyed if sent is polled else None)
        except InvalidSourceOffsetError as exc:
            raise TaskFailure(
                f"Task {self.name} returned records whose offsets cannot be committed: {exc}. "
                f"Nothing of this poll was sent."
            ) from None
        except AttributeError:
            raise BadPollResultError(bad_item_message(polled, self.name)) from None
        for record in converted.dropped:  # skipped under errors.tolerance=all: done, as Kafka does
            self.record_done(record)
        topics = _topics_of(converted.topics)
        if not topics <= self._ready_topics:
            self._ensure_topics(topics)
        self._before_produce(producer, topics)
        batch = self._submitted.submit_offsets(offsets, len(converted.topics), self._listener)
        if not self._wants_acks and converted.plain:
            self._send_columns(producer, converted, sent, batch)
        else:
            self._send_records(producer, converted, sent, batch)
        self.produced += len(converted.topics)
        self.bytes_out += _byte_count(converted.keys) + _byte_count(converted.values)
        self._poll_origin = None  # the poll as returned is not needed once sent: free it with the poll

    def _transformed(
        self, polled: Sequence[SourceRecord] | SourceRecordBatch
    ) -> Sequence[SourceRecord] | SourceRecordBatch:
        """The poll after the connector's transforms (as polled without any); remembers which polled
        record each one came from, for `_unsent_from`."""
        self._poll_origin = None
        if self.chain is None:
            return polled
        transformed = self.chain.apply_poll(polled, self.tolerance)
        for record in transformed.dropped:  # filtered, or skipped under errors.tolerance=all: done
            self.record_done(record)
        self._poll_origin = (polled, transformed.origin)
        return transformed.records

    def _send_records(
        self, producer: Producer, converted: ConvertedPoll, polled: Sequence[SourceRecord], batch: InFlightBatch
    ) -> None:
        produce = producer.produce
        per_record = self._wants_acks
        records = converted.records if converted.records is not None else polled
        all_headers = converted.headers
        for i, (record, key, value) in enumerate(zip(records, converted.keys, converted.values, strict=True)):
            partition = record.partition
            callback: DeliveryCallback | None
            if per_record:
                callback = RecordAck(batch, self._as_polled(i, converted, record), partition is not None)
            else:  # the producer-wide report, but for a pinned partition (see _on_pinned_error)
                callback = None if partition is None else self.on_pinned_error
            headers = all_headers[i] if all_headers is not None else None
            if callback is None and record.timestamp is None and headers is None:
                try:
                    produce(record.topic, value, key)  # the common case: positional arguments only, fastest
                    continue
                except (BufferError, KafkaException):
                    pass  # a full queue or a vanished topic: the patient path below waits it out
            try:
                self._produce_patiently(
                    producer, record.topic, value, key, partition, callback, record.timestamp, headers
                )
            except BaseException as exc:
                self._unsent_from(i, exc, polled, converted, batch)

    def _send_columns(
        self,
        producer: Producer,
        converted: ConvertedPoll,
        polled: Sequence[SourceRecord] | SourceRecordBatch,
        batch: InFlightBatch,
    ) -> None:
        """The fast path, for records without a fixed partition, timestamp or headers and without
        per-record delivery reports: topic, value and key are all that is produced, by `produce` called
        from a C loop. When it refuses one (a full queue, a vanished topic), the values' iterator tells
        which: that record takes the patient path, and the C loop goes on from the next one."""
        produce = producer.produce
        topics, keys, values = converted.topics, converted.keys, converted.values
        start = 0
        while start < len(values):
            rest = iter(values[start:] if start else values)
            try:
                _consume(map(produce, islice(topics, start, None), rest, islice(keys, start, None)))
                return
            except (BufferError, KafkaException):
                index = len(values) - 1 - length_hint(rest)
            except BaseException as exc:
                self._unsent_from(len(values) - 1 - length_hint(rest), exc, polled, converted, batch)
            try:  # a full queue or a vanished topic: the patient path waits it out
                self._produce_patiently(producer, topics[index], values[index], keys[index], None, None, None, None)
            except BaseException as exc:
                self._unsent_from(index, exc, polled, converted, batch)
            start = index + 1

    def _as_polled(self, index: int, converted: ConvertedPoll, record: SourceRecord) -> SourceRecord:
        """The record as the task returned it, for `commit_record` (Kafka passes the record before its
        transforms): converted record `index` is `record` after the chain."""
        if self._poll_origin is None:
            return record
        polled, origin = self._poll_origin
        return polled[origin[converted.polled_index(index)]]

    def _unsent_from(
        self,
        index: int,
        exc: BaseException,
        polled: Sequence[SourceRecord],
        converted: ConvertedPoll,
        batch: InFlightBatch,
    ) -> NoReturn:
        """Record `index` of `converted` (and every later one) never reached the producer: shrink the
        batch to the records before it, then fail the task saying which record and why."""
        first_unsent = converted.polled_index(index)
        record = polled[first_unsent]
        if self._poll_origin is not None:  # count in the poll as the task returned it
            polled, origin = self._poll_origin
            first_unsent = origin[first_unsent]
        try:
            offsets = newest_offsets(polled[:first_unsent]) if first_unsent else {}
        except InvalidSourceOffsetError:
            offsets = {}  # an earlier, unchecked offset of this poll is bad: commit none of the poll
        assert self.pump is not None
        with self.pump.holding_reports():
            self._submitted.shrink(batch, offsets, index)
        self.produced += index
        if isinstance(exc, TaskFailure | KeyboardInterrupt | SystemExit):
            raise exc
        raise TaskFailure(send_failure_message(self.name, record, converted.values[index], exc)) from exc

    def _produce_patiently(
        self,
        producer: Producer,
        topic: str,
        value: bytes | None,
        key: bytes | None,
        partition: int | None,
        callback: DeliveryCallback | None,
        timestamp: int | None,
        headers: Any,
    ) -> None:
        """Produce one record, waiting out a full local queue or a topic that is being re-created."""
        while True:
            try:
                producer.produce(
                    topic,
                    value,
                    key,
                    -1 if partition is None else partition,
                    on_delivery=callback,
                    timestamp=timestamp or 0,
                    headers=headers or None,
                )
                return
            except BufferError:
                # The local queue is full: serve delivery reports until there is room again.
                assert self.pump is not None
                self.pump.serve(QUEUE_FULL_WAIT_S)
            except KafkaException as exc:
                err = exc.args[0] if exc.args and isinstance(exc.args[0], KafkaError) else None
                if err is None or err.code() not in MISSING_CODES:
                    raise
                # librdkafka already knows the topic is gone (deleted at run time)
                self._recover_topic(producer, topic)
            if self.failure is not None:
                raise TaskFailure(self.failure)

    def _recover_topic(self, producer: Producer, topic: str) -> None:
        """Make a topic that vanished at run time ready again, within topic.creation.timeout.ms."""
        self.vanished.check(topic)
        if topic in self._ready_topics:
            log.warning("Topic %s is unknown to the broker (deleted while in use?); creating it again", topic)
            self._gate.forget(topic)
            self._ready_topics.discard(topic)
            self._ensure_topics({topic})
        # The producer caches "unknown topic" for a while: refresh its view of the topic.
        producer.list_topics(topic, timeout=5)
        time.sleep(0.05)

    def _send_again(self, producer: Producer) -> None:
        """Re-send records that failed while their topic was being re-created.

        Each topic is made ready once per call, not once per record: a task at full speed has
        thousands of records in flight when its topic is deleted, and waiting for the topic's metadata
        once per record outlasted topic.creation.timeout.ms. Only the records queued when the call
        starts are sent; those that fail again are queued again for the next call."""
        resend = self.vanished.resend
        recovered: set[str] = set()
        for _ in range(len(resend)):
            ack, msg, topic_unknown, pinned = resend.popleft()
            topic = msg.topic()
            assert topic is not None  # a produced message always names its topic
            if topic_unknown and topic not in recovered:
                self._recover_topic(producer, topic)
                recovered.add(topic)
            ts_type, ts = msg.timestamp()
            # A record the task pinned goes back to its partition; the producer places the others again.
            partition = msg.partition() if pinned else None
            callback: DeliveryCallback | None = ack if ack is not None or not pinned else self.on_pinned_error
            try:
                self._produce_patiently(
                    producer, topic, msg.value(), msg.key(), partition, callback, ts if ts_type else None, msg.headers()
                )
            except KafkaException as exc:  # e.g. a pinned partition the topic no longer has
                reason = exc.args[0].str() if isinstance(exc.args[0], KafkaError) else str(exc)
                raise TaskFailure(
                    f"Task {self.name} could not send a record again after {placement(topic, partition)} was "
                    f"deleted and created again: {reason}. Offsets after the last acknowledged record are not "
                    f"committed, so the record will be re-sent after a restart."
                ) from exc

    def resend_and_check(self, producer: Producer) -> None:
        """After each poll: re-send what failed while its topic was re-created, and fail the task with the
        failure a delivery report gave, if any."""
        if self.vanished.resend:
            self._send_again(producer)
        if self.failure is not None:
            raise TaskFailure(self.failure)

    def all_delivered(self) -> bool:
        """Nothing waits to be re-sent and no delivery failed: after a flush that left nothing outstanding,
        every record submitted was acknowledged."""
        return not self.vanished.resend and self.failure is None

    # -- delivery reports (on the task thread, or the pump's while the task blocks in poll) ------
    def on_error(self, err: KafkaError | None, msg: Message) -> None:
        """The producer-wide delivery report, for failures only (tasks without `commit_record`)."""
        if err is not None:
            self._listener.on_failure(None, err, msg, pinned=False)

    def on_pinned_error(self, err: KafkaError | None, msg: Message) -> None:
        """The delivery report of a record whose partition the task chose (tasks without `commit_record`):
        "unknown partition" then means the task named one the topic lacks, not that the topic vanished."""
        if err is not None:
            self._listener.on_failure(None, err, msg, pinned=True)

    def failed(self, callback: RecordAck | None, err: KafkaError, msg: Message, *, pinned: bool) -> None:
        """A record Kafka did not take: re-sent if its topic is being created again, skipped under
        `errors.tolerance=all`, else the task's failure."""
        if self.vanished.retry_later(callback, err, msg, pinned=pinned):
            return
        topic = msg.topic()
        if self._errors.tolerates_all:  # Kafka (KIP-779): skip it, and count it as done
            self.tolerance.failed("producing", KafkaException(err), f"topic {topic!r}, partition {msg.partition()}")
            if callback is not None:
                callback.batch.remaining -= 1
                self.record_done(callback.record)
            return
        if self.failure is None:
            assert topic is not None  # a produced message always names its topic
            partition = msg.partition() if pinned else None
            hint = ""
            if pinned and err.code() == KafkaError._UNKNOWN_PARTITION:
                hint = pinned_partition_hint(topic, partition)
            self.failure = (
                f"Kafka rejected a record of task {self.name} for {placement(topic, partition)}: {err.str()} "
                f"({err.name()}).{hint} Offsets after the last acknowledged record are not committed, so the "
                f"record will be re-sent after a restart."
            )

    def record_done(self, record: SourceRecord) -> None:
        """A record that will never reach Kafka but counts as handled (skipped under errors.tolerance=all)."""
        if self._wants_acks:
            self.task.commit_record(record, None)
