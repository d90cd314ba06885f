"""One connector task in a process other than the worker's (a task process on this host, or a Spark
task on an executor): the standalone worker's own `WorkerSourceTask` (or its exactly-once kind), built
by the same `SourceTaskFactory`, producing with librdkafka from this process.

The task runs on a thread of its own while another thread talks to the worker (`task_channel.py`): it
reports state, counters, topics, metric observations and log lines, and applies the worker's commands.
Topic creation goes through the worker's service (`runners/remote_topic_gate.py`), so the known-topic cache
is the worker's, and the task's `settings_for_new_topic` is asked here. A task that fails ends
normally with its FAILED state reported (no automatic restart, as in Kafka Connect).
"""

from __future__ import annotations

import json
import logging
import os
import queue
import socket
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from prometheus_client import Histogram

from connectworker.api.operator import OperatorSignal
from connectworker.config.worker_config import WorkerConfig
from connectworker.plugins import add_plugin_paths
from connectworker.runtime.observability.log_context import LogContextFilter
from connectworker.runtime.observability.task_metrics import StartupCounts, TaskMetrics
from connectworker.runtime.offsets.backing_store import OffsetBackingStore
from connectworker.runtime.offsets.flusher import OffsetFlusher
from connectworker.runtime.offsets.storage_settings import OffsetStorageSettings
from connectworker.runtime.runners.remote_topic_gate import RemoteTopicGate
from connectworker.runtime.runners.task_channel import MAX_LINE_BYTES, REPORT_INTERVAL_S
from connectworker.runtime.status import State
from connectworker.runtime.tasks.source_task import WorkerSourceTask
from connectworker.runtime.tasks.task_factory import SourceTaskFactory
from connectworker.runtime.tasks.task_spec import TaskSpec

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 30.0
NEWS_CHECK_INTERVAL_S = 0.02
"""How often the task's link looks for news to report at once (a state change, a commit, a topic met),
between the regular reports of every `REPORT_INTERVAL_S`."""
MAX_OBSERVATIONS = 10_000  # poll observations kept between two reports (a report every 0.25 s)


@dataclass(frozen=True)
class RemoteTask:
    """Everything another process needs to run one task (pickled to it)."""

    spec: TaskSpec
    worker: WorkerConfig
    offsets: OffsetStorageSettings
    address: tuple[str, int]  # the worker's task channel
    token: str
    attempt: str
    paused: bool
    plugin_paths: tuple[str, ...] = ()
    placement: str = "a Spark task"
    log_level: int = logging.INFO  # the worker's: lines at this level and above reach the worker's log


class TaskNotBuilt(Exception):
    """The task could not be built where it was to run (a converter's config, its class's constructor)."""


def run_remote_tasks(payloads: Iterable[RemoteTask]) -> Iterator[dict[str, Any]]:
    """`mapPartitions` function of a Spark task's job: run each task given, yield how it ended."""
    for payload in payloads:
        yield run_remote_task(payload)


def ended_failure(ended: Mapping[str, Any]) -> str | None:
    """The trace of a task `run_remote_task` says ended FAILED, else None. The worker sets its handle's final
    state from this: the task's status updates travel on the task channel and may still be on their way
    when the task's process or Spark job says it is done (the channel then drops them), and a task whose
    start failed would end STOPPED, which no automatic restart sees."""
    if ended.get("state") != State.FAILED.value:
        return None
    return str(ended.get("trace") or f"Task {ended.get('task')} FAILED")


def run_remote_task(payload: RemoteTask) -> dict[str, Any]:
    add_plugin_paths(list(payload.plugin_paths))
    FORWARDER.install(payload.log_level)
    try:
        store = payload.offsets.open()
        flusher = OffsetFlusher(store)
        try:
            with WorkerLink(payload) as link:
                try:
                    task = _build(payload, link, store, flusher)
                except Exception as exc:
                    raise TaskNotBuilt(str(exc) or type(exc).__name__) from exc
                if payload.paused:
                    task.pause()
                runner = threading.Thread(target=task.run, name=f"task-{task.name}", daemon=True)
                runner.start()
                link.follow(task, runner)
        finally:  # its thread and clients (an offsets topic's) must not outlive the task in a long-lived process
            flusher.close()
            store.close()
        state, trace = task.status.snapshot()
        return {"task": payload.spec.name, "state": state.value, "trace": trace}
    finally:
        FORWARDER.uninstall()


