"""The Worker: starts connectors, splits them into tasks, and has a task runner run each task (threads
in standalone, see runtime/runners/).

It owns what tasks share: the offset store, and the topic-creation service (with its known-topic
cache). State changes (pause, resume, stop, restart) arrive from the CLI's signal handlers or the
REST layer and are applied under one lock.
"""

from __future__ import annotations

import logging
import threading
import traceback
from dataclasses import dataclass, field

from connectworker.api.connector import SourceConnector
from connectworker.api.errors import ConnectError
from connectworker.config.connector_config import ConnectorConfig
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.observability.log_context import log_fields
from connectworker.runtime.observability.metrics import WorkerMetrics
from connectworker.runtime.offsets.backing_store import OffsetBackingStore
from connectworker.runtime.offsets.flusher import OffsetFlusher
from connectworker.runtime.runners.task_runner import TaskHandle, TaskRunner
from connectworker.runtime.runners.thread_runner import ThreadTaskRunner
from connectworker.runtime.status import State, Status
from connectworker.runtime.tasks.task_factory import SourceTaskFactory, TopicGateFactory
from connectworker.runtime.tasks.task_spec import TaskSpec

log = logging.getLogger(__name__)

class UnknownConnectorError(ConnectError, LookupError):
    pass


@dataclass
class RunningConnector:
    config: ConnectorConfig
    connector: SourceConnector | None = None
    status: Status = field(default_factory=Status)
    tasks: list[TaskHandle] = field(default_factory=list)
    task_configs: list[dict[str, str]] = field(default_factory=list)
    topics: set[str] = field(default_factory=set)
    target_state: State = State.RUNNING


