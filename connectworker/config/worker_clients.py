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
from typing import Literal, Protocol

from connectworker.api.errors import ConfigError
from connectworker.config.client_security import ClientSettings, client_settings, top_level_security
from connectworker.config.override_policy import OverridePolicy
from connectworker.config.worker_env import blamed_error, variable_for_key


class ClientKeys(Protocol):
    """What the worker config (`WorkerConfig`, whose module uses this one) offers its clients."""

    @property
    def security_protocol(self) -> str | None: ...

    @property
    def connector_client_config_override_policy(self) -> str: ...

    @property
    def connector_client_config_override_allowlist(self) -> list[str]: ...

    @property
    def pass_through(self) -> dict[str, str]: ...

    def prefixed(self, prefix: str) -> dict[str, str]: ...


log = logging.getLogger("connectworker.config")

Client = Literal["producer", "admin"]
CLIENTS: tuple[Client, ...] = ("producer", "admin")


def override_policy(config: ClientKeys) -> OverridePolicy:
    """The worker's `connector.client.config.override.policy`, with its allowlist."""
    return OverridePolicy(
        config.connector_client_config_override_policy, frozenset(config.connector_client_config_override_allowlist)
    )


def security_settings(config: ClientKeys) -> dict[str, str]:
    """The top-level keys every client takes: `security.protocol`, `ssl.*`, `sasl.*`."""
    protocol = {"security.protocol": config.security_protocol} if config.security_protocol else {}
    return {**protocol, **top_level_security(config.pass_through)}


def client_layers(
    config: ClientKeys, client: Client, overrides: Mapping[str, str] | None = None
) -> list[tuple[str, Mapping[str, str]]]:
    """What a `client`'s settings are made of, least specific first."""
    return [
        ("", security_settings(config)),
        (f"{client}.", config.prefixed(f"{client}.")),
        (f"{client}.override.", overrides or {}),
    ]


def translated(config: ClientKeys, client: Client, overrides: Mapping[str, str] | None = None) -> ClientSettings:
    return client_settings(client_layers(config, client, overrides))


def worker_client_settings(
    config: ClientKeys, client: Client, overrides: Mapping[str, str] | None = None
) -> dict[str, str]:
    result = translated(config, client, overrides)
    if result.problems:
        raise ConfigError(result.problems)
    return result.settings


def check_clients(config: ClientKeys, source: str | None, prefixes: tuple[str, ...]) -> None:
    """Raise ConfigError for every problem of the worker's own client settings (blaming a key set by a
    `CONNECT_*` variable of one of the worker's pass-through `prefixes` on that variable); warn once about
    the Java-only keys they hold."""
    problems: dict[str, str] = {}
    ignored: list[str] = []
    for client in CLIENTS:
        result = translated(config, client)
        problems.update(result.problems)
        ignored += [key for key in result.ignored if key not in ignored]
    if problems:  # the environment wins over the file: a key a variable set is blamed on the variable
        raise blamed_error(
            ((key, variable_for_key(key, os.environ, prefixes), message) for key, message in problems.items()), source
        )
    if ignored:
        log.warning(
            "Kafka client keys in %s that only Java clients read are ignored (librdkafka has no equivalent): %s",
            source or "worker config",
            ", ".join(ignored),
        )
