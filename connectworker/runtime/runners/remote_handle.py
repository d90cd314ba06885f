"""The worker's view of one connector task that runs in another process (a task process on this host,
or a Spark task): what the task last reported (state, trace, counters and progress, topics), the command
and the operators' signals waiting for it, and its side of the task's topic connection."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from connectworker.api.operator import OperatorSignal
from connectworker.runtime.observability.log_context import log_fields
from connectworker.runtime.observability.task_metrics import TaskMetrics
from connectworker.runtime.observability.task_stats import TaskStats
from connectworker.runtime.runners.remote_topic_gate import serve_topic_requests
from connectworker.runtime.runners.task_channel import LineIO
from connectworker.runtime.status import State, Status
from connectworker.runtime.tasks.task_spec import TaskSpec
from connectworker.runtime.topic_creation.gate import TopicGate

log = logging.getLogger(__name__)

LOG_FIELDS = ("connector", "task", "topic")


class RemoteTaskHandle:
    """`topic_gate` builds the connector's gate in the worker (once, at the task's first new topic);
    `metrics` receives the task's poll and commit observations; `placement` says where it runs, for the
    log ("a Spark task", "a task process"); `shows_host`: the REST status names the host the task
    reports from as its `worker_id` (Spark executors; a task process on the worker's own host is the
    worker's)."""

    def __init__(
        self,
        spec: TaskSpec,
        on_topics: Callable[[set[str]], None],
        *,
        paused: bool,
        transactional_id: str | None,
        waiting_note: str,
        topic_gate: Callable[[], TopicGate],
        placement: str,
        metrics: TaskMetrics | None = None,
        shows_host: bool = True,
    ) -> None:
        self.spec = spec
        self.connector, self.task_id, self.name, self.props = spec.connector, spec.task_id, spec.name, spec.props
        self.transactional_id = transactional_id
        self.attempt = uuid.uuid4().hex  # names this start in the channel; a restart gets a new one
        self.status = Status()
        self.status.set(State.UNASSIGNED, waiting_note)
        self.executor: str | None = None  # "host (pid N)" of the process running it, once it reported
        self.worker_id: str | None = None  # that host, for the REST status, where `shows_host`
        self._shows_host = shows_host
        self._placement = placement
        self._on_topics = on_topics
        self._topic_gate = topic_gate
        self._gate: TopicGate | None = None
        self._topic_connections: set[LineIO] = set()  # open while the task may still ask for topics
        self._metrics = metrics
        self._startups = (0, 0, 0)
        self._command = "pause" if paused else "run"
        self._send: Callable[[], None] | None = None  # sends the current command at once, while connected
        self._forget_topics = False
        self._signals: list[dict[str, Any]] = []  # operators' signals not sent to the task yet
        self._stats = TaskStats()
        self._lock = threading.Lock()
        self._ended = threading.Event()  # the task's process (or Spark job) is done with it

    # -- TaskHandle ----------------------------------------------------------------------------
    def pause(self) -> None:
        """Shown and logged now, then sent to the task at once (and repeated in the answer to each report).
        In that order: the task's report that it paused can arrive before `_tell` returns, and the line
        would then never be logged."""
        with self._lock:
            if self._command == "run":
                self._command = "pause"
        if self.status.state is State.RUNNING:
            self.status.set(State.PAUSED)
            log.info("Task %s paused", self.name, extra=log_fields(connector=self.connector, task=self.task_id))
        self._tell()

    def resume(self) -> None:
        with self._lock:
            if self._command == "pause":
                self._command = "run"
        if self.status.state is State.PAUSED:
            self.status.set(State.RUNNING)
            log.info("Task %s resumed", self.name, extra=log_fields(connector=self.connector, task=self.task_id))
        self._tell()

    def stop(self) -> None:
        with self._lock:
            self._command = "stop"
        self._tell()

    def signal(self, signal: OperatorSignal) -> None:
        """Sent to the task at once if it is connected, else with the answer to its first report."""
        with self._lock:
            self._signals.append(signal.as_json())
        self._tell()

    def _tell(self) -> None:
        """Send the task its command now, if it is connected (else it gets it in answer to its first report)."""
        with self._lock:
            send = self._send
        if send is not None:
            send()

    @property
    def stopping(self) -> bool:
        with self._lock:
            return self._command == "stop"

    def join(self, timeout: float | None) -> bool:
        return self._ended.wait(timeout)

    @property
    def ended(self) -> bool:
        return self._ended.is_set()

    def forget_reported_topics(self) -> None:
        with self._lock:
            self._forget_topics = True

    def stats(self) -> TaskStats:
        with self._lock:
            return self._stats

    @property
    def committed_records(self) -> int:
        """Records whose offsets the task committed, as it last reported."""
        return self.stats().committed_records

    # -- from the channel (ReportSink) -----------------------------------------------------------
    def on_report(self, report: dict[str, Any]) -> str:
        if "executor" in report:
            self.executor = str(report["executor"])
            if self._shows_host:
                self.worker_id = str(report.get("host") or self.executor)
            log.info("Task %s runs in %s on %s", self.name, self._placement, self.executor)
        for line in report.get("logs", ()):
            self._log(line)
        topics = set(report.get("topics", ()))
        if topics:
            self._on_topics(topics)
        if self._metrics is not None:
            self._observe(report)
        with self._lock:
            if "stats" in report:
                self._stats = TaskStats(**report["stats"])
            command = self._command
            if self._forget_topics and command != "stop":
                self._forget_topics = False
                command = "forget_topics"
        if "state" in report:
            self._show(State(report["state"]), report.get("trace"))
        return command

    def _log(self, line: dict[str, Any]) -> None:
        """A line the task logged in its process, logged here with the task's context (so the worker's
        log, text or JSON, shows it as it shows a line of a task in a thread)."""
        extra: dict[str, Any] = {key: line[key] for key in LOG_FIELDS if line.get(key) is not None}
        if self._shows_host and self.executor is not None:
            extra["executor"] = self.executor
        logging.getLogger(str(line.get("logger", "connectworker"))).log(
            int(line.get("level", logging.INFO)), "%s", line.get("message", ""), extra=extra
        )

    def _observe(self, report: dict[str, Any]) -> None:
        assert self._metrics is not None
        for seconds, records in report.get("polls", ()):
            self._metrics.polled(float(seconds), int(records))
        for seconds in report.get("commits", ()):
            self._metrics.committed(float(seconds))
        if "startups" in report:  # cumulative in the task's process: apply what is new
            now = tuple(int(n) for n in report["startups"])
            before, self._startups = self._startups, (now[0], now[1], now[2])
            counts = self._metrics.startups
            for _ in range(now[0] - before[0]):
                counts.attempted()
            for _ in range(now[1] - before[1]):
                counts.succeeded()
            for _ in range(now[2] - before[2]):
                counts.failed()

    def command_now(self, answer: str | None) -> str:
        if answer == "forget_topics":
            return answer
        with self._lock:
            return self._command

    def take_signals(self) -> list[dict[str, Any]]:
        with self._lock:
            signals, self._signals = self._signals, []
        return signals

    def attach(self, send: Callable[[], None] | None) -> None:
        with self._lock:
            self._send = send

    def on_disconnect(self) -> None:
        """The task is done with this worker (it finished, or its process died: the placement sees that
        through `ended`, and Spark re-runs a Spark task whose process died). Its topic connection ends
        too: the process may live on to run other tasks, and the thread serving the connection would
        otherwise wait on it for as long."""
        with self._lock:
            connections, self._topic_connections = self._topic_connections, set()
        for io in connections:
            io.shutdown()

    def serve_topics(self, io: LineIO) -> None:
        with self._lock:
            if self._gate is None:
                self._gate = self._topic_gate()
            gate = self._gate
            self._topic_connections.add(io)
        try:
            serve_topic_requests(io, gate)
        finally:
            with self._lock:
                self._topic_connections.discard(io)

    def _show(self, state: State, trace: str | None) -> None:
        with self._lock:
            wanted = self._command
        if wanted == "pause" and state is State.RUNNING:
            state = State.PAUSED  # the task has not seen the pause yet: show what was asked
        elif wanted == "run" and state is State.PAUSED:
            state = State.RUNNING  # nor the resume
        if self.status.snapshot() != (state, trace):
            self.status.set(state, trace)

    def ended_with(self, failure: str | None) -> None:
        """The task's process (or Spark job) is done with this task; `failure` says why it gave up on it."""
        if failure is not None:
            self.status.set(State.FAILED, failure)
        elif self.status.state not in (State.FAILED, State.STOPPED):
            self.status.set(State.STOPPED)
        with self._lock:  # what it last reported of its progress is over (its process may have died)
            self._stats = replace(self._stats, progress=None)
            self._signals = []
        self._ended.set()
