"""One `SourceTask` run by the worker: its lifecycle, the poll loop and its shutdown.

poll → transforms → convert → topic gate → produce (`record_sending.py`) → acks → offsets
(`offset_commits.py`). Offsets are committed periodically (`offset.flush.interval.ms`), when the task
is paused, and once more when it stops, only over each source partition's acknowledged prefix (at
least once, as Kafka Connect).

`run()` is the whole life of the task and blocks until it ends; where it runs (a thread of the
standalone worker, a Spark task) is the task runner's business (runtime/runners/). The exactly-once
task (`exactly_once_task.py`) is this loop with transactions: it overrides the hooks
`_before_task_start`, `_task_context`, `_before_produce`, `_after_poll_sent` and `_commit`.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from confluent_kafka import Producer

from connectworker.api.errors import ConnectError
from connectworker.api.record import SourceRecord, SourceRecordBatch
from connectworker.api.task import SourceTask
from connectworker.config.error_handling import ErrorHandling
from connectworker.config.transforms import TransformsConfig
from connectworker.converters.base import Converter
from connectworker.converters.header_converters import HeaderConverter
from connectworker.runtime.clients.connectivity import ConnectivityMonitor
from connectworker.runtime.observability.log_context import log_fields, task_log_context
from connectworker.runtime.observability.task_metrics import TaskMetrics
from connectworker.runtime.observability.task_stats import TaskStats
from connectworker.runtime.offsets.backing_store import OffsetBackingStore
from connectworker.runtime.offsets.flusher import OffsetFlusher
from connectworker.runtime.status import State, Status
from connectworker.runtime.tasks.delivery_reports import DeliveryReportPump
from connectworker.runtime.tasks.error_tolerance import ToleranceOperator
from connectworker.runtime.tasks.offset_commits import OffsetCommits
from connectworker.runtime.tasks.poll_retry import PollRetry, is_retriable
from connectworker.runtime.tasks.record_conversion import RecordSerializer
from connectworker.runtime.tasks.record_sending import QUEUE_FULL_WAIT_S, RecordSending
from connectworker.runtime.tasks.submitted_records import SubmittedRecords
from connectworker.runtime.tasks.task_context import TaskOffsetReader, WorkerTaskContext
from connectworker.runtime.tasks.timeouts import TaskTimeouts
from connectworker.runtime.tasks.transform_chain import TransformationChain
from connectworker.runtime.tasks.uncommitted_offsets import uncommitted_report
from connectworker.runtime.topic_creation.gate import TopicGate
from connectworker.runtime.topic_creation.vanished_topics import TaskFailure, VanishedTopics

log = logging.getLogger(__name__)

__all__ = ["QUEUE_FULL_WAIT_S", "TaskTimeouts", "WorkerSourceTask"]


class WorkerSourceTask(RecordSending, OffsetCommits):
    """Runs one task: owns its producer and its in-flight records; `run()` blocks for its whole life."""

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
        key_converter: Converter,
        value_converter: Converter,
        offset_store: OffsetBackingStore,
        topic_gate: TopicGate,
        timeouts: TaskTimeouts,
        on_topics: Callable[[set[str]], None] | None = None,
        error_handling: ErrorHandling | None = None,
        offset_flusher: OffsetFlusher | None = None,
        transforms: TransformsConfig | None = None,
        metrics: TaskMetrics | None = None,
        header_converter: HeaderConverter | None = None,
        producer_factory: Callable[[dict[str, Any]], Producer] = Producer,
    ) -> None:
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
        self._serializer = RecordSerializer(key_converter, value_converter, self.tolerance, header_converter)
        self._poll_retry = PollRetry(self.name, self._errors.retry_delay_max_ms / 1000)
        self._submitted = SubmittedRecords()
        self._ready_topics: set[str] = set()
        self._vanished = VanishedTopics(
            connector, recreates=topic_gate.recreates_missing_topics, timeout_s=timeouts.topic_creation_timeout_s
        )
        self._pump: DeliveryReportPump | None = None
        self._failure: str | None = None
        self._forget_topics = threading.Event()
        self._resumed = threading.Event()
        self._resumed.set()
        self._started = threading.Event()  # run() was called
        # As Kafka Connect does, the connector task's stop() is called only once its start() returned: a
        # stop asked for during start() is deferred until then (a task process may hear "stop" first).
        self._start_lock = threading.Lock()
        self._start_returned = False
        self._stop_deferred = False
        self._ended = threading.Event()  # run() returned
        self.produced = 0
        self.polled = 0  # records the task returned, transformed or dropped alike
        self.committed_records = 0  # records whose offsets are in the offset store
        self.bytes_out = 0  # key and value bytes of the records handed to the producer
        self.commits_succeeded = 0
        self.last_commit_at: float | None = None
        self.commits_failed = 0
        self.uncommitted_at_stop = 0  # set once the task stopped: see _report_uncommitted
        self.metrics = metrics if metrics is not None else TaskMetrics.unregistered()
        self._commit_started: float | None = None  # when the commit in progress began
        self._not_written = 0  # records whose offsets a failed flush left for the next one
        self._poll_seconds = 0.0  # how long the last poll() took
        self._committed_lock = threading.Lock()
        self._next_commit = 0.0  # when the next periodic commit is due (set when the loop starts)
        self._commit_error: Exception | None = None  # raised by a commit made while the task polled

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
        return TaskStats(
            polled=self.polled,
            produced=self.produced,
            committed_records=self.committed_records,
            bytes_out=self.bytes_out,
            commits_succeeded=self.commits_succeeded,
            last_commit_at=self.last_commit_at,
            commits_failed=self.commits_failed,
            skipped=self.tolerance.skipped,
            retries=self.tolerance.retries,
            errors=self.tolerance.errors,
            connectivity_note=self.connectivity.note,
            uncommitted_at_stop=self.uncommitted_at_stop,
        )

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
            self._pump = DeliveryReportPump(producer, self.name).start(
                self._commit_while_polling if self.commits_while_polling else None
            )
            if self._transforms is not None and self._transforms.transforms:
                self._chain = TransformationChain.build(self._transforms)
            self._before_task_start(producer)
            self.task.initialize(self._task_context())
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

    def _after_poll_sent(self, producer: Producer) -> None:
        """Hook: runs after each poll's records went to the producer."""

    @property
    def commit_interval_s(self) -> float:
        """How often `_commit(flush=False)` runs: `offset.flush.interval.ms`."""
        return self._timeouts.offset_flush_interval_s

    def _loop(self, producer: Producer) -> None:
        assert self._pump is not None
        pump = self._pump
        self._next_commit = time.monotonic() + self.commit_interval_s
        while not self._stopping.is_set():
            if not self._resumed.is_set():
                self._commit(flush=True)
                self._resumed.wait(0.5)
                continue
            records = self._poll(pump)
            if self._commit_error is not None:
                raise self._commit_error
            if records:
                self._send(producer, records)
                self._after_poll_sent(producer)
            # Freed now, before the next poll() builds its records: they then reuse this poll's memory,
            # still in the CPU's caches. Kept until the next poll returned, its records had the allocator
            # hand out fresh memory, and the connector's own poll() ran 40% slower (1.11 vs 0.78 µs
            # per record, measured in bench_worker_throughput's ordinary path).
            records = None
            pump.serve_ready()
            self._show_connectivity()
            if self._vanished.resend:
                self._send_again(producer)
            if self._failure is not None:
                raise TaskFailure(self._failure)
            self._commit_if_due()

    def _commit_if_due(self) -> None:
        """The periodic commit, every `commit_interval_s`."""
        if time.monotonic() >= self._next_commit:
            self._commit(flush=False)
            self._vanished.expire()
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

    def _report_uncommitted(self) -> None:
        """Say which offsets the stop leaves uncommitted, if any (their records come again after a restart).

        Counted from what is still submitted and what a failed write left, not from the committed counter,
        which a write the flusher thread finished just before the final commit may not have counted yet."""
        with self._committed_lock:
            not_written = self._not_written
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
            except (OSError, ConnectError) as exc:  # the offset store could not be written: said in one line
                log.error("Task %s: the final offset commit failed: %s", self.name, exc)
            except Exception:
                log.exception("Task %s: final offset commit failed", self.name)
            self._report_uncommitted()
        if self._pump is not None:
            self._pump.stop()
            self._pump = None  # releases the producer now, not whenever the task object goes
        # The producer's callbacks are bound to this task: dropped, so that no reference cycle keeps a
        # stopped task (and what it holds) until the collector's next full run
        self._producer_config.pop("on_delivery", None)
        if self._chain is not None:
            self._chain.close()
        for converter in (self._key_converter, self._value_converter, self._serializer.header_converter):
            try:
                converter.close()
            except Exception:
                log.exception("Task %s: closing converter %s failed", self.name, type(converter).__name__)
        if self.status.state is not State.FAILED:
            self.status.set(State.STOPPED)
        log.info(
            "Task %s stopped (%d records produced, %d committed)", self.name, self.produced, self.committed_records
        )