def _build(
    payload: RemoteTask, link: WorkerLink, store: OffsetBackingStore, flusher: OffsetFlusher
) -> WorkerSourceTask:
    factory = SourceTaskFactory(
        payload.worker,
        store,
        lambda _config: link.gate,
        offset_flusher=flusher,
        task_metrics=lambda _c, _t: link.metrics,
    )
    return factory.build(payload.spec, on_topics=link.topics_met)


class RecordingTaskMetrics(TaskMetrics):
    """A remote task's metrics: its observations kept for the next report, where the worker's own
    histograms take them (the worker's registry is what `/metrics` shows)."""

    __slots__ = ("_commits", "_observed", "_polls")

    def __init__(self) -> None:
        # The histograms are the worker's; these stand unused (polled and committed record instead).
        super().__init__(
            Histogram("poll", "", registry=None),
            Histogram("batch", "", registry=None),
            Histogram("commit", "", registry=None),
            StartupCounts(),
        )
        self._polls: list[tuple[float, int]] = []
        self._commits: list[float] = []
        self._observed = threading.Lock()

    def polled(self, seconds: float, records: int) -> None:
        with self._observed:
            if len(self._polls) < MAX_OBSERVATIONS:
                self._polls.append((seconds, records))

    def committed(self, seconds: float) -> None:
        with self._observed:
            self._commits.append(seconds)

    def drain(self) -> dict[str, Any]:
        with self._observed:
            polls, commits, self._polls, self._commits = self._polls, self._commits, [], []
        counts = self.startups
        return {"polls": polls, "commits": commits, "startups": [counts.attempts, counts.successes, counts.failures]}


class WorkerLink:
    """The task's connection to the worker: reports out (from the thread that follows the task), commands
    in (on a thread of their own, applied as they arrive: a stop asked for reaches the task at once)."""

    def __init__(self, payload: RemoteTask) -> None:
        self.payload = payload
        self._sock: socket.socket | None = None
        self._topics: set[str] = set()
        self._topics_lock = threading.Lock()
        self._reported: tuple[State, int] = (State.UNASSIGNED, 0)  # the state and committed records last reported
        self._connected = threading.Event()  # set while the worker is there
        self._losing = threading.Lock()  # the reader and the reporter may both find the worker gone
        self._closing = False
        self.metrics = RecordingTaskMetrics()
        self.gate = RemoteTopicGate(payload.address, {"token": payload.token, "attempt": payload.attempt})

    def __enter__(self) -> WorkerLink:
        self._sock = socket.create_connection(self.payload.address, timeout=CONNECT_TIMEOUT_S)
        self._sock.settimeout(None)
        self._reader = self._sock.makefile("rb")
        self._writer = self._sock.makefile("wb")
        return self

    def __exit__(self, *exc: object) -> None:
        self._closing = True
        self.gate.close()
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)  # wakes the command reader, which then ends quietly
            except OSError as exc:
                log.debug("The connection to the worker was closed already: %s", exc)
            self._sock.close()

    def topics_met(self, topics: set[str]) -> None:
        """The task's `on_topics`: called on its thread, sent with the next report."""
        with self._topics_lock:
            self._topics |= topics

    def follow(self, task: WorkerSourceTask, runner: threading.Thread) -> None:
        """Report until the task's thread ends; commands are applied by the reader thread started here. If
        the worker goes away, the task is stopped (it commits what Kafka acknowledged) and waited for."""
        host = socket.gethostname()
        first: dict[str, Any] = {
            "token": self.payload.token,
            "attempt": self.payload.attempt,
            "executor": f"{host} (pid {os.getpid()})",
            "host": host,
        }
        self._connected.set()
        threading.Thread(target=self._obey, args=(task,), name=f"task-commands-{task.name}", daemon=True).start()
        self._report(task, first)
        due = time.monotonic() + REPORT_INTERVAL_S
        while runner.is_alive():
            runner.join(NEWS_CHECK_INTERVAL_S)
            if self._connected.is_set() and (time.monotonic() >= due or self._news(task)):
                self._report(task, {})
                due = time.monotonic() + REPORT_INTERVAL_S
        if self._connected.is_set():
            self._report(task, {"done": True})

    def _news(self, task: WorkerSourceTask) -> bool:
        """What the worker should hear before the next regular report: a new state, a commit, a topic met
        (so that its console, its status and whoever waits for offsets to be committed follow the task as it
        happens, not up to a report interval later)."""
        with self._topics_lock:
            if self._topics:
                return True
        return task.status.snapshot()[0] != self._reported[0] or task.committed_records != self._reported[1]

    def _report(self, task: WorkerSourceTask, extra: dict[str, Any]) -> None:
        with self._topics_lock:
            topics, self._topics = self._topics, set()
        state, trace = task.status.snapshot()
        stats = task.stats()
        self._reported = (state, stats.committed_records)
        report = {
            **extra,
            "state": state.value,
            "trace": trace,
            "stats": asdict(stats),
            "topics": sorted(topics),
            "logs": FORWARDER.drain(),
            **self.metrics.drain(),
        }
        try:
            self._writer.write(json.dumps(report).encode() + b"\n")
            self._writer.flush()
        except OSError as exc:
            self._lost(task, str(exc))

    def _obey(self, task: WorkerSourceTask) -> None:
        """Apply each command the worker sends: the answer to every report, and what it pushes at once (a
        stop, a pause, a resume); hand the task the operators' signals that come with it."""
        reason = "the worker closed the connection"
        while True:
            try:
                line = self._reader.readline(MAX_LINE_BYTES)
            except (OSError, ValueError) as exc:
                line, reason = b"", str(exc)
            if not line:
                if not self._closing:
                    self._lost(task, reason)
                return
            message = json.loads(line)
            for signal in message.get("signals", ()):
                task.signal(OperatorSignal.from_json(signal))
            command = message.get("command")
            if command == "stop":
                task.stop()
            elif command == "pause":
                task.pause(announce=False)  # the worker announced it when it asked
            elif command == "run" and task.status.state is State.PAUSED:
                task.resume(announce=False)
            elif command == "forget_topics":
                task.forget_reported_topics()

    def _lost(self, task: WorkerSourceTask, reason: str) -> None:
        with self._losing:
            if not self._connected.is_set():
                return
            self._connected.clear()
        log.warning(
            "Task %s lost the worker it reports to (%s): stopping it; it commits what Kafka acknowledged",
            task.name,
            reason,
        )
        task.stop()


