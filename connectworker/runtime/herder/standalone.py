"""Assembling a standalone worker from its files: broker (real or embedded), offsets, topic
creation, and the connectors, all validated before anything starts."""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable, Sequence

from connectworker.api.errors import ConnectError
from connectworker.api.topic_policy import CreateTopicPolicy
from connectworker.config.connector_config import ConnectorConfig
from connectworker.config.exactly_once import EMBEDDED_BROKER_CAVEAT
from connectworker.config.offsets_path import store_path_for
from connectworker.config.topic_policy import load_topic_policy
from connectworker.config.worker_config import WorkerConfig
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.clients.admin_client import open_topic_admin
from connectworker.runtime.clients.cluster_check import check_cluster
from connectworker.runtime.herder.connector_store import ConnectorStore, ConnectorStoreBase
from connectworker.runtime.herder.herder import StandaloneHerder
from connectworker.runtime.herder.kafka_config_store import KafkaConfigStore
from connectworker.runtime.herder.status_publisher import StatusPublisher
from connectworker.runtime.observability.log_redaction import SecretRedactor
from connectworker.runtime.observability.metrics import WorkerMetrics
from connectworker.runtime.offsets.backing_store import OffsetBackingStore
from connectworker.runtime.offsets.cluster_binding import bind_to_cluster
from connectworker.runtime.offsets.file_store import FileOffsetStore
from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore
from connectworker.runtime.runners.placement import LocalPlacement, RunnerNeeds, TaskPlacement
from connectworker.runtime.runners.process_runner import ProcessTaskRunner
from connectworker.runtime.tasks.task_factory import TopicGateFactory
from connectworker.runtime.topic_creation.gate import connector_admins, connector_gates
from connectworker.runtime.topic_creation.required_topics import RequiredTopics
from connectworker.runtime.topic_creation.service import TopicCreationService
from connectworker.runtime.worker import Worker
from connectworker.topics.admin import TopicAdmin

log = logging.getLogger(__name__)


