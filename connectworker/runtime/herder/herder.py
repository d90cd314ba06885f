"""The standalone herder: the connectors' lifecycle (from files, REST or tests), done atomically and persisted.

Named after Kafka's `StandaloneHerder`. It serialises changes (so "create unless it exists" cannot race),
validates configs and reports every problem at once, keeps `[hidden]` secrets unchanged on update, and
records each change in the connector store so it survives a restart.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping, Sequence

from connectworker.api.errors import ConfigError
from connectworker.api.operator import OperatorSignal
from connectworker.api.topic_policy import CreateTopicPolicy
from connectworker.config.connector_config import ConnectorConfig, parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.herder import views
from connectworker.runtime.herder.auto_restart import AutoRestarter
from connectworker.runtime.herder.connector_store import ConnectorStoreBase
from connectworker.runtime.herder.errors import (
    ConnectorExistsError,
    InvalidRequestError,
    check_config_name,
    check_request_name,
    invalid_config,
)
from connectworker.runtime.herder.offset_changes import ask_connector, unused_offset_reasons
from connectworker.runtime.herder.operator_signals import send_signal
from connectworker.runtime.herder.persistence import Persistence
from connectworker.runtime.herder.redaction import ConnectorSecrets
from connectworker.runtime.herder.supervisor import Supervisor
from connectworker.runtime.herder.topic_questions import TopicQuestions
from connectworker.runtime.herder.unusable_config import is_unusable, parsed_or_unusable
from connectworker.runtime.herder.validation import validate_connector_config
from connectworker.runtime.herder.values import (
    ConnectorActivity,
    ConnectorInfo,
    ConnectorStatus,
    Health,
    OffsetChanges,
    OffsetUse,
    RestartPlan,
    TaskConfig,
    TaskStatus,
    Validation,
)
from connectworker.runtime.observability.log_redaction import SecretRedactor
from connectworker.runtime.observability.metrics import WorkerMetrics
from connectworker.runtime.observability.rates import RateHistory
from connectworker.runtime.observability.secrets import hide, keep_hidden_values
from connectworker.runtime.offsets.file_store import partition_key
from connectworker.runtime.status import State
from connectworker.runtime.topic_creation.service import CreatedTopic, TopicCreationService
from connectworker.runtime.worker import RunningConnector, UnknownConnectorError, Worker
from connectworker.topics.admin import TopicAdmin
from connectworker.topics.drift import TopicDrift
from connectworker.topics.plan import PlanEntry

log = logging.getLogger(__name__)

NOT_STOPPED = (
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be "
    "done for the specified connector by issuing a 'PUT' request to the "
    "'/connectors/{name}/stop' endpoint"
)


class StandaloneHerder:
    def __init__(
        self,
        worker: Worker,
        config: WorkerConfig,
        *,
        admin: TopicAdmin | None = None,
        store: ConnectorStoreBase | None = None,
        redactor: SecretRedactor | None = None,
        cluster_id: str | None = None,
        metrics: WorkerMetrics | None = None,
        topics: TopicCreationService | None = None,
    ) -> None:
        self.worker = worker
        self.metrics = metrics
        self.topics = topics  # the worker's topic creation: what it created, for the status page and drift
        self.config = config
        self.admin = admin
        self.store = store
        # Without an installed redactor the logs are not redacted, but REST responses still are.
        self.redactor = redactor if redactor is not None else SecretRedactor()
        self._lock = threading.RLock()
        self.secrets = ConnectorSecrets(worker, config, self.redactor)
        worker.resolver.on_values = self.secrets.refresh  # a connector's provider values, before it can log them
        self.persistence = Persistence(store)
        self._cluster_id = cluster_id  # known from the start-up check: `GET /` never waits for Kafka
        self._started = False
        self.auto_restarts = AutoRestarter(worker, self._restart_failed_connector, self._restart_failed_task, metrics)
        self.rates = RateHistory(worker.status_snapshot)  # records/s, for the status page
        self._supervisor: Supervisor | None = None
        self.topic_questions = TopicQuestions(worker, config, admin, topics)

    # -- start-up ------------------------------------------------------------------------------
    def start(self, file_configs: Sequence[ConnectorConfig]) -> None:
        """Bring the worker in line with the command-line connectors and the connector store.

        Command-line connectors may already be running (the CLI starts them first); those that the
        store overrides are restarted with the stored config and state, or stopped if deleted.
        """
        with self._lock:
            wanted = self.persistence.startup_entries([c.props for c in file_configs])
            self.secrets.set(e.config for e in wanted.values())
            for name in self.worker.connector_names():
                if name not in wanted and self.persistence.from_file(name):
                    self.worker.remove_connector(name)
            for name, entry in wanted.items():
                config = parsed_or_unusable(
                    entry.config,
                    source=f"connector store entry {name!r}",
                    providers=self.worker.resolver.providers,
                    worker=self.config,
                )
                try:
                    self._run(config, entry.target_state)
                except ConfigError as exc:  # the worker's task limits: the others still start
                    log.error("Connector %s is not started: %s", name, exc)
                    continue
                if entry.from_store and not is_unusable(config):
                    log.info("Connector %s restored from the connector store (%s)", name, entry.target_state)
            self.secrets.refresh()
            self._started = True
            if self._supervisor is None:
                self._supervisor = Supervisor([self.auto_restarts.tick, self.rates.maybe_sample]).start()

    def close(self) -> None:
        """Stop the supervisor (no automatic restart after this); before the worker stops."""
        supervisor, self._supervisor = self._supervisor, None
        if supervisor is not None:
            # it may be restarting a task: allow that task's stop, as the worker does
            supervisor.stop(
                timeout_s=(self.config.task_shutdown_graceful_timeout_ms + self.config.offset_flush_timeout_ms) / 1000
                + 5
            )

    def _run(self, config: ConnectorConfig, state: State) -> None:
        if config.name in self.worker.connector_names():
            running = self.worker.get(config.name)
            if running.config.props == config.props and running.target_state is state:
                return
            self.worker.remove_connector(config.name)
        self.worker.start_connector(config, state)

    # -- queries -------------------------------------------------------------------------------
    def names(self) -> list[str]:
        return self.worker.connector_names()

    def connector_info(self, name: str) -> ConnectorInfo:
        return views.connector_info(self.worker.get(name))

    def connector_config(self, name: str) -> dict[str, str]:
        """As written (provider references unresolved), secrets hidden."""
        return hide(self.worker.get(name).config.props)

    def connector_status(self, name: str, restarting: RestartPlan | None = None) -> ConnectorStatus:
        return views.connector_status(self.worker.get(name), self.worker.worker_id, self.redact, restarting)

    def task_configs(self, name: str) -> list[TaskConfig]:
        return views.task_configs(self.worker.get(name))

    def task_status(self, name: str, task_id: int) -> TaskStatus | None:
        task = views.find_task(self.worker.get(name), task_id)
        return None if task is None else views.task_status(task, self.worker.worker_id, self.redact)

    def active_topics(self, name: str) -> list[str]:
        return sorted(self.worker.get(name).topics)

    def activity(self, name: str) -> ConnectorActivity:
        """Records per second, last commits and automatic restarts: what the console shows beside the status."""
        return views.connector_activity(self.worker.get(name), self.rates, self.auto_restarts)

    def offset_uses(self, name: str) -> list[OffsetUse]:
        """The committed offsets (as last read), each with why no task of the current config would use it."""
        offsets = self.offsets(name, read_again=False)
        reasons = unused_offset_reasons(self.worker, name, offsets)
        return [OffsetUse(p, o, reason) for (p, o), reason in zip(offsets, reasons, strict=True)]

    def validate_connector_config(self, class_name: str, props: Mapping[str, str]) -> Validation:
        return validate_connector_config(class_name, props, policy=self.policy, worker=self.config)

    def metrics_text(self) -> bytes:
        """The worker's metrics in Prometheus' text format (`METRICS_CONTENT_TYPE`); empty without metrics."""
        return self.metrics.exposition() if self.metrics is not None else b""

    def get(self, name: str) -> RunningConnector:
        return self.worker.get(name)

    def redact(self, text: str) -> str:
        """`text` (a task's trace, an error message) with every known secret value replaced by `[hidden]`,
        by the same code that redacts the log lines."""
        return self.redactor.redact(text)

    def health(self) -> Health:
        return views.worker_health(self.worker, started=self._started)

    def cluster_id(self) -> str | None:
        if self._cluster_id is None and self.admin is not None:
            self._cluster_id = self.admin.cluster_id()
        return self._cluster_id

    def offsets(self, name: str, *, read_again: bool = True) -> list[tuple[object, object]]:
        """`name`'s committed offsets. The tasks commit in processes of their own, so the store is read
        again first, unless the caller just did (`read_again=False`, after `read_offsets_again`)."""
        self.worker.get(name)
        if read_again:
            self.read_offsets_again()
        stored = self.worker.offset_store.offsets(name)
        return [(json.loads(key), offset) for key, offset in sorted(stored.items())]

    def read_offsets_again(self) -> None:
        """Read what every writer committed (once for a page of several connectors)."""
        self.worker.offset_store.refresh()

    def created_topics(self, name: str) -> list[CreatedTopic]:
        return self.topic_questions.created_topics(name)

    def plan(self, name: str, topics: Sequence[str], validate_only: bool) -> list[PlanEntry]:
        return self.topic_questions.plan(name, topics, validate_only)

    def drift(self, name: str, topics: Sequence[str] = ()) -> list[TopicDrift]:
        return self.topic_questions.drift(name, topics)

    @property
    def policy(self) -> CreateTopicPolicy | None:
        return self.topic_questions.policy

    # -- config changes ------------------------------------------------------------------------
    def create(self, name: str, props: Mapping[str, str], initial_state: State | None = None) -> ConnectorInfo:
        with self._lock:
            if name in self.worker.connector_names():
                raise ConnectorExistsError(f"Connector {name} already exists")
            config = self._parse(props)
            self.secrets.refresh(config.props)  # before its tasks start: they may log a failure at once
            # started in the background, as Kafka's herder does: the request answers at once, and a
            # connector or task that cannot start shows FAILED with the reason in its status
            self.worker.start_connector(config, initial_state or State.RUNNING, wait=False)
            self._persist(name)
            log.info("Connector %s created through the REST API", name)
            return self.connector_info(name)

    def put_config(self, name: str, props: Mapping[str, str]) -> tuple[ConnectorInfo, bool]:
        """Create or replace; returns the connector and whether it was created."""
        with self._lock:
            current = self._props_or_none(name)
            if current is None:
                return self.create(name, props), True
            config = self._parse(keep_hidden_values(props, current))
            self._reconfigure(name, config)
            log.info("Connector %s reconfigured through the REST API", name)
            return self.connector_info(name), False

    def patch_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        """Kafka's PATCH: merge `patch` into the config; a null value removes the key."""
        with self._lock:
            current = self.worker.get(name).config.props
            check_config_name(patch, name)
            merged = dict(current)
            for key, value in patch.items():
                if value is None:
                    merged.pop(key, None)
                else:
                    merged[key] = value
            merged["name"] = name
            config = self._parse(keep_hidden_values(merged, current))
            self._reconfigure(name, config)
            log.info("Connector %s reconfigured (PATCH) through the REST API", name)
            return self.connector_info(name)

    def delete(self, name: str) -> None:
        with self._lock:
            self.worker.remove_connector(name)
            self.auto_restarts.reset(name)
            self._persist(name)
            log.info("Connector %s deleted through the REST API", name)

    def _reconfigure(self, name: str, config: ConnectorConfig) -> None:
        running = self.worker.get(name)
        self.auto_restarts.reset(name)  # a config change starts the counts again
        self.secrets.refresh(config.props)  # before the tasks restart with the new values
        if running.target_state is State.STOPPED:
            # Kafka keeps a stopped connector stopped when its config changes; Worker.restart_connector
            # would start it, so replace it in the STOPPED state instead.
            self.worker.remove_connector(name)
            self.worker.start_connector(config, State.STOPPED)
        else:
            self.worker.restart_connector(name, config)
        self._persist(name)

    # -- state changes -------------------------------------------------------------------------
    def pause(self, name: str) -> None:
        with self._lock:
            running = self.worker.get(name)
            if running.target_state is State.STOPPED:
                # Start the tasks already paused, so no record flows in between.
                self.worker.remove_connector(name)
                self.worker.start_connector(running.config, State.PAUSED)
            else:
                self.worker.pause_connector(name)
            self._persist(name)

    def resume(self, name: str) -> None:
        with self._lock:
            self.worker.resume_connector(name)
            self._persist(name)

    def stop(self, name: str) -> None:
        with self._lock:
            self.worker.stop_connector(name)
            self._persist(name)

    def restart(self, name: str, include_tasks: bool, only_failed: bool) -> RestartPlan:
        """Restart what the flags select. A connector restart here restarts its tasks as well (the
        worker derives task configs from the connector), and a STOPPED connector stays stopped."""
        with self._lock:
            running = self.worker.get(name)
            if running.target_state is State.STOPPED:
                return RestartPlan(False, frozenset())
            self.auto_restarts.reset(name)  # a person restarted it: the automatic restarts count from 0
            connector_failed = running.status.snapshot()[0] is State.FAILED
            if not only_failed or connector_failed:
                self.worker.restart_connector(name, self._validated_again(running.config))
                return RestartPlan(True, frozenset(t.task_id for t in self.worker.get(name).tasks))
            tasks = frozenset(
                t.task_id for t in running.tasks if include_tasks and t.status.snapshot()[0] is State.FAILED
            )
            for task_id in sorted(tasks):
                self.worker.restart_task(name, task_id)
            return RestartPlan(False, tasks)

    def _validated_again(self, config: ConnectorConfig) -> ConnectorConfig | None:
        """For a restart: a connector whose config did not validate at start-up (`unusable_config`) gets its
        config validated again, and runs for real once it passes; None (the config as it is) for the rest."""
        if not is_unusable(config):
            return None
        providers, source = self.worker.resolver.providers, f"connector {config.name}"
        validated = parsed_or_unusable(config.props, source=source, providers=providers, worker=self.config)
        if not is_unusable(validated):
            log.info("Connector %s: its config validates now; starting it", config.name)
        return validated

    def restart_task(self, name: str, task_id: int) -> None:
        with self._lock:
            self.worker.restart_task(name, task_id)
            self.auto_restarts.reset(name, task_id)

    def _restart_failed_connector(self, name: str) -> None:
        """An automatic restart of a FAILED connector: as `POST /connectors/NAME/restart`, but counted."""
        with self._lock:
            running = self.worker.get(name)
            if running.target_state is not State.STOPPED:
                self.worker.restart_connector(name, self._validated_again(running.config))

    def _restart_failed_task(self, name: str, task_id: int) -> None:
        """An automatic restart of a FAILED task: as `POST /connectors/NAME/tasks/ID/restart`, but counted."""
        with self._lock:
            self.worker.restart_task(name, task_id)

    def signal(self, name: str, signal: OperatorSignal, task_id: int | None = None) -> list[int]:
        return send_signal(self.worker.get(name), signal, task_id)

    def reset_topics(self, name: str) -> None:
        self.worker.reset_topics(name)

    # -- offsets -------------------------------------------------------------------------------
    def alter_offsets(self, name: str, offsets: OffsetChanges) -> None:
        with self._lock:
            self._require_stopped(name)
            ask_connector(self.worker, name, offsets)  # it may refuse them: then nothing is written
            store = self.worker.offset_store
            store.put(name, {partition_key(dict(p)): o for p, o in offsets})  # a None offset removes
            store.flush()

    def reset_offsets(self, name: str) -> None:
        with self._lock:
            self._require_stopped(name)
            ask_connector(self.worker, name, [(p, None) for p, _ in self.offsets(name) if isinstance(p, dict)])
            self.worker.offset_store.remove(name)
            self.worker.offset_store.flush()

    def _require_stopped(self, name: str) -> None:
        if self.worker.get(name).target_state is not State.STOPPED:
            raise InvalidRequestError(NOT_STOPPED.format(name=name))

    # -- helpers -------------------------------------------------------------------------------
    def _props_or_none(self, name: str) -> dict[str, str] | None:
        try:
            return self.worker.get(name).config.props
        except UnknownConnectorError:
            return None

    def _parse(self, props: Mapping[str, str]) -> ConnectorConfig:
        check_request_name(props.get("name", ""))
        try:
            config = parse_connector_config(
                props,
                providers=self.worker.resolver.providers,
                worker=self.config,
            )
            if (too_many := self.worker.task_limit_problem(config)) is not None:
                raise ConfigError({"tasks.max": too_many})
            return config
        except ConfigError as exc:
            raise invalid_config(props, exc) from None

    def _persist(self, name: str) -> None:
        try:
            running: RunningConnector | None = self.worker.get(name)
        except UnknownConnectorError:
            running = None
        self.persistence.save(name, running)
        self.secrets.refresh()
