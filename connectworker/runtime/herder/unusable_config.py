"""A stored connector whose config no longer validates when the worker starts: its database is down (the
connector's validation asks it), its plugin is gone, a key's meaning changed with an upgrade.

Kafka lists such a connector FAILED with the reason, and so does connectworker: it stays in the worker
under its config as written (`GET /connectors/{name}/config` shows it, the store keeps it), its status is
FAILED naming what is wrong, and restart, delete, pause, stop and a new config work on it. A restart (by
hand or by `auto.restart.*`) validates the config again, and starts the connector for real once it
passes. The placeholder stands in for the connector class, whose `start` fails with the reason.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from connectworker.api.config_def import ConfigDef
from connectworker.api.connector import SourceConnector
from connectworker.api.errors import ConfigError, ConnectError
from connectworker.api.task import SourceTask
from connectworker.config.connector_config import ConnectorConfig, parse_connector_config
from connectworker.config.providers.references import ConfigProviders
from connectworker.config.worker_config import WorkerConfig
from connectworker.topics.rules import TopicCreationRules

log = logging.getLogger(__name__)

__all__ = ["is_unusable", "parsed_or_unusable", "unusable_config"]


class UnusableConfig(SourceConnector):
    """Stands in for a connector whose config did not validate; `reason` is set on a subclass per config."""

    reason = "its config did not validate"

    def version(self) -> str:
        return "unknown"

    def config_def(self) -> ConfigDef:
        return ConfigDef()

    def start(self, props: Mapping[str, str]) -> None:
        raise ConnectError(self.reason)

    def task_class(self) -> type[SourceTask]:
        raise ConnectError(self.reason)

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return []

    def stop(self) -> None:
        return None


def unusable_config(props: Mapping[str, str], error: ConfigError) -> ConnectorConfig:
    """A config that keeps `props` as written and whose connector fails at start, naming `error`."""
    name = props.get("name", "").strip()
    problems = "; ".join(f"{key}: {message}" if key else message for key, message in error.problems.items())
    reason = (
        f"The config of connector {name} did not validate when the worker started: {problems}. Restart it once "
        f"what it needs is back (POST /connectors/{name}/restart validates it again), or give it a corrected "
        f"config (PUT /connectors/{name}/config)"
    )
    placeholder = type("UnusableConfig", (UnusableConfig,), {"reason": reason})
    tasks_max = props.get("tasks.max", "1").strip()
    return ConnectorConfig(
        name=name,
        class_name=props.get("connector.class", ""),
        connector_class=placeholder,
        tasks_max=int(tasks_max) if tasks_max.isdigit() and int(tasks_max) > 0 else 1,
        props=dict(props),
        topic_rules=TopicCreationRules([]),
    )


def is_unusable(config: ConnectorConfig) -> bool:
    return issubclass(config.connector_class, UnusableConfig)


def parsed_or_unusable(
    props: Mapping[str, str], *, source: str, providers: ConfigProviders, worker: WorkerConfig
) -> ConnectorConfig:
    """`props` validated, or, when they do not validate now, the config of a connector listed FAILED with
    the reason (logged)."""
    try:
        return parse_connector_config(props, source=source, providers=providers, worker=worker)
    except ConfigError as exc:  # listed FAILED with the reason, as Kafka lists it
        log.error("Connector %s is FAILED: its config did not validate: %s", props.get("name", ""), exc)
        return unusable_config(props, exc)
