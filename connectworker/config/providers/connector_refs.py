"""Connector configs as their connector and tasks receive them: `${provider:[path:]key}` references
replaced by the worker's config providers, each time the connector (or a task) starts, so that a
restart picks up a rotated secret.

What the worker keeps, stores and shows is the config as written: the connector store, the REST API,
the status page and the logs name the reference, never its value. The task configs a connector returns
are kept the same way: a value the connector copied from a resolved key is kept as that key's reference,
and each task's config is resolved again when the task starts, as Kafka resolves task configs. Every
value a provider gave is reported to `on_values` (the log redaction) before anything may log it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping
from dataclasses import replace

from connectworker.api.errors import ConfigError
from connectworker.config.connector_config import ConnectorConfig, parse_connector_config
from connectworker.config.providers.references import ConfigProviders, Resolution, has_references, shown_message
from connectworker.config.worker_config import WorkerConfig
from connectworker.embedded_broker import EMBEDDED

log = logging.getLogger(__name__)


class ConnectorConfigResolver:
    """Resolves connector and task configs with the worker's providers; remembers, per connector, the
    values they gave (for the log redaction) until the connector is forgotten."""

    def __init__(self, providers: ConfigProviders, *, worker: WorkerConfig | None = None) -> None:
        """`worker`: what the resolved configs are checked against (see `parse_connector_config`)."""
        self.providers = providers
        self._worker = worker
        self._lock = threading.Lock()
        self._values: dict[str, frozenset[str]] = {}
        self.on_values: Callable[[], None] | None = None  # called when the set of provider values grew

    def connector(self, config: ConnectorConfig) -> ConnectorConfig:
        """`config` with its references resolved and its values validated again (they may have changed
        since it was created); ConfigError naming each key, with the reference and what is wrong. Its
        worker-cluster keys (`SourceConnector.worker_cluster_keys`) left absent, empty or `embedded` name
        the worker's cluster."""
        return self._on_worker_cluster(self._with_references_resolved(config))

    def _on_worker_cluster(self, config: ConnectorConfig) -> ConnectorConfig:
        keys = config.connector_class.worker_cluster_keys
        if self._worker is None or self._worker.uses_embedded_broker or not keys:  # no address known (a plan)
            return config
        defaulted = {key for key in keys if config.props.get(key, "").strip() in ("", EMBEDDED)}
        if not defaulted:
            return config
        servers = self._worker.bootstrap_servers
        return replace(config, props={**config.props, **dict.fromkeys(defaulted, servers)})

    def _with_references_resolved(self, config: ConnectorConfig) -> ConnectorConfig:
        if not self._needs_resolving(config.props):
            return config
        source = f"connector {config.name}"
        resolution = self._resolve(config.name, config.props)
        resolved = resolution.check(source=source)
        try:
            return parse_connector_config(resolved, source=source, worker=self._worker)
        except ConfigError as exc:
            raise ConfigError(
                {
                    key: shown_message(message, config.props, resolved, resolution.values)
                    for key, message in exc.problems.items()
                },
                source=source,
            ) from None

    def task(self, name: str, props: Mapping[str, str]) -> dict[str, str]:
        """A task config as kept (see `shown_task_config`) with its references resolved."""
        if not self._needs_resolving(props):
            return dict(props)
        return self._resolve(name, props).check(source=f"the task config of connector {name}")

    def values(self) -> frozenset[str]:
        """Every value the providers gave the running connectors."""
        with self._lock:
            return frozenset().union(*self._values.values())

    def forget(self, name: str) -> None:
        with self._lock:
            self._values.pop(name, None)

    def close(self) -> None:
        self.providers.close()

    def _needs_resolving(self, props: Mapping[str, str]) -> bool:
        return bool(self.providers) and any(has_references(value) for value in props.values())

    def _resolve(self, name: str, props: Mapping[str, str]) -> Resolution:
        resolution = self.providers.resolve(props)
        for key, refs in resolution.unknown.items():
            log.warning(
                "Connector %s: %s in %s names no provider of config.providers (%s); it is used as written",
                name,
                ", ".join(refs),
                key,
                ", ".join(self.providers.names),
            )
        if resolution.values:
            with self._lock:
                before = self._values.get(name, frozenset())
                self._values[name] = before | resolution.values
                grew = not resolution.values <= before
            if grew and self.on_values is not None:
                self.on_values()
        return resolution


def shown_task_config(
    raw: Mapping[str, str], resolved: Mapping[str, str], task_props: Mapping[str, str]
) -> dict[str, str]:
    """A task's own config (what the connector's `task_configs()` gave it) as kept and shown: each value
    the task config holds unchanged from a resolved key of the connector put back as that key's
    reference, so no resolved secret is kept or shown."""
    shown = {}
    for key, value in task_props.items():
        written = raw.get(key)
        if written is not None and written != resolved.get(key) and value == resolved.get(key):
            shown[key] = written
        else:
            shown[key] = value
    return shown
