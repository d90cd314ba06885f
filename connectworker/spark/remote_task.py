"""One connector task inside one Spark task, on an executor: the standalone worker's own
`WorkerSourceTask` (or its exactly-once kind), built by the same `SourceTaskFactory`, producing with
librdkafka from this Python process; the records never enter the JVM.

The task runs on a thread of this Python worker while the Spark task's thread talks to the driver
(`task_channel.py`): it reports state, counters, topics and log lines, and applies the driver's
commands. The Spark task ends when the connector task ends. A task that fails ends the Spark task
normally (FAILED is the connector's state, as in Kafka Connect: no automatic restart); only a Spark
task whose process dies is re-run by Spark, resuming from the committed offsets.
"""

from __future__ import annotations

import json
import logging
import os
import queue
import socket
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

from connectworker.config.connector_config import ConnectorConfig
from connectworker.config.topic_policy import policy_options
from connectworker.config.worker_config import WorkerConfig
from connectworker.plugins import add_plugin_paths
from connectworker.runtime.offsets.flusher import OffsetFlusher
from connectworker.runtime.status import State
from connectworker.runtime.tasks.source_task import WorkerSourceTask
from connectworker.runtime.tasks.task_factory import SourceTaskFactory
from connectworker.runtime.tasks.task_spec import TaskSpec
from connectworker.runtime.topic_creation.gate import TopicGate, connector_admins
from connectworker.spark.offset_storage import OffsetStorageSettings
from connectworker.spark.task_channel import MAX_LINE_BYTES, REPORT_INTERVAL_S
from connectworker.spark.topic_gates import creation_service, topic_gate

log = logging.getLogger(__name__)

FORWARDED_LOGGERS = "connectworker"  # INFO and up of these reach the driver's log
CONNECT_TIMEOUT_S = 30.0
NEWS_CHECK_INTERVAL_S = 0.02
"""How often the Spark task looks for news to report at once (a state change, the first commit), between
the regular reports of every `REPORT_INTERVAL_S`."""


@dataclass(frozen=True)
class RemoteTask:
    """Everything an executor needs to run one task (pickled into the Spark job)."""

    spec: TaskSpec
    worker: WorkerConfig
    offsets: OffsetStorageSettings
    driver: tuple[str, int]
    token: str
    attempt: str
    paused: bool
    plugin_paths: tuple[str, ...] = ()


def run_remote_tasks(payloads: Iterable[RemoteTask]) -> Iterator[dict[str, Any]]:
    """`mapPartitions` function of the task's Spark job: run each task given, yield how it ended."""
    for payload in payloads:
        yield run_remote_task(payload)


def run_remote_task(payload: RemoteTask) -> dict[str, Any]:
    add_plugin_paths(list(payload.plugin_paths))
    forwarder = LogForwarder()
    forwarder.install()
    try:
        with DriverLink(payload) as link:
            task = _build(payload, link)
            if payload.paused:
                task.pause()
            runner = threading.Thread(target=task.run, name=f"task-{task.name}", daemon=True)
            runner.start()
            link.follow(task, runner, forwarder)
        state, trace = task.status.snapshot()
        return {"task": payload.spec.name, "state": state.value, "trace": trace}
    finally:
        forwarder.uninstall()


def _build(payload: RemoteTask, link: DriverLink) -> WorkerSourceTask:
    worker = payload.worker
    store = payload.offsets.open()
    kafka = {**worker.client_settings("admin"), "bootstrap.servers": worker.bootstrap_servers}
    service = creation_service(kafka, enabled=worker.topic_creation_enable, timeout_ms=worker.topic_creation_timeout_ms,
                               policy=policy_options(worker))

    admins = connector_admins(worker, min(30.0, worker.topic_creation_timeout_ms / 1000))

    def gates(config: ConnectorConfig) -> TopicGate:
        return topic_gate(service, config.name, config.props, admins(config))

    factory = SourceTaskFactory(worker, store, gates, offset_flusher=OffsetFlusher(store))
    return factory.build(payload.spec, on_topics=link.topics_met)


