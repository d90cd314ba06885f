"""Assembling a standalone worker from its files: broker (real or embedded), offsets, topic
creation, and the connectors, all validated before anything starts."""

from __future__ import annotations

import gc
import logging
import os
from collections.abc import Sequence
from pathlib import Path

from connectworker.api.errors import ConfigError, ConnectError
from connectworker.config.connector_config import ConnectorConfig, parse_connector_config
from connectworker.config.properties import load_connector_file, load_properties
from connectworker.config.worker_config import WorkerConfig
from connectworker.config.worker_env import variable_for_field
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.plugins import add_plugin_paths
from connectworker.runtime.cluster_check import check_cluster
from connectworker.runtime.offset_store import FileOffsetStore
from connectworker.runtime.offsets_path import offsets_path_problem
from connectworker.runtime.worker import Worker
from connectworker.topics.admin import TopicAdmin
from connectworker.topics.creation import TopicCreationService

log = logging.getLogger(__name__)


def load_worker_config(path: str | Path, *, require_offsets_file: bool = True) -> WorkerConfig:
    config = WorkerConfig.from_properties(load_properties(path), source=str(path))
    if require_offsets_file:
        if not config.offset_storage_file_filename:
            raise ConfigError({"offset.storage.file.filename": "required in standalone mode: the file where "
                               "source offsets are committed"}, source=str(path))
        problem = offsets_path_problem(config.offset_storage_file_filename)
        if problem is not None:  # found now, not at the first commit
            variable = variable_for_field("offset_storage_file_filename", os.environ)
            if variable is not None:
                raise ConfigError({f"{variable} (sets offset.storage.file.filename)": problem},
                                  source="the environment")
            raise ConfigError({"offset.storage.file.filename": problem}, source=str(path))
    add_plugin_paths(config.plugin_path)
    return config


def load_connector_configs(paths: Sequence[str | Path]) -> list[ConnectorConfig]:
    """Parse every connector file; raise one ConfigError covering every bad file and key."""
    configs: list[ConnectorConfig] = []
    errors: list[str] = []
    seen: dict[str, str] = {}
    for path in paths:
        try:
            props = load_connector_file(path)
            config = parse_connector_config(props, source=str(path))
        except ConfigError as exc:
            errors.append(str(exc))
            continue
        if config.name in seen:
            errors.append(f"Invalid configuration in {path}:\n  name: connector {config.name!r} is already "
                          f"defined in {seen[config.name]}")
            continue
        seen[config.name] = str(path)
        configs.append(config)
    if errors:
        raise ConfigError("\n".join(errors))
    return configs


class StandaloneRuntime:
    """Everything a standalone worker runs; `start()` then `stop()` (or use as a context manager)."""

    def __init__(self, config: WorkerConfig) -> None:
        self.config = config
        self.embedded: EmbeddedBroker | None = None
        self.worker: Worker | None = None
        self.admin: TopicAdmin | None = None
        self.topics: TopicCreationService | None = None
        self.cluster_id: str | None = None  # known once start() checked that the cluster answers

    def start(self) -> StandaloneRuntime:
        assert self.config.offset_storage_file_filename is not None
        store = FileOffsetStore(self.config.offset_storage_file_filename)  # a corrupt file stops us here
        if self.config.uses_embedded_broker:
            self.embedded = EmbeddedBroker().start()
            self.config = self.config.model_copy(update={"bootstrap_servers": self.embedded.bootstrap_servers})
            log.info("bootstrap.servers=embedded: started a memory-only Tansu broker on %s",
                     self.config.bootstrap_servers)
        try:  # no connector starts against a cluster that does not answer
            self.cluster_id = check_cluster(self.config.bootstrap_servers, self.config.prefixed("admin."),
                                            self.config.bootstrap_timeout_ms)
        except ConnectError:
            self.stop()
            raise
        log.info("Kafka cluster %s answers at %s", self.cluster_id or "(id not reported)",
                 self.config.bootstrap_servers)
        self.admin = TopicAdmin(self.config.bootstrap_servers, self.config.prefixed("admin."),
                                request_timeout_s=min(30.0, self.config.topic_creation_timeout_ms / 1000))
        self.topics = TopicCreationService(self.admin, enabled=self.config.topic_creation_enable,
                                           timeout_s=self.config.topic_creation_timeout_ms / 1000)
        self.worker = Worker(self.config, store, self.topics.gate_for)
        return self

    def stop(self) -> None:
        if self.worker is not None:
            self.worker.stop()
        # Drop the Kafka clients before the embedded broker goes, so none logs a lost connection. Other
        # holders (the REST app's dependency closures) form cycles: collect them now, not at exit.
        self.worker = self.topics = self.admin = None
        if self.embedded is not None:
            gc.collect()
            self.embedded.stop()

    def __enter__(self) -> StandaloneRuntime:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