FORWARDED_LOGGERS = "connectworker"
"""Lines of these loggers reach the worker's log from any thread of the process; other loggers' lines
only when a task's thread logs them (a connector's own logger, its producer's librdkafka lines)."""


class LogForwarder(logging.Handler):
    """Keeps this process's log lines for the task reports to the worker, with the connector, task and
    topic they are about. One per process, installed while any task runs; whichever task reports next
    carries the lines (they name their own task)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.addFilter(LogContextFilter())
        self._lines: queue.SimpleQueue[dict[str, Any]] = queue.SimpleQueue()
        self._users = 0
        self._lock = threading.Lock()
        self._saved_level: int | None = None
        self._format = logging.Formatter()

    def install(self, level: int) -> None:
        with self._lock:
            self._users += 1
            if self._users > 1:
                return
            self.setLevel(level)
            logging.getLogger().addHandler(self)
            ours = logging.getLogger(FORWARDED_LOGGERS)
            self._saved_level = ours.level
            if ours.getEffectiveLevel() > level:
                ours.setLevel(level)

    def uninstall(self) -> None:
        with self._lock:
            self._users -= 1
            if self._users > 0:
                return
            logging.getLogger().removeHandler(self)
            if self._saved_level is not None:
                logging.getLogger(FORWARDED_LOGGERS).setLevel(self._saved_level)

    def filter(self, record: logging.LogRecord) -> bool:
        super().filter(record)  # adds the task's context from the logging thread
        return record.name.startswith(FORWARDED_LOGGERS) or hasattr(record, "task")

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if record.exc_info:
            message = f"{message}\n{self._format.formatException(record.exc_info)}"
        self._lines.put(
            {
                "level": record.levelno,
                "logger": record.name,
                "message": message,
                "connector": getattr(record, "connector", None),
                "task": getattr(record, "task", None),
                "topic": getattr(record, "topic", None),
            }
        )

    def drain(self) -> list[dict[str, Any]]:
        lines = []
        while not self._lines.empty():
            lines.append(self._lines.get_nowait())
        return lines


FORWARDER = LogForwarder()


def python_path() -> tuple[str, ...]:
    """This process's module search path, for a task process to import what the worker imports."""
    return tuple(entry for entry in sys.path if entry)