class DriverLink:
    """The Spark task's connection to the driver: reports out, commands in."""

    def __init__(self, payload: RemoteTask) -> None:
        self.payload = payload
        self._sock: socket.socket | None = None
        self._topics: set[str] = set()
        self._topics_lock = threading.Lock()
        self._reported: tuple[State, bool] = (State.UNASSIGNED, False)  # state, and whether anything committed

    def __enter__(self) -> DriverLink:
        self._sock = socket.create_connection(self.payload.driver, timeout=CONNECT_TIMEOUT_S)
        self._file = self._sock.makefile("rwb")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._sock is not None:
            self._sock.close()

    def topics_met(self, topics: set[str]) -> None:
        """The task's `on_topics`: called on its thread, sent with the next report."""
        with self._topics_lock:
            self._topics |= topics

    def follow(self, task: WorkerSourceTask, runner: threading.Thread, forwarder: LogForwarder) -> None:
        """Report and obey until the task's thread ends; if the driver goes away, stop the task (it
        commits what Kafka acknowledged) and wait for it."""
        first: dict[str, Any] = {"token": self.payload.token, "attempt": self.payload.attempt,
                                 "executor": f"{socket.gethostname()} (pid {os.getpid()})",
                                 "host": socket.gethostname()}
        connected = self._exchange(task, forwarder, first)
        due = time.monotonic() + REPORT_INTERVAL_S
        while runner.is_alive():
            runner.join(NEWS_CHECK_INTERVAL_S)
            if connected and (time.monotonic() >= due or self._news(task)):
                connected = self._exchange(task, forwarder, {})
                due = time.monotonic() + REPORT_INTERVAL_S
        if connected:
            self._exchange(task, forwarder, {"done": True})

    def _news(self, task: WorkerSourceTask) -> bool:
        """What the driver should hear before the next regular report: a new state, a first commit, a
        topic met (so that the driver's console and status follow the task as it happens)."""
        with self._topics_lock:
            if self._topics:
                return True
        return task.status.snapshot()[0] != self._reported[0] or (
            not self._reported[1] and task.stats().committed_records > 0)

    def _exchange(self, task: WorkerSourceTask, forwarder: LogForwarder, extra: dict[str, Any]) -> bool:
        with self._topics_lock:
            topics, self._topics = self._topics, set()
        state, trace = task.status.snapshot()
        stats = task.stats()
        self._reported = (state, stats.committed_records > 0)
        report = {**extra, "state": state.value, "trace": trace, "stats": asdict(stats),
                  "topics": sorted(topics), "logs": forwarder.drain()}
        try:
            self._file.write(json.dumps(report).encode() + b"\n")
            self._file.flush()
            line = self._file.readline(MAX_LINE_BYTES)
        except OSError as exc:
            line, reason = b"", str(exc)
        else:
            reason = "the driver closed the connection"
        if not line:
            log.warning("Task %s lost its driver (%s): stopping it; it commits what Kafka acknowledged",
                        task.name, reason)
            task.stop()
            return False
        command = json.loads(line).get("command")
        if command == "stop":
            task.stop()
        elif command == "pause":
            task.pause()
        elif command == "run" and state is State.PAUSED:
            task.resume()
        elif command == "forget_topics":
            task.forget_reported_topics()
        return True


class LogForwarder(logging.Handler):
    """Keeps connectworker's INFO-and-up lines of this process for the next report to the driver."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self._lines: queue.SimpleQueue[tuple[int, str, str]] = queue.SimpleQueue()
        self._logger = logging.getLogger(FORWARDED_LOGGERS)
        self._level = self._logger.level

    def install(self) -> None:
        self._logger.addHandler(self)
        if self._logger.getEffectiveLevel() > logging.INFO:
            self._logger.setLevel(logging.INFO)

    def uninstall(self) -> None:
        self._logger.removeHandler(self)
        self._logger.setLevel(self._level)

    def emit(self, record: logging.LogRecord) -> None:
        self._lines.put((record.levelno, record.name, record.getMessage()))

    def drain(self) -> list[tuple[int, str, str]]:
        lines = []
        while not self._lines.empty():
            lines.append(self._lines.get_nowait())
        return lines
