"""One `SourceTask` run by the worker: its lifecycle, the poll loop and its shutdown.

poll → transforms → convert → topic gate → produce (`RecordSender`, record_sending.py) → acks → offsets
(`OffsetCommitter`, offset_commits.py), committed periodically (`offset.flush.interval.ms`), when the task
is paused, and once more when it stops, over each source partition's acknowledged prefix (at least once).

`run()` is the whole life of the task and blocks until it ends; where it runs (a thread of the worker, a
task process, a Spark task) is the task runner's business (runtime/runners/). The exactly-once task
(`exactly_once_task.py`) is this loop with transactions: it overrides the "hooks", each stating its contract.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable, Collection, Mapping
from typing import Any

from confluent_kafka import KafkaError, Message, Producer

from connectworker.api.errors import ConnectError
from connectworker.api.operator import OperatorSignal
from connectworker.api.record import RecordMetadata, SourceRecord
from connectworker.api.task import SourceTask
from connectworker.runtime.clients.connectivity import ConnectivityMonitor
from connectworker.runtime.observability.log_context import log_fields, task_log_context
from connectworker.runtime.observability.task_metrics import TaskMetrics
from connectworker.runtime.observability.task_stats import TaskStats
from connectworker.runtime.offsets.backing_store import OffsetBackingStore
from connectworker.runtime.offsets.flusher import OffsetFlusher
from connectworker.runtime.status import State, Status
from connectworker.runtime.tasks.delivery_reports import DeliveryReportPump
from connectworker.runtime.tasks.offset_commits import OffsetCommitter
from connectworker.runtime.tasks.operator_link import OperatorLink
from connectworker.runtime.tasks.poll_retry import PollRetry, is_retriable
from connectworker.runtime.tasks.record_sending import QUEUE_FULL_WAIT_S, RecordSender
from connectworker.runtime.tasks.submitted_records import RecordAck, SubmittedRecords
from connectworker.runtime.tasks.task_context import TaskOffsetReader, WorkerTaskContext
from connectworker.runtime.tasks.task_parts import TaskParts
from connectworker.runtime.tasks.timeouts import TaskTimeouts
from connectworker.runtime.tasks.uncommitted_offsets import uncommitted_report
from connectworker.runtime.tasks.vanished_topics import VanishedTopics

log = logging.getLogger(__name__)

__all__ = ["QUEUE_FULL_WAIT_S", "TaskTimeouts", "WorkerSourceTask"]


class WorkerSourceTask:
    """Runs one task: owns its producer, its in-flight records, its sender and its committer; `run()`
    blocks for its whole life."""

    transactional_id: str | None = None  # set by the exactly-once task
    worker_id: str | None = None  # runs in the worker's own process
    commits_while_polling = True
    """A commit falling due while the task blocks in its `poll()` is made then, by the delivery-report
    helper, not when `poll()` returns (up to a second later). The exactly-once task commits its
    transactions on its own thread."""

    def __init__(
        self,
        *,
        connector: str,
        task_id: int,
        task: SourceTask,
        props: Mapping[str, str],
        producer_config: Mapping[str, Any],
        parts: TaskParts,
        offset_store: OffsetBackingStore,
        timeouts: TaskTimeouts,
        on_topics: Callable[[set[str]], None] | None = None,
        offset_flusher: OffsetFlusher | None = None,
        metrics: TaskMetrics | None = None,
        producer_factory: Callable[[dict[str, Any]], Producer] = Producer,
    ) -> None:
        self.connector = connector
        self.task_id = task_id
        self.name = f"{connector}-{task_id}"
        self._log_fields = log_fields(connector=connector, task=task_id)  # for lines logged off its thread
        self.task = task
        self.props = dict(props)
        self.status = Status()
        self.operator = OperatorLink(self.name)  # its progress out, operators' signals in
        self.metrics = metrics if metrics is not None else TaskMetrics.unregistered()
        self._parts = parts
        self._timeouts = timeouts
        self._store = offset_store
        # Per-record delivery reports cost a Python call each: only tasks that override commit_record
        # get them; for the others Kafka reports failures only, and flushes prove the rest delivered.
        self._wants_acks = type(task).commit_record is not SourceTask.commit_record
        self._stopping = threading.Event()
        self.tolerance = parts.tolerance(self.name, self._stopping)
        self._submitted = SubmittedRecords()
        self.sender = RecordSender(
            name=self.name,
            task=task,
            parts=parts,
            tolerance=self.tolerance,
            submitted=self._submitted,
            listener=self,
            wants_acks=self._wants_acks,
            vanished=VanishedTopics(
                connector,
                recreates=parts.topic_gate.recreates_missing_topics,
                timeout_s=timeouts.topic_creation_timeout_s,
            ),
            metrics=self.metrics,
            before_produce=self.prepare_to_produce,
            on_topics=on_topics,
        )
        self.committer = OffsetCommitter(connector, offset_store, offset_flusher, self.metrics, self._offsets_written)
        self._producer_config = dict(producer_config)
        self._producer_factory = producer_factory
        self.connectivity = ConnectivityMonitor(self.name, str(self._producer_config.get("bootstrap.servers", "")))
        self._producer_config["error_cb"] = self.connectivity.error_cb
        if not self._wants_acks:
            self._producer_config.update({"delivery.report.only.error": True, "on_delivery": self.sender.on_error})
        self._poll_retry = PollRetry(self.name, parts.error_handling.retry_delay_max_ms / 1000)
        self._pump: DeliveryReportPump | None = None
        self._resumed = threading.Event()
        self._resumed.set()
        self._started = threading.Event()  # run() was called
        # As Kafka Connect does, the connector task's stop() is called only once its start() returned: a
        # stop asked for during start() is deferred until then (a task process may hear "stop" first).
        self._start_lock = threading.Lock()
        self._start_returned = False
        self._stop_deferred = False
        self._ended = threading.Event()  # run() returned
        self.uncommitted_at_stop = 0  # set once the task stopped: see report_uncommitted
        self._poll_seconds = 0.0  # how long the last poll() took
        self._next_commit = 0.0  # when the next periodic commit is due (set when the loop starts)
        self._commit_error: Exception | None = None  # raised by a commit made while the task polled

    @property
    def committed_records(self) -> int:
        """Records whose offsets are in the offset store (read from any thread)."""
        return self.committer.committed_records

    # -- lifecycle (called from the worker's threads) --------------------------------------------

    def pause(self, *, announce: bool = True) -> None:
        """Stop polling (records in flight are still delivered); works before `start` too. `announce`:
        log it (a task in another process is announced by the worker, when it asks)."""
        self._resumed.clear()
        if self.status.state is State.RUNNING:
            self.status.set(State.PAUSED)
            if announce:
                log.info("Task %s paused", self.name, extra=self._log_fields)

    def resume(self, *, announce: bool = True) -> None:
        if self.status.state is State.PAUSED:
            self.status.set(State.RUNNING)
            if announce:
                log.info("Task %s resumed", self.name, extra=self._log_fields)
        self._resumed.set()

    def stop(self) -> None:
        """Ask the task to stop; returns at once. `join` waits for the final offset commit."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        self._resumed.set()
        with self._start_lock:
            if not self._start_returned:
                self._stop_deferred = True  # `_run` calls the task's stop() once its start() returned
                return
        self._stop_task()

    def _stop_task(self) -> None:
        try:
            self.task.stop()
        except Exception:
            log.exception("Task %s raised from stop()", self.name)

    def join(self, timeout: float | None) -> bool:
        """Wait for `run()` to end; False if it is still running after `timeout` seconds. A task whose
        `run()` was never called counts as ended."""
        if not self._started.is_set():
            return True
        return self._ended.wait(timeout)

    def stats(self) -> TaskStats:
        """The task's counters now, for metrics and status (read from any thread)."""
        sender, committer = self.sender, self.committer
        return TaskStats(
            polled=sender.polled,
            produced=sender.produced,
            committed_records=committer.committed_records,
            bytes_out=sender.bytes_out,
            commits_succeeded=committer.commits_succeeded,
            last_commit_at=committer.last_commit_at,
            commits_failed=committer.commits_failed,
            skipped=self.tolerance.skipped,
            retries=self.tolerance.retries,
            errors=self.tolerance.errors,
            connectivity_note=self.connectivity.note,
            uncommitted_at_stop=self.uncommitted_at_stop,
            progress=self.operator.progress,
        )

    def signal(self, signal: OperatorSignal) -> None:  # an operator's: the task reads it with its context
        self.operator.deliver(signal)

    def forget_reported_topics(self) -> None:
        """Report every topic again on its next use (REST `PUT /connectors/{name}/topics/reset`)."""
        self.sender.forget_reported_topics()

    # -- the task's own thread ------------------------------------------------------------------
    def run(self) -> None:
        """The task's whole life: start, the poll loop, shutdown. Blocks until the task ends; never
        raises (a failure is the task's FAILED status)."""
        self._started.set()
        try:
            self._run()
        finally:
            self._ended.set()

    def _run(self) -> None:
        producer: Producer | None = None
        task_log_context(self.connector, self.task_id)  # every line of this thread names the task
        startups = self.metrics.startups
        startups.attempted()
        started = False
        try:
            producer = self._producer_factory(self._producer_config)
            self._pump = self.sender.pump = DeliveryReportPump(producer, self.name).start(
                self._commit_while_polling if self.commits_while_polling else None
            )
            self.sender.chain = self._parts.transform_chain()
            self.prepare_to_initialize(producer)
            self.task.initialize(self.task_context())
            self.task.start(self.props)
            with self._start_lock:
                self._start_returned = True
                deferred = self._stop_deferred
            if deferred:  # a stop came before start() returned: the task's stop() is called now
                self._stop_task()
            if not self._stopping.is_set():
                self.status.set(State.RUNNING if self._resumed.is_set() else State.PAUSED)
            log.info("Task %s started", self.name)
            started = True
            startups.succeeded()
            self._execute(producer)
        except Exception as exc:
            if not started:
                startups.failed()
            self.status.set(State.FAILED, self.failure_trace(exc))
        finally:
            self._shutdown(producer)

    def _execute(self, producer: Producer) -> None:
        """The poll loop, until the task is asked to stop; raises what fails the task."""
        assert self._pump is not None
        pump, sender = self._pump, self.sender
        self._next_commit = time.monotonic() + self.commit_interval_s
        while not self._stopping.is_set():
            if not self._resumed.is_set():
                self.commit_offsets(flush=True)
                self._resumed.wait(0.5)
                continue
            records = self._poll(pump)
            if self._commit_error is not None:
                raise self._commit_error
            if records:
                self.send_poll(producer, records)
                self.poll_sent(producer)
            # Freed now, before the next poll() builds its records: they then reuse this poll's memory,
            # still in the CPU's caches. Kept until the next poll returned, its records had the allocator
            # hand out fresh memory, and the connector's own poll() ran 40% slower (1.11 vs 0.78 µs
            # per record, measured in bench_worker_throughput's ordinary path).
            records = None
            pump.serve_ready()
            self._show_connectivity()
            sender.resend_and_check(producer)
            self._commit_if_due()

    # -- hooks: the exactly-once task overrides these ------------------------------------------
    def prepare_to_initialize(self, producer: Producer) -> None:
        """Runs once the producer exists, before the connector's task is initialized and started; what it
        raises fails the task before the connector's task starts."""

    def task_context(self) -> WorkerTaskContext:
        """The context the connector's task is initialized with (its committed offsets, its config)."""
        return WorkerTaskContext(TaskOffsetReader(self._store, self.connector), self.props, operator=self.operator)

    def send_poll(self, producer: Producer, result: object) -> None:
        """Send what one `poll()` returned (not empty). The default sends it whole; an override may send
        it in parts, each through `self.sender.send`."""
        self.sender.send(producer, result, self._poll_seconds)

    def prepare_to_produce(self, producer: Producer, topics: Collection[str]) -> None:
        """Runs once per sent part of a poll, after its `topics` exist and before its first record is
        produced; what it raises fails the task with nothing of the part produced."""

    def poll_sent(self, producer: Producer) -> None:
        """Runs after each poll's records went to the producer (before delivery reports are served)."""

    @property
    def commit_interval_s(self) -> float:
        """How often `commit_offsets(flush=False)` runs: `offset.flush.interval.ms`."""
        return self._timeouts.offset_flush_interval_s

    def commit_offsets(self, *, flush: bool, wait: bool = False) -> None:
        """Commit the offsets of what Kafka acknowledged. `flush`: first wait for every record in flight
        (always done for tasks without per-record reports, where a flush is how the task learns what Kafka
        acknowledged); `wait`: the offsets are stored when it returns (the final commit). Raises what
        writing the offsets raised on this thread."""
        if (flush or not self._wants_acks) and self._pump is not None:
            in_flight = self._submitted.in_flight
            remaining = self._pump.flush(self._timeouts.offset_flush_timeout_s)
            if in_flight and not remaining:
                self.connectivity.healthy()  # the cluster took every record: proof it is back
            if remaining:
                log.warning(
                    "Task %s: %d records still unacknowledged after offset.flush.timeout.ms; "
                    "committing offsets of the acknowledged ones only",
                    self.name,
                    remaining,
                )
            elif not self._wants_acks and self.sender.all_delivered():
                self._submitted.mark_all_delivered()
        offsets, done = self._submitted.committable()
        self.committer.write(offsets, done, wait=wait)

    def on_ack(self, record: SourceRecord, msg: Message) -> None:
        """Kafka acknowledged `record` (tasks that override `commit_record` only; on the thread serving
        delivery reports): the connector's task hears of it."""
        self.connectivity.healthy()
        topic, partition, offset = msg.topic(), msg.partition(), msg.offset()
        assert topic is not None and partition is not None and offset is not None  # set once delivered
        ts_type, ts = msg.timestamp()
        self.task.commit_record(record, RecordMetadata(topic, partition, offset, ts if ts_type else None))

    def on_failure(self, callback: RecordAck | None, err: KafkaError, msg: Message, *, pinned: bool) -> None:
        """Kafka did not take a record (on the thread serving delivery reports): see `RecordSender.failed`."""
        self.sender.failed(callback, err, msg, pinned=pinned)

    def report_uncommitted(self) -> None:
        """Once the task stopped: say which offsets the stop leaves uncommitted, if any (their records come
        again after a restart). Counted from what is still submitted and what a failed write left, not
        from the committed counter, which a write the flusher finished just before may not have counted."""
        not_written = self.committer.not_written
        uncommitted = self._submitted.in_flight + not_written
        if uncommitted:
            self.uncommitted_at_stop = uncommitted
            log.warning(
                "%s",
                uncommitted_report(
                    self.name,
                    uncommitted,
                    self._submitted.pending_offsets(),
                    self._store.offsets(self.connector),
                    round(self._timeouts.offset_flush_timeout_s * 1000),
                    not_written,
                    transactional=self.transactional_id is not None,
                ),
            )

    def failure_trace(self, exc: BaseException) -> str:
        """The FAILED status's trace for `exc`: its message, then its traceback; logged in one line."""
        message = str(exc) or type(exc).__name__
        log.error("Task %s FAILED: %s", self.name, message)
        return f"{message}\n{''.join(traceback.format_exception(exc))}"

    # -- the loop's helpers --------------------------------------------------------------------
    def _commit_if_due(self) -> None:
        """The periodic commit, every `commit_interval_s`."""
        if time.monotonic() >= self._next_commit:
            self.commit_offsets(flush=False)
            self.sender.vanished.expire()
            self._next_commit = time.monotonic() + self.commit_interval_s

    def _commit_while_polling(self) -> None:
        """`_commit_if_due` on the delivery-report helper's thread, while the task thread waits in `poll()`;
        what it raises is raised on the task thread when `poll()` returns."""
        if self._commit_error is not None or self._stopping.is_set():
            return
        try:
            self._commit_if_due()
        except Exception as exc:
            self._commit_error = exc

    def _offsets_written(self, done: int) -> None:
        """The committer stored the offsets of `done` more records: say so, and tell the connector's task."""
        log.info(
            "Task %s committed offsets of %d records (%d produced, %d in flight)",
            self.name,
            done,
            self.sender.produced,
            self._submitted.in_flight,
        )
        try:
            self.task.commit()
        except Exception:
            log.exception("Task %s raised from commit(); offsets are stored regardless", self.name)

    def _show_connectivity(self) -> None:
        """Put "cluster unreachable" (or "poll() keeps failing, retrying") in a RUNNING task's status, and
        take it out again when it is over."""
        note = self.connectivity.note or self._poll_retry.note
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

    def _shutdown(self, producer: Producer | None) -> None:
        if not self._stopping.is_set():  # failed: the task was not asked to stop yet
            self._stop_task()
        if producer is not None:
            try:
                self.commit_offsets(flush=True, wait=True)
            except (OSError, ConnectError) as exc:  # the offset store could not be written: said in one line
                log.error("Task %s: the final offset commit failed: %s", self.name, exc)
            except Exception:
                log.exception("Task %s: final offset commit failed", self.name)
            self.report_uncommitted()
        if self._pump is not None:
            self._pump.stop()
            self._pump = self.sender.pump = None  # releases the producer now, not whenever the task object goes
        # The producer's callbacks are bound to this task: dropped, so that no reference cycle keeps a
        # stopped task (and what it holds) until the collector's next full run
        self._producer_config.pop("on_delivery", None)
        if self.sender.chain is not None:
            self.sender.chain.close()
        self._parts.close(self.name)
        self.operator.ended()
        if self.status.state is not State.FAILED:
            self.status.set(State.STOPPED)
        log.info(
            "Task %s stopped (%d records produced, %d committed)",
            self.name,
            self.sender.produced,
            self.committer.committed_records,
        )
