"""The worker's Kafka clients' settings: checked when the worker config is read, built for each client.

Every client the worker makes (task producers, the Admin client, the offsets topic's clients, the
start-up cluster check) takes the top-level security keys, then its own `producer.*` or `admin.*`
keys, then a connector's overrides; `client_security` merges and translates them. Problems found in the
worker file stop start-up, naming the key (or the `CONNECT_*` variable that set it); Kafka keys that
only Java clients read are named in one warning.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Literal

from connectworker.api.errors import ConfigError
from connectworker.config.client_security import ClientSettings, client_settings, top_level_security
from connectworker.config.override_policy import OverridePolicy
from connectworker.config.worker_env import blamed_error, variable_for_key

if TYPE_CHECKING:
    from connectworker.config.worker_config import WorkerConfig

log = logging.getLogger("connectworker.config")

Client = Literal["producer", "admin"]
CLIENTS: tuple[Client, ...] = ("producer", "admin")


def override_policy(config: WorkerConfig) -> OverridePolicy:
    """The worker's `connector.client.config.override.policy`, with its allowlist."""
    return OverridePolicy(config.connector_client_config_override_policy,
                          frozenset(config.connector_client_config_override_allowlist))


def security_settings(config: WorkerConfig) -> dict[str, str]:
    """The top-level keys every client takes: `security.protocol`, `ssl.*`, `sasl.*`."""
    protocol = {"security.protocol": config.security_protocol} if config.security_protocol else {}
    return {**protocol, **top_level_security(config.pass_through)}


def client_layers(config: WorkerConfig, client: Client,
                  overrides: Mapping[str, str] | None = None) -> list[tuple[str, Mapping[str, str]]]:
    """What a `client`'s settings are made of, least specific first."""
    return [("", security_settings(config)), (f"{client}.", config.prefixed(f"{client}.")),
            (f"{client}.override.", overrides or {})]


def translated(config: WorkerConfig, client: Client, overrides: Mapping[str, str] | None = None) -> ClientSettings:
    return client_settings(client_layers(config, client, overrides))


def worker_client_settings(config: WorkerConfig, client: Client,
                           overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    result = translated(config, client, overrides)
    if result.problems:
        raise ConfigError(result.problems)
    return result.settings


def check_clients(config: WorkerConfig, source: str | None) -> None:
    """Raise ConfigError for every problem of the worker's own client settings; warn once about the
    Java-only keys they hold."""
    from connectworker.config.worker_config import PASS_THROUGH_PREFIXES

    problems: dict[str, str] = {}
    ignored: list[str] = []
    for client in CLIENTS:
        result = translated(config, client)
        problems.update(result.problems)
        ignored += [key for key in result.ignored if key not in ignored]
    if problems:  # the environment wins over the file: a key a variable set is blamed on the variable
        raise blamed_error(((key, variable_for_key(key, os.environ, PASS_THROUGH_PREFIXES), message)
                            for key, message in problems.items()), source)
    if ignored:
        log.warning("Kafka client keys in %s that only Java clients read are ignored (librdkafka has no "
                    "equivalent): %s", source or "worker config", ", ".join(ignored))
