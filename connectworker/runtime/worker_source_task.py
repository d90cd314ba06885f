"""The loop that runs one `SourceTask` on its own thread.

poll → topic readiness (creation) → convert → produce → ack → offsets. Offsets are committed
periodically (`offset.flush.interval.ms`), when the task is paused, and once more when it stops, and
only over each source partition's acknowledged prefix (at least once, as Kafka Connect).

The exactly-once task (`exactly_once_task.py`) is this loop with transactions: it overrides the
hooks `_before_task_start`, `_task_context`, `_before_produce`, `_after_poll_sent` and `_commit`.
The module stays one piece past 400 lines because the loop, its send paths and its delivery-report
callbacks share the in-flight state; vanished topics and conversion live in their own modules.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from confluent_kafka import KafkaError, KafkaException, Message, Producer

from connectworker.api.record import RecordMetadata, SourceRecord, SourceRecordBatch
from connectworker.api.task import SourceTask
from connectworker.config.error_handling import ErrorHandling
from connectworker.config.transforms import TransformsConfig
from connectworker.converters.base import Converter
from connectworker.runtime.connectivity import ConnectivityMonitor
from connectworker.runtime.delivery_reports import DeliveryReportPump
from connectworker.runtime.error_tolerance import ToleranceOperator
from connectworker.runtime.log_context import log_fields, task_log_context
from connectworker.runtime.offset_backing_store import OffsetBackingStore
from connectworker.runtime.offset_flusher import OffsetFlusher
from connectworker.runtime.poll_results import BadPollResultError, bad_item_message, check_poll_result
from connectworker.runtime.poll_retry import PollRetry, is_retriable
from connectworker.runtime.record_conversion import ConvertedPoll, RecordSerializer
from connectworker.runtime.send_failures import send_failure_message
from connectworker.runtime.source_offsets import InvalidSourceOffsetError, newest_offsets
from connectworker.runtime.status import State, Status
from connectworker.runtime.submitted_records import InFlightBatch, RecordAck, SubmittedRecords
from connectworker.runtime.task_context import TaskOffsetReader, WorkerTaskContext
from connectworker.runtime.task_metrics import TaskMetrics
from connectworker.runtime.topic_gate import TopicGate
from connectworker.runtime.transform_chain import TransformationChain
from connectworker.runtime.vanished_topics import TaskFailure, VanishedTopics
from connectworker.topics.admin import MISSING_CODES

log = logging.getLogger(__name__)

QUEUE_FULL_WAIT_S = 0.002
"""How long a task waits when the producer's local queue is full. Short, because without per-record
delivery reports nothing wakes the wait early when room is made: a 50 ms wait left the broker idle
for a third of a bulk run."""

@dataclass(frozen=True)
class TaskTimeouts:
    offset_flush_interval_s: float
    offset_flush_timeout_s: float
    topic_creation_timeout_s: float = 30.0


def _byte_count(chunks: list[bytes | None]) -> int:
    """Bytes in `chunks`, None counting 0; in C loops: this runs for every record produced."""
    return sum(map(len, filter(None, chunks)))


def _plain(records: Sequence[SourceRecord]) -> bool:
    """No record sets a partition, a timestamp or headers (the common case)."""
    for record in records:
        if record.partition is not None or record.timestamp is not None or record.headers:
            return False
    return True


class WorkerSourceTask:
    """Runs one task: owns its thread, its producer and its in-flight records."""

    transactional_id: str | None = None  # set by the exactly-once task

    def __init__(self, *, connector: str, task_id: int, task: SourceTask, props: Mapping[str, str],
                 producer_config: Mapping[str, Any], key_converter: Converter, value_converter: Converter,
                 offset_store: OffsetBackingStore, topic_gate: TopicGate, timeouts: TaskTimeouts,
                 on_topics: Callable[[set[str]], None] | None = None,
                 error_handling: ErrorHandling | None = None,
                 offset_flusher: OffsetFlusher | None = None,
                 transforms: TransformsConfig | None = None,
                 metrics: TaskMetrics | None = None,
                 producer_factory: Callable[[dict[str, Any]], Producer] = Producer) -> None:
        self.connector = connector
        self.task_id = task_id
        self.name = f"{connector}-{task_id}"
        self._log_fields = log_fields(connector=connector, task=task_id)  # for lines logged off its thread
        self.task = task
        self.props = dict(props)
        self.status = Status()
        # Per-record delivery reports cost a Python call each: only tasks that override commit_record
        # get them; for the others Kafka reports failures only, and flushes prove the rest delivered.
        self._wants_acks = type(task).commit_record is not SourceTask.commit_record
        self._producer_config = dict(producer_config)
        self._producer_factory = producer_factory
        self.connectivity = ConnectivityMonitor(self.name, str(self._producer_config.get("bootstrap.servers", "")))
        self._producer_config["error_cb"] = self.connectivity.error_cb
        if not self._wants_acks:
            self._producer_config.update({"delivery.report.only.error": True, "on_delivery": self._on_error})
        self._key_converter = key_converter
        self._value_converter = value_converter
        self._store = offset_store
        self._flusher = offset_flusher  # None: the task thread flushes the offset store itself
        self._gate = topic_gate
        self._timeouts = timeouts
        self._on_topics = on_topics
        self._errors = error_handling or ErrorHandling()
        self._transforms = transforms
        self._chain: TransformationChain | None = None  # built on the task thread, so a failure fails the task
        self._poll_origin: tuple[Sequence[SourceRecord] | SourceRecordBatch, list[int]] | None = None
        self._stopping = threading.Event()
        self.tolerance = ToleranceOperator(self._errors, self.name, self._stopping)
        self._serializer = RecordSerializer(key_converter, value_converter, self.tolerance)
        self._poll_retry = PollRetry(self.name, self._errors.retry_delay_max_ms / 1000)
        self._submitted = SubmittedRecords()
        self._ready_topics: set[str] = set()
        self._vanished = VanishedTopics(connector, recreates=topic_gate.recreates_missing_topics,
                                        timeout_s=timeouts.topic_creation_timeout_s)
        self._pump: DeliveryReportPump | None = None
        self._failure: str | None = None
        self._forget_topics = threading.Event()
        self._resumed = threading.Event()
        self._resumed.set()
        self._thread: threading.Thread | None = None
        self.produced = 0
        self.polled = 0  # records the task returned, transformed or dropped alike
        self.committed_records = 0  # records whose offsets are in the offset store
        self.bytes_out = 0  # key and value bytes of the records handed to the producer
        self.commits_succeeded = 0
        self.commits_failed = 0
        self.metrics = metrics if metrics is not None else TaskMetrics.unregistered()
        self._commit_started: float | None = None  # when the commit in progress began
        self._not_written = 0  # records whose offsets a failed flush left for the next one
        self._poll_seconds = 0.0  # how long the last poll() took
        self._committed_lock = threading.Lock()

    # -- lifecycle (called from the worker's thread) ---------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"task-{self.name}", daemon=True)
        self._thread.start()

    def pause(self) -> None:
        """Stop polling (records in flight are still delivered); works before `start` too."""
        self._resumed.clear()
        if self.status.state is State.RUNNING:
            self.status.set(State.PAUSED)
            log.info("Task %s paused", self.name, extra=self._log_fields)

    def resume(self) -> None:
        if self.status.state is State.PAUSED:
            self.status.set(State.RUNNING)
            log.info("Task %s resumed", self.name, extra=self._log_fields)
        self._resumed.set()

    def stop(self) -> None:
        """Ask the task to stop; returns at once. `join` waits for the final offset commit."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        self._resumed.set()
        try:
            self.task.stop()
        except Exception:
            log.exception("Task %s raised from stop()", self.name)

    def join(self, timeout: float | None) -> bool:
        """Wait for the thread to end; False if it is still running after `timeout` seconds."""
        if self._thread is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    # -- the task thread -----------------------------------------------------------------------
    def _run(self) -> None:
        producer: Producer | None = None
        task_log_context(self.connector, self.task_id)  # every line of this thread names the task
        startups = self.metrics.startups
        startups.attempted()
        started = False
        try:
            producer = self._producer_factory(self._producer_config)
            self._pump = DeliveryReportPump(producer, self.name).start()
            if self._transforms is not None and self._transforms.transforms:
                self._chain = TransformationChain.build(self._transforms)
            self._before_task_start(producer)
            self.task.initialize(self._task_context())
            self.task.start(self.props)
            if not self._stopping.is_set():
                self.status.set(State.RUNNING if self._resumed.is_set() else State.PAUSED)
            log.info("Task %s started", self.name)
            started = True
            startups.succeeded()
            self._loop(producer)
        except Exception as exc:
            if not started:
                startups.failed()
            self._fail(exc)
        finally:
            self._shutdown(producer)

    def _before_task_start(self, producer: Producer) -> None:
        """Hook: runs once the producer exists, before the task is initialized and started."""

    def _task_context(self) -> WorkerTaskContext:
        return WorkerTaskContext(TaskOffsetReader(self._store, self.connector), self.props)

    def _before_produce(self, producer: Producer, topics: Collection[str]) -> None:
        """Hook: runs once per poll, after its topics are ready and before its first record is produced."""

    def _after_poll_sent(self, producer: Producer) -> None:
        """Hook: runs after each poll's records went to the producer."""

    @property
    def commit_interval_s(self) -> float:
        """How often `_commit(flush=False)` runs: `offset.flush.interval.ms`."""
        return self._timeouts.offset_flush_interval_s

    def _loop(self, producer: Producer) -> None:
        assert self._pump is not None
        pump = self._pump
        next_commit = time.monotonic() + self.commit_interval_s
        while not self._stopping.is_set():
            if not self._resumed.is_set():
                self._commit(flush=True)
                self._resumed.wait(0.5)
                continue
            records = self._poll(pump)
            if records:
                self._send(producer, records)
                self._after_poll_sent(producer)
            pump.serve_ready()
            self._show_connectivity()
            if self._vanished.resend:
                self._send_again(producer)
            if self._failure is not None:
                raise TaskFailure(self._failure)
            if time.monotonic() >= next_commit:
                self._commit(flush=False)
                self._vanished.expire()
                next_commit = time.monotonic() + self.commit_interval_s

    def _show_connectivity(self) -> None:
        """Put "cluster unreachable" in a RUNNING task's status (and take it out again when it is back)."""
        note = self.connectivity.note
        if self.status.trace != note:
            self.status.annotate(State.RUNNING, note)

    def _poll(self, pump: DeliveryReportPump) -> object:
        """The task's `poll()`; a retriable error means "nothing this time", after a backoff."""
        with pump.task_polling():  # delivery reports are served meanwhile, during a backoff too
            try:
                began = time.monotonic()
                result = self.task.poll()
                self._poll_seconds = time.monotonic() - began
            except Exception as exc:
                if not is_retriable(exc):
                    raise
                self._stopping.wait(self._poll_retry.failed(exc))
                return None
        if self._poll_retry.failures:
            self._poll_retry.succeeded()
        return result

    def _ensure_topics(self, topics: set[str]) -> None:
        new = topics - self._ready_topics
        self._gate.ensure(new, self.task.settings_for_new_topic, self.name)
        self._ready_topics |= new
        if self._on_topics is not None:
            self._on_topics(new)

    def forget_reported_topics(self) -> None:
        """Report every topic again on its next use (REST `PUT /connectors/{name}/topics/reset`)."""
        self._forget_topics.set()

    def _send(self, producer: Producer, result: object) -> None:
        """Check, convert and produce one poll. Nothing of it reaches the producer before every record
        is converted and its offsets are known to be storable; if the producer refuses a record, the
        poll's batch shrinks to the records before it, so no offset is committed for an unsent record."""
        if self._forget_topics.is_set():
            self._forget_topics.clear()
            self._ready_topics = set()  # re-checked against the worker's cache: no Admin request
        polled = check_poll_result(result, self.name)
        self.polled += len(polled)
        self.metrics.polled(self._poll_seconds, len(polled))
        try:
            offsets = newest_offsets(polled)  # of every record polled: those the chain drops advance too
            sent = self._transformed(polled)
            columns = sent if isinstance(sent, SourceRecordBatch) else None
            converted = (self._serializer.convert_batch(columns) if columns is not None
                         else self._serializer.convert_records(sent))
        except InvalidSourceOffsetError as exc:
            raise TaskFailure(f"Task {self.name} returned records whose offsets cannot be committed: {exc}. "
                              f"Nothing of this poll was sent.") from None
        except AttributeError:
            raise BadPollResultError(bad_item_message(polled, self.name)) from None
        for record in converted.dropped:  # skipped under errors.tolerance=all: done, as Kafka does
            self._record_done(record)
        topics = set(converted.topics)
        if not topics <= self._ready_topics:
            self._ensure_topics(topics)
        self._before_produce(producer, topics)
        batch = self._submitted.submit_offsets(offsets, len(converted.topics), self)
        if not self._wants_acks and (converted.records is None or _plain(converted.records)):
            self._send_columns(producer, converted, sent, batch)
        else:
            self._send_records(producer, converted, sent, batch)
        self.produced += len(converted.topics)
        self.bytes_out += _byte_count(converted.keys) + _byte_count(converted.values)

    def _transformed(self, polled: Sequence[SourceRecord] | SourceRecordBatch
                     ) -> Sequence[SourceRecord] | SourceRecordBatch:
        """The poll after the connector's transforms (as polled without any); remembers which polled
        record each one came from, for `_unsent_from`."""
        self._poll_origin = None
        if self._chain is None:
            return polled
        transformed = self._chain.apply_poll(polled, self.tolerance)
        for record in transformed.dropped:  # filtered, or skipped under errors.tolerance=all: done
            self._record_done(record)
        self._poll_origin = (polled, transformed.origin)
        return transformed.records

    def _send_records(self, producer: Producer, converted: ConvertedPoll,
                      polled: Sequence[SourceRecord], batch: InFlightBatch) -> None:
        produce = producer.produce
        per_record = self._wants_acks
        records = converted.records if converted.records is not None else polled
        for i, (record, key, value) in enumerate(zip(records, converted.keys, converted.values, strict=True)):
            callback = RecordAck(batch, self._as_polled(i, converted, record)) if per_record else None
            if callback is None and record.partition is None and record.timestamp is None and not record.headers:
                try:
                    produce(record.topic, value, key)  # the common case: positional arguments only, fastest
                    continue
                except (BufferError, KafkaException):
                    pass  # a full queue or a vanished topic: the patient path below waits it out
            try:
                self._produce_patiently(producer, record.topic, value, key, record.partition, callback,
                                        record.timestamp, record.headers)
            except BaseException as exc:
                self._unsent_from(i, exc, polled, converted, batch)

    def _send_columns(self, producer: Producer, converted: ConvertedPoll,
                      polled: Sequence[SourceRecord] | SourceRecordBatch, batch: InFlightBatch) -> None:
        """The fast path, for records without a fixed partition, timestamp or headers and without
        per-record delivery reports: topic, value and key are all that is produced."""
        produce = producer.produce
        for i, (topic, key, value) in enumerate(zip(converted.topics, converted.keys, converted.values,
                                                     strict=True)):
            try:
                produce(topic, value, key)
                continue
            except (BufferError, KafkaException):
                pass  # a full queue or a vanished topic: the patient path below waits it out
            try:
                self._produce_patiently(producer, topic, value, key, None, None, None, None)
            except BaseException as exc:
                self._unsent_from(i, exc, polled, converted, batch)

    def _as_polled(self, index: int, converted: ConvertedPoll, record: SourceRecord) -> SourceRecord:
        """The record as the task returned it, for `commit_record` (Kafka passes the record before its
        transforms): converted record `index` is `record` after the chain."""
        if self._poll_origin is None:
            return record
        polled, origin = self._poll_origin
        return polled[origin[converted.polled_index(index)]]

    def _unsent_from(self, index: int, exc: BaseException, polled: Sequence[SourceRecord],
                     converted: ConvertedPoll, batch: InFlightBatch) -> None:
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
        assert self._pump is not None
        with self._pump.holding_reports():
            self._submitted.shrink(batch, offsets, index)
        self.produced += index
        if isinstance(exc, TaskFailure | KeyboardInterrupt | SystemExit):
            raise exc
        raise TaskFailure(send_failure_message(self.name, record, converted.values[index], exc)) from exc

    def _produce_patiently(self, producer: Producer, topic: str, value: bytes | None, key: bytes | None,
                           partition: int | None, callback: RecordAck | None, timestamp: int | None,
                           headers: Any) -> None:
        """Produce one record, waiting out a full local queue or a topic that is being re-created."""
        while True:
            try:
                producer.produce(topic, value, key, -1 if partition is None else partition,
                                 on_delivery=callback, timestamp=timestamp or 0, headers=headers or None)
                return
            except BufferError:
                # The local queue is full: serve delivery reports until there is room again.
                assert self._pump is not None
                self._pump.serve(QUEUE_FULL_WAIT_S)
            except KafkaException as exc:
                err = exc.args[0] if exc.args and isinstance(exc.args[0], KafkaError) else None
                if err is None or err.code() not in MISSING_CODES:
                    raise
                # librdkafka already knows the topic is gone (deleted at run time)
                self._recover_topic(producer, topic)
            if self._failure is not None:
                raise TaskFailure(self._failure)

    def _recover_topic(self, producer: Producer, topic: str) -> None:
        """Make a topic that vanished at run time ready again, within topic.creation.timeout.ms."""
        self._vanished.check(topic)
        if topic in self._ready_topics:
            log.warning("Topic %s is unknown to the broker (deleted while in use?); creating it again", topic)
            self._gate.forget(topic)
            self._ready_topics.discard(topic)
            self._ensure_topics({topic})
        # The producer caches "unknown topic" for a while: refresh its view of the topic.
        producer.list_topics(topic, timeout=5)
        time.sleep(0.05)

    def _send_again(self, producer: Producer) -> None:
        """Re-send records that failed while their topic was being re-created."""
        while self._vanished.resend:
            callback, msg, topic_unknown = self._vanished.resend.popleft()
            topic = msg.topic()
            assert topic is not None  # a produced message always names its topic
            if topic_unknown:
                self._recover_topic(producer, topic)
            ts_type, ts = msg.timestamp()
            self._produce_patiently(producer, topic, msg.value(), msg.key(), None, callback,
                                    ts if ts_type else None, msg.headers())

    # -- delivery reports (on the task thread, or the pump's while the task blocks in poll) ------
    def _on_error(self, err: KafkaError | None, msg: Message) -> None:
        """The producer-wide delivery report, for failures only (tasks without `commit_record`)."""
        if err is not None:
            self.on_failure(None, err, msg)

    def on_failure(self, callback: RecordAck | None, err: KafkaError, msg: Message) -> None:
        if self._vanished.retry_later(callback, err, msg):
            return
        topic = msg.topic()
        if self._errors.tolerates_all:  # Kafka (KIP-779): skip it, and count it as done
            self.tolerance.failed("producing", KafkaException(err), f"topic {topic!r}, partition {msg.partition()}")
            if callback is not None:
                callback.batch.remaining -= 1
                self._record_done(callback.record)
            return
        if self._failure is None:
            self._failure = (f"Kafka rejected a record of task {self.name} for topic {topic!r}: "
                             f"{err.str()} ({err.name()}). Offsets after the last acknowledged record "
                             f"are not committed, so the record will be re-sent after a restart.")

    def _record_done(self, record: SourceRecord) -> None:
        """A record that will never reach Kafka but counts as handled (skipped under errors.tolerance=all)."""
        if self._wants_acks:
            self.task.commit_record(record, None)

    def on_ack(self, record: SourceRecord, msg: Message) -> None:
        self.connectivity.healthy()
        topic, partition, offset = msg.topic(), msg.partition(), msg.offset()
        assert topic is not None and partition is not None and offset is not None  # set once delivered
        ts_type, ts = msg.timestamp()
        metadata = RecordMetadata(topic, partition, offset, ts if ts_type else None)
        self.task.commit_record(record, metadata)

    # -- offsets -------------------------------------------------------------------------------
    def _commit(self, *, flush: bool, wait: bool = False) -> None:
        """Commit the offsets of what Kafka acknowledged; `flush` first waits for every record in flight
        (always, for tasks without per-record reports); `wait` flushes the offset store before returning."""
        # Without per-record reports, a flush is how the task learns what Kafka acknowledged.
        if (flush or not self._wants_acks) and self._pump is not None:
            in_flight = self._submitted.in_flight
            remaining = self._pump.flush(self._timeouts.offset_flush_timeout_s)
            if in_flight and not remaining:
                self.connectivity.healthy()  # the cluster took every record: proof it is back
            if remaining:
                log.warning("Task %s: %d records still unacknowledged after offset.flush.timeout.ms; "
                            "committing offsets of the acknowledged ones only", self.name, remaining)
            elif not self._wants_acks and not self._vanished.resend and self._failure is None:
                self._submitted.mark_all_delivered()
        offsets, done = self._submitted.committable()
        if not offsets and not self._not_written:
            self._offsets_written(done, quiet=True)
            return
        if self._commit_started is None:  # a commit still being written is measured from its start
            self._commit_started = time.monotonic()
        if offsets:  # else: only the offsets a failed flush left are written again
            self._store.put(self.connector, offsets)
        if wait or self._flusher is None:
            try:
                self._store.flush()
            except Exception:
                self._offsets_not_written(done)
                raise
            self._offsets_written(done)
        else:  # the task goes on producing while the offset store is flushed
            self._flusher.request(lambda: self._offsets_written(done), lambda: self._offsets_not_written(done))

    def _offsets_not_written(self, done: int) -> None:
        """The offset store could not be written: the offsets of those `done` records stay in it and are
        written, and counted, with the next successful flush."""
        with self._committed_lock:
            self.commits_failed += 1
            self._not_written += done

    def _offsets_written(self, done: int, *, quiet: bool = False) -> None:
        """The offsets of `done` more records are stored (on the writer thread, or the task's)."""
        with self._committed_lock:
            if not quiet:  # a write succeeded: it holds what earlier failed writes left too
                done, self._not_written = done + self._not_written, 0
            self.committed_records += done
        if quiet:
            return
        self._commit_measured()
        log.info("Task %s committed offsets of %d records (%d produced, %d in flight)",
                 self.name, done, self.produced, self._submitted.in_flight)
        try:
            self.task.commit()
        except Exception:
            log.exception("Task %s raised from commit(); offsets are stored regardless", self.name)

    def _commit_measured(self) -> None:
        """Count a successful commit and observe how long it took since it began."""
        with self._committed_lock:
            self.commits_succeeded += 1
            began, self._commit_started = self._commit_started, None
        if began is not None:
            self.metrics.committed(time.monotonic() - began)

    def _fail(self, exc: BaseException) -> None:
        trace = "".join(traceback.format_exception(exc))
        message = str(exc) or type(exc).__name__
        self.status.set(State.FAILED, f"{message}\n{trace}")
        log.error("Task %s FAILED: %s", self.name, message)

    def _shutdown(self, producer: Producer | None) -> None:
        if not self._stopping.is_set():  # failed: the task was not asked to stop yet
            try:
                self.task.stop()
            except Exception:
                log.exception("Task %s raised from stop()", self.name)
        if producer is not None:
            try:
                self._commit(flush=True, wait=True)
            except Exception:
                log.exception("Task %s: final offset commit failed", self.name)
        if self._pump is not None:
            self._pump.stop()
            self._pump = None  # releases the producer now, not whenever the task object goes
        if self._chain is not None:
            self._chain.close()
        for converter in (self._key_converter, self._value_converter):
            try:
                converter.close()
            except Exception:
                log.exception("Task %s: closing converter %s failed", self.name, type(converter).__name__)
        if self.status.state is not State.FAILED:
            self.status.set(State.STOPPED)
        log.info("Task %s stopped (%d records produced, %d committed)", self.name, self.produced,
                 self.committed_records)
