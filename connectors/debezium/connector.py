"""What a Debezium-style CDC connector class is beyond its database: one task (a change stream has one
reader, whatever tasks.max says), its settings checked at start and the Debezium keys it does not
implement named once, exactly-once only without a snapshot, and offsets of another `topic.prefix` (a
renamed connector's server) or malformed ones reported as unused."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any

import connectworker
from connectworker.api.connector import SourceConnector, offset_refusal
from connectworker.api.exactly_once import ExactlyOnceSupport
from connectworker.config.unsupported_keys import ConnectorKeyWarnings

from .offsets import exactly_once_support


class DebeziumConnector(SourceConnector):
    """Subclasses give their database's parts: `config_def`, `validate`, `task_class`, `alter_offsets`,
    and the three below."""

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    @abstractmethod
    def check_settings(self, props: Mapping[str, str]) -> None:
        """Raise ConfigError naming every bad key (the connector's settings parser)."""

    @abstractmethod
    def unimplemented_keys(self, props: Mapping[str, str]) -> list[str]:
        """The Debezium keys of `props` this connector does not implement and ignores."""

    @property
    @abstractmethod
    def key_warnings(self) -> ConnectorKeyWarnings:
        """Where `unimplemented_keys` are reported (once per connector)."""

    def version(self) -> str:
        return connectworker.__version__

    def start(self, props: Mapping[str, str]) -> None:
        self.check_settings(props)
        self._props = dict(props)
        self.key_warnings.report(props.get("name", type(self).__name__), self.unimplemented_keys(props))

    def dry_start(self, props: Mapping[str, str]) -> None:
        """Its start only checks the keys and warns: no side effect (the task's dry start is the database's)."""
        self.start(props)

    def ignored_keys(self, props: Mapping[str, str]) -> list[str]:
        """Debezium's keys it does not implement: reported by `key_warnings`, not as misspelt keys."""
        return self.unimplemented_keys(props)

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """One task whatever tasks.max says, as Debezium: a replication slot or a binlog has one reader."""
        return [{}]

    def stop(self) -> None:
        self._props = {}

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Streaming resumes exactly after the committed change; a snapshot cut short is read again from
        its start, so only modes without one qualify."""
        return exactly_once_support(props)

    def unused_offset_reason(
        self, props: Mapping[str, str], partition: Mapping[str, Any], offset: Mapping[str, Any]
    ) -> str | None:
        """An offset of another `topic.prefix` (a renamed connector's server), or a malformed one."""
        return offset_refusal(self, props, partition, offset)