class Worker:
    def __init__(self, config: WorkerConfig, offset_store: OffsetBackingStore,
                 topic_gate_factory: TopicGateFactory, *, worker_id: str = "connectworker",
                 metrics: WorkerMetrics | None = None, runner: TaskRunner | None = None) -> None:
        """`runner` runs the tasks; by default each on a thread of this process, built here."""
        self.config = config
        self.metrics = metrics if metrics is not None else WorkerMetrics()  # a registry of its own
        self.worker_id = worker_id
        self.offset_store = offset_store
        self._flusher = OffsetFlusher(offset_store)
        self.runner: TaskRunner = runner if runner is not None else ThreadTaskRunner(SourceTaskFactory(
            config, offset_store, topic_gate_factory, offset_flusher=self._flusher,
            task_metrics=self.metrics.for_task))
        self._connectors: dict[str, RunningConnector] = {}
        self._lock = threading.RLock()
        # how long a stopping task may take: its graceful shutdown, then its final offset flush
        self._stop_wait_s = config.task_shutdown_graceful_timeout_ms / 1000 + config.offset_flush_timeout_ms / 1000

    # -- queries -------------------------------------------------------------------------------
    def connector_names(self) -> list[str]:
        with self._lock:
            return sorted(self._connectors)

    def get(self, name: str) -> RunningConnector:
        with self._lock:
            try:
                return self._connectors[name]
            except KeyError:
                raise UnknownConnectorError(f"Connector {name} not found") from None

    def status_snapshot(self) -> list[tuple[str, Status, TaskHandle | None]]:
        """Every connector ("connector NAME") and task ("task NAME-ID") with its live Status (and the task),
        for watching a shutdown: these objects keep being updated after `stop()` lets go of them."""
        with self._lock:
            out: list[tuple[str, Status, TaskHandle | None]] = []
            for name, running in sorted(self._connectors.items()):
                out.append((f"connector {name}", running.status, None))
                out.extend((f"task {task.name}", task.status, task) for task in running.tasks)
            return out

    # -- lifecycle -----------------------------------------------------------------------------
    def start_connector(self, config: ConnectorConfig, initial_state: State = State.RUNNING) -> None:
        """Start `config`'s connector and its tasks. A connector that fails to start is FAILED, not raised."""
        with self._lock:
            if config.name in self._connectors:
                raise ConnectError(f"Connector {config.name} already exists")
            running = RunningConnector(config, target_state=initial_state)
            self._connectors[config.name] = running
            self._start(running)

    def _start(self, running: RunningConnector) -> None:
        config = running.config
        if running.target_state is State.STOPPED:
            running.status.set(State.STOPPED)
            return
        self.metrics.connector_startups.attempted()
        try:
            connector = config.connector_class()
            connector.start(config.props)
            running.connector = connector
            running.task_configs = [
                {**config.props, **task_props} for task_props in connector.task_configs(config.tasks_max)
            ][: config.tasks_max]
            paused = running.target_state is State.PAUSED
            for i, props in enumerate(running.task_configs):
                running.tasks.append(self._start_task(running, TaskSpec(config, i, props, connector.task_class()),
                                                      paused))
        except Exception as exc:
            running.status.set(State.FAILED, "".join(traceback.format_exception(exc)))
            log.error("Connector %s FAILED to start: %s", config.name, exc)
            self.metrics.connector_startups.failed()
            if running.connector is not None:
                self._stop_tasks(running)  # it started: give it the chance to release what it holds
            return
        self.metrics.connector_startups.succeeded()
        running.status.set(State.PAUSED if running.target_state is State.PAUSED else State.RUNNING)
        log.info("Connector %s started with %d task(s)", config.name, len(running.tasks))

    def _start_task(self, running: RunningConnector, spec: TaskSpec, paused: bool) -> TaskHandle:
        return self.runner.start(spec, paused=paused, on_topics=running.topics.update)

    def _stop_tasks(self, running: RunningConnector) -> None:
        for task in running.tasks:
            task.stop()
        for task in running.tasks:
            if not task.join(self._stop_wait_s):
                log.error("Task %s did not stop within task.shutdown.graceful.timeout.ms (%d ms); "
                          "abandoning its thread", task.name, self.config.task_shutdown_graceful_timeout_ms)
        if running.connector is not None:
            try:
                running.connector.stop()
            except Exception:
                log.exception("Connector %s raised from stop()", running.config.name)
        running.tasks = []
        running.connector = None

    def remove_connector(self, name: str) -> None:
        """Stop the connector and its tasks and forget it (offsets stay in the store)."""
        with self._lock:
            running = self.get(name)
            tasks = range(len(running.tasks))
            self._stop_tasks(running)
            del self._connectors[name]
            self.metrics.forget_connector(name, tasks)
            log.info("Connector %s removed", name)

    def restart_connector(self, name: str, config: ConnectorConfig | None = None) -> None:
        """Stop and start again, with a new config when given (tasks get the new config)."""
        with self._lock:
            running = self.get(name)
            self._stop_tasks(running)
            if config is not None:
                running.config = config
            running.topics.clear()
            if running.target_state is State.STOPPED:
                running.target_state = State.RUNNING
            self._start(running)

    def restart_task(self, name: str, task_id: int) -> None:
        with self._lock:
            running = self.get(name)
            if not 0 <= task_id < len(running.tasks) or running.connector is None:
                raise UnknownConnectorError(f"Task {name}-{task_id} not found")
            old = running.tasks[task_id]
            old.stop()
            old.join(self._stop_wait_s)
            spec = TaskSpec(running.config, task_id, old.props, running.connector.task_class())
            running.tasks[task_id] = self._start_task(running, spec, running.target_state is State.PAUSED)

    def reset_topics(self, name: str) -> None:
        """Forget the connector's active topics; its tasks report each again when they next use it."""
        with self._lock:
            running = self.get(name)
            running.topics.clear()
            for task in running.tasks:
                task.forget_reported_topics()

    def pause_connector(self, name: str) -> None:
        with self._lock:
            running = self.get(name)
            running.target_state = State.PAUSED
            if running.status.state is State.RUNNING:
                running.status.set(State.PAUSED)
                log.info("Connector %s paused: its %d task(s) stop polling (records in flight are still "
                         "delivered and committed)", name, len(running.tasks), extra=log_fields(connector=name))
            for task in running.tasks:
                task.pause()

    def resume_connector(self, name: str) -> None:
        with self._lock:
            running = self.get(name)
            if running.target_state is State.STOPPED:
                running.target_state = State.RUNNING
                self._start(running)
                return
            running.target_state = State.RUNNING
            if running.status.state is State.PAUSED:
                running.status.set(State.RUNNING)
                log.info("Connector %s resumed", name, extra=log_fields(connector=name))
            for task in running.tasks:
                task.resume()

    def stop_connector(self, name: str) -> None:
        """Kafka's `PUT /stop`: stop the tasks but keep the connector, STOPPED, so offsets can be edited."""
        with self._lock:
            running = self.get(name)
            self._stop_tasks(running)
            running.target_state = State.STOPPED
            running.status.set(State.STOPPED)
            log.info("Connector %s stopped: no task runs until it is resumed; its offsets may be altered now",
                     name, extra=log_fields(connector=name))

    def stop(self) -> None:
        """Stop every connector gracefully: tasks flush, and commit what Kafka acknowledged."""
        with self._lock:
            for task in (t for r in self._connectors.values() for t in r.tasks):
                task.stop()
            for name in list(self._connectors):
                self._stop_tasks(self._connectors[name])
            self._flusher.close()
            try:
                self.offset_store.flush()
            except (OSError, ConnectError) as exc:  # the tasks' own commits already reported it
                log.error("Could not write the offsets to %s on shutdown: %s", self.offset_store.describe(), exc)
            try:
                self.offset_store.close()
            except Exception as exc:
                log.error("Could not close the offsets store %s: %s", self.offset_store.describe(), exc)
            log.info("Worker stopped")