class StandaloneRuntime:
    """Everything a standalone worker runs; `start()` then `stop()` (or use as a context manager)."""

    def __init__(
        self,
        config: WorkerConfig,
        file_connectors: Sequence[ConnectorConfig] = (),
        placement: TaskPlacement | None = None,
    ) -> None:
        """`file_connectors`: those the command line will start, for checks made before any starts.
        `placement`: where tasks run (by default task processes, or threads: `LocalPlacement`); the
        runtime's from now on, closed when it stops."""
        self.config = config
        self.file_connectors = list(file_connectors)
        self.embedded: EmbeddedBroker | None = None
        self.worker: Worker | None = None
        self.admin: TopicAdmin | None = None
        self.topics: TopicCreationService | None = None
        self.metrics = WorkerMetrics()  # watches the worker once it exists
        self.policy: CreateTopicPolicy | None = None  # topic.creation.policy.class, built by start()
        self.cluster_id: str | None = None  # known once start() checked that the cluster answers
        self.herder: StandaloneHerder | None = None
        self._redactor: SecretRedactor | None = None
        self._statuses: StatusPublisher | None = None
        self.gates: TopicGateFactory | None = None  # each connector's topic gate, once start() made the service
        self.placement: TaskPlacement = placement if placement is not None else LocalPlacement()

    @property
    def task_processes(self) -> ProcessTaskRunner | None:
        """The runner of the task processes, while they run (`task.processes` > 0)."""
        return self.placement.task_processes if isinstance(self.placement, LocalPlacement) else None

    def start(self, *, interrupt: Callable[[], None] | None = None) -> StandaloneRuntime:
        """Start the broker (if embedded), check the cluster, open the offsets; nothing runs yet.
        `interrupt` is called while start-up waits for the cluster; what it raises (a stop asked for)
        ends the wait, and what was started is stopped again."""
        try:
            self.policy = load_topic_policy(self.config)  # a policy that cannot be used stops us first
            self.placement.prepare(self.config)  # under way while the broker and the cluster answer
            return self._start(interrupt)
        except BaseException:
            self.placement.close()
            raise

    def _start(self, interrupt: Callable[[], None] | None) -> StandaloneRuntime:
        store: OffsetBackingStore | None = None
        if not self.config.offset_storage_topic:
            assert self.config.offset_storage_file_filename is not None
            store = self._open_file_store(self.config.offset_storage_file_filename)  # a corrupt file stops us
        if self.config.uses_embedded_broker:
            if self.config.exactly_once_enabled:
                log.warning("%s", EMBEDDED_BROKER_CAVEAT)
            self.embedded = EmbeddedBroker().start()
            self.config = self.config.model_copy(update={"bootstrap_servers": self.embedded.bootstrap_servers})
            log.info(
                "bootstrap.servers=embedded: started a memory-only Tansu broker on %s", self.config.bootstrap_servers
            )
        log.info(
            "Contacting the Kafka cluster at %s (waiting up to bootstrap.timeout.ms=%d)",
            self.config.bootstrap_servers,
            self.config.bootstrap_timeout_ms,
        )
        try:  # no connector starts against a cluster that does not answer
            self.cluster_id = check_cluster(
                self.config.bootstrap_servers,
                self.config.client_settings("admin"),
                self.config.bootstrap_timeout_ms,
                interrupt=interrupt,
            )
        except Exception:  # unreachable, or a stop asked for meanwhile: the embedded broker goes too
            self.stop()
            raise
        log.info(
            "Kafka cluster %s answers at %s", self.cluster_id or "(id not reported)", self.config.bootstrap_servers
        )
        # offsets of an earlier run of the embedded broker, or committed against another cluster
        if isinstance(store, FileOffsetStore):
            bind_to_cluster(store, self.cluster_id, embedded=self.embedded is not None)
        self.admin = open_topic_admin(
            self.config.bootstrap_servers, self.config.client_settings("admin"), request_timeout_s=self._admin_timeout_s
        )
        self.topics = TopicCreationService(
            self.admin,
            enabled=self.config.topic_creation_enable,
            policy=self.policy,
            timeout_s=self.config.topic_creation_timeout_ms / 1000,
        )
        if store is None:
            try:
                store = self._open_offsets_topic()
            except ConnectError:
                self.stop()
                raise
        self.gates = gates = connector_gates(self.topics, connector_admins(self.config, self._admin_timeout_s))
        try:
            runner = self.placement.open_runner(
                RunnerNeeds(self.config, self.file_connectors, gates, self.metrics.for_task)
            )
        except BaseException:
            store.close()
            self.stop()
            raise
        self.worker = Worker(
            self.config,
            store,
            gates,
            metrics=self.metrics,
            runner=runner,
            required_topics=RequiredTopics(
                self.admin, self.config.topic_creation_timeout_ms / 1000, self.config.bootstrap_servers
            ),
        )
        self.metrics.watch(self.worker.status_snapshot, self.topics)
        return self

    @property
    def _admin_timeout_s(self) -> float:
        """How long one Admin request may take: `topic.creation.timeout.ms`, at most 30 s."""
        return min(30.0, self.config.topic_creation_timeout_ms / 1000)

    def _open_file_store(self, path: str) -> OffsetBackingStore:
        """The offsets file's store; shared (each flush merges under a lock) when tasks in other processes
        commit to it too."""
        if self.placement.spans_hosts(self.config):
            log.warning(
                "Offsets are kept in %s, which every task writes: where tasks run on other hosts, each must "
                "see the same file. Set offset.storage.topic instead.",
                path,
            )
        return FileOffsetStore(path, shared=self.placement.shares_offsets_file(self.config))

    def _open_offsets_topic(self) -> KafkaOffsetStore:
        """`offset.storage.topic`: created if missing (compacted), and read to its end now (with exactly-once,
        by each task once it fenced its predecessor), so that a topic the worker cannot use stops start-up,
        and every task starts from the committed offsets."""
        assert self.config.offset_storage_topic is not None
        store = KafkaOffsetStore(
            self.config.offset_storage_topic,
            self._kafka(),
            partitions=self.config.offset_storage_partitions,
            replication_factor=self.config.offset_storage_replication_factor,
            timeout_s=self.config.bootstrap_timeout_ms / 1000,
            flush_timeout_s=self.config.offset_flush_timeout_ms / 1000,
        )
        started = time.monotonic()
        try:
            if self.config.exactly_once_enabled:
                # Each task reads it once it has fenced its earlier instance, whose open transaction
                # would hold up a read_committed read now.
                store.ensure()
                log.info(
                    "Offsets are kept in %s, written in each task's transactions (exactly.once.source.support=enabled)",
                    store.describe(),
                )
                return store
            store.refresh()
        except ConnectError:
            store.close()
            raise
        log.info(
            "Offsets are kept in %s: read %d offset record(s) of %d connector(s) in %.2fs",
            store.describe(),
            store.records_read,
            len(store.connectors()),
            time.monotonic() - started,
        )
        return store

    def start_herder(self, connectors: Sequence[ConnectorConfig] = ()) -> StandaloneHerder:
        """Run `connectors` (from the command line) and those saved through the REST API, reconciled
        (docs/rest.md), under a herder that every front door shares; secrets are redacted in the log
        from now on."""
        assert self.worker is not None
        store = self._open_connector_store()
        self._redactor = SecretRedactor()
        self._redactor.install()
        self.herder = StandaloneHerder(
            self.worker,
            self.config,
            admin=self.admin,
            store=store,
            redactor=self._redactor,
            cluster_id=self.cluster_id,
            metrics=self.metrics,
            topics=self.topics,
        )
        self.herder.start(connectors)
        if self.config.status_storage_topic:
            self._statuses = StatusPublisher(
                self.config.status_storage_topic,
                self._kafka(),
                self.worker,
                self.worker.worker_id,
                self.herder.redact,
                partitions=self.config.status_storage_partitions,
                replication_factor=self.config.status_storage_replication_factor,
                timeout_s=self.config.bootstrap_timeout_ms / 1000,
            ).start()
            log.info("Connector and task statuses are written to Kafka topic %s", self.config.status_storage_topic)
        return self.herder

    def _kafka(self) -> dict[str, str]:
        """The config of the worker's own clients (offsets, config and status topics)."""
        return {**self.config.client_settings("admin"), "bootstrap.servers": self.config.bootstrap_servers}

    def _open_connector_store(self) -> ConnectorStoreBase:
        """Where REST changes are kept: `config.storage.topic`, else the file beside the offsets file."""
        topic = self.config.config_storage_topic
        if not topic:
            assert self.config.offset_storage_file_filename is not None
            path = store_path_for(self.config.offset_storage_file_filename)
            if self.placement.spans_hosts(self.config):
                log.warning(
                    "Connectors created through the REST API are kept in %s, on this host only: a worker "
                    "started on another host would not find them. Set config.storage.topic to keep them in "
                    "Kafka.",
                    path,
                )
            return ConnectorStore(path)
        store = KafkaConfigStore(
            topic,
            self._kafka(),
            replication_factor=self.config.config_storage_replication_factor,
            timeout_s=self.config.bootstrap_timeout_ms / 1000,
        )
        log.info(
            "Connectors created or changed through the REST API are kept in %s (%d record(s) read)",
            store.describe(),
            store.records_read,
        )
        return store

    def stop(self) -> None:
        herder, self.herder = self.herder, None
        if herder is not None:
            herder.close()  # no automatic restart while the worker stops
        if self._statuses is not None:
            self._statuses.stop_watching()
        if self.worker is not None:
            self.worker.stop()
        if self._statuses is not None:  # after the worker: the final statuses say STOPPED
            self._statuses.stop()
            self._statuses = None
        if herder is not None and herder.store is not None:
            herder.store.close()
        self.placement.close()
        if self.policy is not None:
            try:
                self.policy.close()
            except Exception as exc:
                log.error("The create-topic policy (topic.creation.policy.class) raised from close(): %s", exc)
            self.policy = None
        # Drop the Kafka clients before the embedded broker goes, so none logs a lost connection. Other
        # holders (the REST app's dependency closures) form cycles: the Admin client is closed at once
        # (else it would reconnect and log until a collection), the rest collected now, not at exit.
        if self.admin is not None:
            self.admin.close()
        self.worker = self.topics = self.admin = None
        if self.embedded is not None:
            gc.collect()
            self.embedded.stop()
        if self._redactor is not None:  # after the last shutdown line was logged
            self._redactor.uninstall()
            self._redactor = None

    def __enter__(self) -> StandaloneRuntime:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
