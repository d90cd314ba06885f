"""Builds the `WorkerSourceTask` (or its exactly-once kind) for a task spec: its producer settings, its
parts (converters, error handling, transforms, topic gate: `task_parts.py`, shared with the
`connect-source` format) and its metrics, from the worker's config and the connector's. The thread
runner uses it in the worker's process; the remote runners (task processes, Spark tasks) where the
task runs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from connectworker.config.connector_config import ConnectorConfig
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.clients.producer_settings import PRODUCER_DEFAULTS
from connectworker.runtime.observability.kafka_logging import client_log_settings
from connectworker.runtime.observability.task_metrics import TaskMetrics
from connectworker.runtime.offsets.backing_store import OffsetBackingStore
from connectworker.runtime.offsets.flusher import OffsetFlusher
from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore
from connectworker.runtime.tasks.exactly_once_task import ExactlyOnceWorkerSourceTask, transactional_id
from connectworker.runtime.tasks.source_task import WorkerSourceTask
from connectworker.runtime.tasks.task_parts import ConverterDefaults, TaskParts
from connectworker.runtime.tasks.task_spec import TaskSpec
from connectworker.runtime.tasks.timeouts import TaskTimeouts
from connectworker.runtime.topic_creation.gate import TopicGate

TopicGateFactory = Callable[[ConnectorConfig], TopicGate]
TaskMetricsFactory = Callable[[str, int], TaskMetrics]


class SourceTaskFactory:
    def __init__(
        self,
        config: WorkerConfig,
        offset_store: OffsetBackingStore,
        topic_gates: TopicGateFactory,
        *,
        offset_flusher: OffsetFlusher | None = None,
        task_metrics: TaskMetricsFactory | None = None,
    ) -> None:
        self.config = config
        self.offset_store = offset_store
        self._gates = topic_gates
        self._flusher = offset_flusher
        self._task_metrics = task_metrics
        self._converters = ConverterDefaults.of(config)
        self.timeouts = TaskTimeouts(
            config.offset_flush_interval_ms / 1000,
            config.offset_flush_timeout_ms / 1000,
            config.topic_creation_timeout_ms / 1000,
        )

    def build(self, spec: TaskSpec, on_topics: Callable[[set[str]], None] | None = None) -> WorkerSourceTask:
        """A task ready to `run()`. Raises what the connector's config cannot give (e.g. a converter)."""
        config, task_id = spec.config, spec.task_id
        producer_config = {
            **PRODUCER_DEFAULTS,
            **self.config.client_settings("producer", config.producer_overrides),
            "bootstrap.servers": self.config.bootstrap_servers,
            "client.id": f"connector-producer-{config.name}-{task_id}",
            **client_log_settings(f"Task {spec.name} producer"),
        }
        common: dict[str, Any] = dict(
            connector=config.name,
            task_id=task_id,
            task=spec.task_class(),
            props=spec.props,
            producer_config=producer_config,
            parts=TaskParts.build(config, self._converters, self._gates(config)),
            timeouts=self.timeouts,
            on_topics=on_topics,
            metrics=self._task_metrics(config.name, task_id) if self._task_metrics is not None else None,
        )
        if self.config.exactly_once_enabled:
            # WorkerConfig refuses exactly-once without offset.storage.topic, the only transactional store
            assert isinstance(self.offset_store, KafkaOffsetStore)
            return ExactlyOnceWorkerSourceTask(
                transactional_id=transactional_id(self.config.group_id, config.name, task_id),
                transactions=config.transactions,
                offset_store=self.offset_store,
                **common,
            )
        return WorkerSourceTask(offset_store=self.offset_store, offset_flusher=self._flusher, **common)
