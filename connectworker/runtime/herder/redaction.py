"""Keeping the redaction of logs and answers up to date with every secret the connectors hold.

A secret is hidden from the log lines and REST answers once it is known: written in a connector's config
(by key, `secrets.written_secrets`), among the worker's client keys, or given by a config provider. The
herder refreshes the list whenever a connector is created, changed or removed, and the worker's config
resolver whenever a provider gives a connector new values, before its tasks can log them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping

from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.observability.log_redaction import SecretRedactor
from connectworker.runtime.observability.secrets import written_secrets
from connectworker.runtime.worker import UnknownConnectorError, Worker


class ConnectorSecrets:
    def __init__(self, worker: Worker, config: WorkerConfig, redactor: SecretRedactor) -> None:
        self._worker = worker
        self._config = config
        self._redactor = redactor
        self._lock = threading.Lock()  # one update at a time: the last one is the latest

    def refresh(self, *starting: Mapping[str, str]) -> None:
        """Redact the secrets of every running connector, and of the configs in `starting`."""
        configs = list(starting)
        for name in self._worker.connector_names():
            try:
                configs.append(self._worker.get(name).config.props)
            except UnknownConnectorError:
                continue
        self.set(configs)

    def set(self, configs: Iterable[Mapping[str, str]]) -> None:
        """The redaction's secrets: those written in `configs` and the worker's client keys, and every
        value a config provider gave the worker config or a connector."""
        with self._lock:
            written = written_secrets(configs, self._config.pass_through)
            self._redactor.set_secrets(written | self._config.provider_values | self._worker.resolver.values())
