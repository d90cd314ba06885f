"""A stored connector whose config no longer validates when the worker starts: its database is down (the
connector's validation asks it), its plugin is gone, a key's meaning changed with an upgrade.

Kafka lists such a connector FAILED with the reason, and so does connectworker: it stays in the worker
under its config as written (`GET /connectors/{name}/config` shows it, the store keeps it), its status is
FAILED naming what is wrong, and restart, delete, pause, stop and a new config work on it. A restart (by
hand or by `auto.restart.*`) validates the config again, and starts the connector for real once it
passes. The placeholder stands in for the connector class, whose `start` fails with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping

from connectworker.api.config_def import ConfigDef
from connectworker.api.connector import SourceConnector
from connectworker.api.errors import ConfigError, ConnectError
from connectworker.api.task import SourceTask
from connectworker.config.connector_config import ConnectorConfig
from connectworker.topics.rules import TopicCreationRules

__all__ = ["is_unusable", "unusable_config"]


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
