"""The Worker: starts connectors, splits them into tasks, and has a task runner run each task (threads
in standalone, see runtime/runners/).

It owns what tasks share: the offset store, and the topic-creation service (with its known-topic
cache). State changes (pause, resume, stop, restart) arrive from the CLI's signal handlers or the
REST layer and are applied one at a time under the lifecycle lock; queries (status, metrics) take
only a short lock on the registry, so they never wait for a connector that is slow to start.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from concurrent.futures import Future, ThreadPoolExecutor

from connectworker.api.connector import SourceConnector
from connectworker.api.errors import ConfigError, ConnectError
from connectworker.config.connector_config import ConnectorConfig
from connectworker.config.providers.connector_refs import ConnectorConfigResolver, shown_task_config
from connectworker.config.task_limits import bounded_task_configs, task_limit_problem
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.connector_context import RunningConnector, WorkerConnectorContext
from connectworker.runtime.observability.log_context import log_fields
from connectworker.runtime.observability.metrics import WorkerMetrics
from connectworker.runtime.offsets.backing_store import OffsetBackingStore
from connectworker.runtime.offsets.flusher import OffsetFlusher
from connectworker.runtime.runners.task_runner import TaskHandle, TaskRunner, release_stopped_tasks, stop_within
from connectworker.runtime.runners.thread_runner import ThreadTaskRunner
from connectworker.runtime.runners.unstarted_task import UnstartedTask
from connectworker.runtime.status import State, Status
from connectworker.runtime.tasks.task_factory import SourceTaskFactory, TopicGateFactory
from connectworker.runtime.tasks.task_spec import TaskSpec
from connectworker.runtime.topic_creation.required_topics import RequiredTopics

log = logging.getLogger(__name__)


class UnknownConnectorError(ConnectError, LookupError):
    pass


class Worker:
    def __init__(
        self,
        config: WorkerConfig,
        offset_store: OffsetBackingStore,
        topic_gate_factory: TopicGateFactory,
        *,
        worker_id: str = "connectworker",
        metrics: WorkerMetrics | None = None,
        runner: TaskRunner | None = None,
        required_topics: RequiredTopics | None = None,
    ) -> None:
        """`runner` runs the tasks; by default each on a thread of this process, built here. The config
        providers of `config` (`config.providers`) are opened here and closed by `stop()`.
        `required_topics` makes the topics each connector requires ready before its tasks start."""
        self.config = config
        self.resolver = ConnectorConfigResolver(config.open_config_providers(), worker=config)
        self.metrics = metrics if metrics is not None else WorkerMetrics()  # a registry of its own
        self.worker_id = worker_id
        self.offset_store = offset_store
        self._flusher = OffsetFlusher(offset_store)
        self._required_topics = required_topics
        if runner is None:  # each task on a thread of this process, built here
            flusher, for_task = self._flusher, self.metrics.for_task
            factory = SourceTaskFactory(
                config, offset_store, topic_gate_factory, offset_flusher=flusher, task_metrics=for_task
            )
            runner = ThreadTaskRunner(factory)
        self.runner: TaskRunner = runner
        self._connectors: dict[str, RunningConnector] = {}
        self._registry = threading.Lock()  # guards `_connectors` only; held for a moment
        self._lock = threading.RLock()  # one lifecycle change at a time
        self._stopping = threading.Event()  # stop() began: no connector or task starts any more
        self._starter: ThreadPoolExecutor | None = None  # starts connectors in the background, in order
        # how long a stopping task may take: its graceful shutdown, then its final offset flush
        self._stop_wait_s = config.task_shutdown_graceful_timeout_ms / 1000 + config.offset_flush_timeout_ms / 1000

    # -- queries -------------------------------------------------------------------------------
    def connector_names(self) -> list[str]:
        with self._registry:
            return sorted(self._connectors)

    def get(self, name: str) -> RunningConnector:
        with self._registry:
            try:
                return self._connectors[name]
            except KeyError:
                raise UnknownConnectorError(f"Connector {name} not found") from None

    def status_snapshot(self) -> list[tuple[str, Status, TaskHandle | None]]:
        """Every connector ("connector NAME") and task ("task NAME-ID") with its live Status (and the task),
        for watching a shutdown: these objects keep being updated after `stop()` lets go of them."""
        with self._registry:
            connectors = sorted(self._connectors.items())
        out: list[tuple[str, Status, TaskHandle | None]] = []
        for name, running in connectors:
            out.append((f"connector {name}", running.status, None))
            out.extend((f"task {task.name}", task.status, task) for task in list(running.tasks))
        return out

    def task_limit_problem(self, config: ConnectorConfig) -> str | None:
        """Why `config` may not run here (its `tasks.max` against the worker's task limits, counting every
        other connector's `tasks.max`); None when it may."""
        return task_limit_problem(self.config, config.tasks_max, self._tasks_taken(but=config.name))

    def _tasks_taken(self, *, but: str) -> int:
        """Tasks the other connectors take: their `tasks.max`, or more if tasks.max.enforce=false let them."""
        with self._registry:
            return sum(
                max(r.config.tasks_max, len(r.task_configs)) for name, r in self._connectors.items() if name != but
            )

    # -- lifecycle -----------------------------------------------------------------------------
    def start_connector(
        self, config: ConnectorConfig, initial_state: State = State.RUNNING, *, wait: bool = True
    ) -> Future[None] | None:
        """Start `config`'s connector and its tasks. A connector that fails to start is FAILED, not raised.

        With `wait=False` it is registered (UNASSIGNED) and started in the background, in the order of
        the requests, as Kafka's herder does; the returned future ends when it has started. Raises
        ConfigError (naming `tasks.max`) when the worker's task limits refuse it."""
        problem = self.task_limit_problem(config)
        if problem is not None:
            raise ConfigError({"tasks.max": problem})
        with self._lock:
            if self._stopping.is_set():
                raise ConnectError("The worker is stopping")
            running = RunningConnector(config, target_state=initial_state)
            with self._registry:
                if config.name in self._connectors:
                    raise ConnectError(f"Connector {config.name} already exists")
                self._connectors[config.name] = running
            if wait:
                self._start(running)
                return None
            return self._background().submit(self._start_in_background, running)

    def _start_in_background(self, running: RunningConnector) -> None:
        with self._lock:
            with self._registry:
                current = self._connectors.get(running.config.name)
            if (
                current is running and not self._stopping.is_set() and running.connector is None and not running.tasks
            ):  # still wanted, and no other request started it meanwhile
                self._start(running)

    def _start(self, running: RunningConnector) -> None:
        config = running.config
        if running.target_state is State.STOPPED:
            running.status.set(State.STOPPED)
            return
        self.metrics.connector_startups.attempted()
        task_props: list[dict[str, str]] = []
        try:
            resolved = running.resolved = self.resolver.connector(config)
            connector = config.connector_class()
            context = WorkerConnectorContext(self, running, connector)
            connector.initialize(context)
            connector.start(resolved.props)
            running.connector = connector
            if context.error is not None:  # raise_error() during start(): a failed start
                raise context.error
            if self._required_topics is not None:  # the connector's own topics, before its first record
                self._required_topics.ensure(config.name, connector.required_topics(resolved.props))
            running.task_configs, task_props = self._task_props(running, connector)
        except Exception as exc:
            self._failed(running, exc, "to start")
            self.metrics.connector_startups.failed()
            if running.connector is not None:
                self._stop_tasks(running)  # it started: give it the chance to release what it holds
            return
        self.metrics.connector_startups.succeeded()
        running.status.set(State.PAUSED if running.target_state is State.PAUSED else State.RUNNING)
        self._start_tasks(running, connector, task_props)
        log.info("Connector %s started with %d task(s)", config.name, len(running.tasks))

    @staticmethod
    def _failed(running: RunningConnector, exc: BaseException, doing: str) -> None:
        running.status.set(State.FAILED, "".join(traceback.format_exception(exc)))
        log.error(
            "Connector %s FAILED %s: %s",
            running.config.name,
            doing,
            exc,
            extra=log_fields(connector=running.config.name),
        )

    def _task_props(
        self, running: RunningConnector, connector: SourceConnector
    ) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
        """The connector's task configs as kept and shown (each task's own, references unresolved), and
        each task's props as it receives them: the resolved connector config with its own laid over it."""
        resolved = running.resolved or running.config  # tasks.max may come from a config provider
        taken = self._tasks_taken(but=resolved.name)
        task_configs = bounded_task_configs(resolved, connector.task_configs(resolved.tasks_max), self.config, taken)
        return (
            [shown_task_config(running.config.props, resolved.props, t) for t in task_configs],
            [{**resolved.props, **t} for t in task_configs],
        )

    def _start_tasks(
        self, running: RunningConnector, connector: SourceConnector, task_props: list[dict[str, str]]
    ) -> None:
        paused = running.target_state is State.PAUSED
        task_class = connector.task_class()
        resolved = running.resolved or running.config
        for i, props in enumerate(task_props):
            if self._stopping.is_set():  # a stop came in while the tasks were starting: start no more
                log.info(
                    "Connector %s: %d of its %d task(s) not started: the worker is stopping",
                    running.config.name,
                    len(task_props) - i,
                    len(task_props),
                )
                break
            running.tasks.append(self._start_task(running, TaskSpec(resolved, i, props, task_class), paused))

    # -- what a running connector asks (its ConnectorContext) ----------------------------------
    def request_task_reconfiguration(self, running: RunningConnector, connector: SourceConnector) -> None:
        """Queue a reconfiguration of `connector`'s tasks (see `_reconfigure`); returns at once."""
        if self._stopping.is_set():
            return
        try:
            self._background().submit(self._reconfigure, running, connector)
        except RuntimeError:  # the worker began stopping since the check: nothing to reconfigure
            log.debug("Connector %s: task reconfiguration not queued, the worker is stopping", running.config.name)

    def _reconfigure(self, running: RunningConnector, connector: SourceConnector) -> None:
        """Ask the connector for its task configs again; when they changed, stop its tasks (their offsets
        committed) and start the new ones, in the connector's target state. Ignored when the instance
        that asked is no longer the one running (it was stopped, restarted or deleted meanwhile)."""
        with self._lock:
            name = running.config.name
            with self._registry:
                current = self._connectors.get(name)
            if (
                current is not running
                or running.connector is not connector
                or self._stopping.is_set()
                or running.status.state is State.FAILED
            ):
                return
            try:
                task_configs, task_props = self._task_props(running, connector)
            except Exception as exc:
                self._failed(running, exc, "in task_configs() during a task reconfiguration")
                return
            if task_configs == running.task_configs:
                log.debug("Connector %s asked for a task reconfiguration; its task configs are unchanged", name)
                return
            log.info(
                "Connector %s: task configs changed (%d task(s) before, %d now); restarting its tasks",
                name,
                len(running.task_configs),
                len(task_configs),
                extra=log_fields(connector=name),
            )
            before = len(running.tasks)
            self._stop_tasks(running, stop_connector=False)
            if len(task_configs) < before:
                self.metrics.forget_tasks(name, range(len(task_configs), before))
            running.task_configs = task_configs
            self._start_tasks(running, connector, task_props)

    def connector_failed(self, running: RunningConnector, connector: SourceConnector, exc: BaseException) -> None:
        """The connector called `raise_error(exc)`: it is FAILED (during `start()`, its start fails)."""
        if running.connector is connector:
            self._failed(running, exc, "(it raised an error through its context)")

    def _background(self) -> ThreadPoolExecutor:
        """The one thread that applies queued requests (background starts, reconfigurations) in order."""
        with self._registry:
            if self._starter is None:
                self._starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="connector-starter")
            return self._starter

    def _start_task(self, running: RunningConnector, spec: TaskSpec, paused: bool) -> TaskHandle:
        """The runner's handle on the started task, or a FAILED one naming why it could not start."""
        try:
            return self.runner.start(spec, paused=paused, on_topics=running.topics.update)
        except Exception as exc:
            log.error(
                "Task %s FAILED to start: %s",
                spec.name,
                exc,
                extra=log_fields(connector=spec.connector, task=spec.task_id),
            )
            return UnstartedTask(spec, exc)

    def _stop_tasks(
        self,
        running: RunningConnector,
        deadline: float | None = None,
        *,
        stop_connector: bool = True,
        release: bool = True,
    ) -> None:
        """Stop `running`'s tasks, waiting for them until `deadline` (monotonic; by default the stop wait
        from now): one bound for them all, not one each, or stuck tasks would add up. Then the connector,
        unless `stop_connector` is false (a task reconfiguration keeps it running). `release=False` leaves
        freeing the stopped tasks to the caller (the worker's stop frees all connectors' at once)."""
        if deadline is None:
            deadline = time.monotonic() + self._stop_wait_s
        stop_within(running.tasks, deadline, self.config.task_shutdown_graceful_timeout_ms)
        running.tasks = []
        if stop_connector:
            if running.connector is not None:
                try:
                    running.connector.stop()
                except Exception:
                    log.exception("Connector %s raised from stop()", running.config.name)
            running.connector = None
            running.resolved = None
        if release:
            release_stopped_tasks()

    def remove_connector(self, name: str) -> None:
        """Stop the connector and its tasks and forget it (offsets stay in the store)."""
        with self._lock:
            running = self.get(name)
            tasks = range(len(running.tasks))
            self._stop_tasks(running)
            with self._registry:
                del self._connectors[name]
            self.resolver.forget(name)
            self.metrics.forget_connector(name, tasks)
            log.info("Connector %s removed", name)

    def restart_connector(self, name: str, config: ConnectorConfig | None = None) -> None:
        """Stop and start again, with a new config when given (tasks get the new config)."""
        if config is not None and (problem := self.task_limit_problem(config)) is not None:
            raise ConfigError({"tasks.max": problem})
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
            task_class = running.connector.task_class()
            kept = running.kept_task_config(task_id) or old.props
            try:  # resolved again, as the connector's config is at a connector restart
                resolved = running.resolved = self.resolver.connector(running.config)
                spec = TaskSpec(resolved, task_id, self.resolver.task(running.config.name, kept), task_class)
            except ConfigError as exc:
                log.error(
                    "Task %s-%d FAILED to start: %s", name, task_id, exc, extra=log_fields(connector=name, task=task_id)
                )
                running.tasks[task_id] = UnstartedTask(TaskSpec(running.config, task_id, kept, task_class), exc)
            else:
                running.tasks[task_id] = self._start_task(running, spec, running.target_state is State.PAUSED)
            del old
            release_stopped_tasks()

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
                log.info(
                    "Connector %s paused: its %d task(s) stop polling (records in flight are still "
                    "delivered and committed)",
                    name,
                    len(running.tasks),
                    extra=log_fields(connector=name),
                )
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
            log.info(
                "Connector %s stopped: no task runs until it is resumed; its offsets may be altered now",
                name,
                extra=log_fields(connector=name),
            )

    def stop(self) -> None:
        """Stop every connector gracefully: tasks flush, and commit what Kafka acknowledged.

        Starts still queued are dropped, and a connector whose tasks are being started starts no more of
        them, so a stop never waits for start-ups it would undo at once."""
        self._stopping.set()
        if self._starter is not None:
            self._starter.shutdown(wait=False, cancel_futures=True)
        for running in self._snapshot():  # ask every task at once, before waiting for any
            for task in list(running.tasks):
                task.stop()
        deadline = time.monotonic() + self._stop_wait_s  # for all of them together
        with self._lock:
            for running in self._snapshot():
                self._stop_tasks(running, deadline, release=False)
            release_stopped_tasks()
            self._flusher.close()
            try:
                self.offset_store.flush()
            except (OSError, ConnectError) as exc:  # the tasks' own commits already reported it
                log.error("Could not write the offsets to %s on shutdown: %s", self.offset_store.describe(), exc)
            try:
                self.offset_store.close()
            except Exception as exc:
                log.error("Could not close the offsets store %s: %s", self.offset_store.describe(), exc)
            self.resolver.close()
            log.info("Worker stopped")

    def _snapshot(self) -> list[RunningConnector]:
        with self._registry:
            return list(self._connectors.values())
