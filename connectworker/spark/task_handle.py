"""The driver's view of one connector task running inside a Spark task: what the executor last
reported (state, trace, counters, topics), and the command waiting for it (run, pause, stop)."""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from typing import Any

from connectworker.runtime.status import State, Status
from connectworker.runtime.tasks.task_spec import TaskSpec
from connectworker.runtime.tasks.task_stats import TaskStats

log = logging.getLogger(__name__)


class SparkTaskHandle:
    def __init__(self, spec: TaskSpec, on_topics: Callable[[set[str]], None], *, paused: bool,
                 transactional_id: str | None, waiting_note: str) -> None:
        self.spec = spec
        self.connector, self.task_id, self.name, self.props = spec.connector, spec.task_id, spec.name, spec.props
        self.transactional_id = transactional_id
        self.attempt = uuid.uuid4().hex  # names this start in the channel; a restart gets a new one
        self.status = Status()
        self.status.set(State.UNASSIGNED, waiting_note)
        self.executor: str | None = None  # "host (pid N)" of the Spark task running it, once it reported
        self.worker_id: str | None = None  # that executor's host, for the REST status
        self._on_topics = on_topics
        self._command = "pause" if paused else "run"
        self._forget_topics = False
        self._stats = TaskStats()
        self._lock = threading.Lock()
        self._ended = threading.Event()  # the Spark job ended

    # -- TaskHandle ----------------------------------------------------------------------------
    def pause(self) -> None:
        with self._lock:
            if self._command == "run":
                self._command = "pause"
        if self.status.state is State.RUNNING:
            self.status.set(State.PAUSED)

    def resume(self) -> None:
        with self._lock:
            if self._command == "pause":
                self._command = "run"
        if self.status.state is State.PAUSED:
            self.status.set(State.RUNNING)

    def stop(self) -> None:
        with self._lock:
            self._command = "stop"

    def join(self, timeout: float | None) -> bool:
        return self._ended.wait(timeout)

    def forget_reported_topics(self) -> None:
        with self._lock:
            self._forget_topics = True

    def stats(self) -> TaskStats:
        with self._lock:
            return self._stats

    # -- from the channel (ReportSink) -----------------------------------------------------------
    def on_report(self, report: dict[str, Any]) -> str:
        if "executor" in report:
            self.executor = str(report["executor"])
            self.worker_id = str(report.get("host") or self.executor)
            log.info("Task %s runs in a Spark task on %s", self.name, self.executor)
        for level, logger, message in report.get("logs", ()):
            logging.getLogger(str(logger)).log(int(level), "%s", message, extra={"executor": self.executor})
        topics = set(report.get("topics", ()))
        if topics:
            self._on_topics(topics)
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

    def on_disconnect(self) -> None:
        """Nothing to do: a Spark task that dies is re-run by Spark (its job goes on), and a job that
        ends is reported by `job_ended`."""

    def _show(self, state: State, trace: str | None) -> None:
        with self._lock:
            wanted = self._command
        if wanted == "pause" and state is State.RUNNING:
            state = State.PAUSED  # the executor has not seen the pause yet: show what was asked
        if self.status.snapshot() != (state, trace):
            self.status.set(state, trace)

    def job_ended(self, failure: str | None) -> None:
        """The Spark job of this task ended; `failure` is Spark's reason when it gave up on the task."""
        if failure is not None:
            self.status.set(State.FAILED, failure)
            log.error("Task %s FAILED: Spark gave up on the task: %s", self.name, failure.splitlines()[0])
        elif self.status.state not in (State.FAILED, State.STOPPED):
            self.status.set(State.STOPPED)
        self._ended.set()
