"""What a Debezium-style CDC connector class is beyond its database: one task (a change stream has one
reader, whatever tasks.max says); validation (each key, the rules across the shared keys, the column
mappers' keys, the Debezium keys it does not implement under one rule, then the server's checks); its
settings checked at start and the ignored Debezium keys named once; exactly-once only without a snapshot;
and offsets of another `topic.prefix` (a renamed connector's server) or malformed ones reported as
unused."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import connectworker
from connectworker.api.config_def import ConfigValue
from connectworker.api.connector import SourceConnector, offset_refusal
from connectworker.api.exactly_once import ExactlyOnceSupport
from connectworker.api.required_topics import RequiredTopic
from connectworker.api.task import SourceTask
from connectworker.api.topic_settings import TopicSettings
from connectworker.config.unsupported_keys import ConnectorKeyWarnings
from connectworker.embedded_broker import EMBEDDED

from .capture_keys import HOSTNAME, TOPIC_PREFIX, capture_key_problems
from .column_mappers import ColumnMappers
from .offsets import exactly_once_support
from .settings import CaptureSettings
from .signal_keys import SIGNAL_CHANNELS, SIGNAL_CONSUMER, SIGNAL_SERVERS, SIGNAL_TOPIC
from .unimplemented_keys import UnimplementedKey, listed, refused_keys, warned_keys
from .validation import validate_on_the_server


class DebeziumConnector(SourceConnector):
    """Subclasses give their database's parts: `config_def`, `task_class`, `alter_offsets`, the class
    attributes and the methods below."""

    namespace: ClassVar[str]  # where its tables live: schema (PostgreSQL), database (MySQL)
    connection_keys: ClassVar[tuple[str, ...]]  # the keys `check_server` connects with
    unimplemented: ClassVar[Sequence[UnimplementedKey]]  # the Debezium keys it does not implement
    key_warnings: ClassVar[ConnectorKeyWarnings]  # where the ignored ones are reported (once per connector)
    task_type: ClassVar[type[SourceTask]]

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    @abstractmethod
    def parse_settings(self, props: Mapping[str, str]) -> CaptureSettings:
        """The connector's settings; raises ConfigError naming every bad key."""

    @abstractmethod
    def check_server(self, props: Mapping[str, str], values: Mapping[str, Any], every_key_holds: bool) -> None:
        """Connects with the typed values of the connection keys and runs the server's checks (those needing
        every key, such as the captured columns' types, when `every_key_holds`); see validation.py."""

    def validate(self, props: Mapping[str, str]) -> dict[str, ConfigValue]:
        values = super().validate(props)
        refused = {**ColumnMappers.problems(props), **refused_keys(props, self.unimplemented, self.config_def().keys)}
        for key, problem in refused.items():
            values.setdefault(key, ConfigValue(key, props[key])).errors.append(problem)
        return validate_on_the_server(
            values,
            lambda typed: capture_key_problems(typed, self.namespace),
            lambda typed, every_key_holds: self.check_server(props, typed, every_key_holds),
            HOSTNAME,
            self.connection_keys,
        )

    def task_class(self) -> type[SourceTask]:
        return self.task_type

    def required_topics(self, props: Mapping[str, str]) -> Sequence[RequiredTopic]:
        """The signal topic, when the kafka signal channel is on: one partition, as Debezium requires (its
        channel reads partition 0 only, so signals keep their order)."""
        channels = {c.strip().lower() for c in (props.get(SIGNAL_CHANNELS) or "").split(",")}
        if "kafka" not in channels:
            return []
        topic = (props.get(SIGNAL_TOPIC) or "").strip() or f"{(props.get(TOPIC_PREFIX) or '').strip()}-signal"
        servers = (props.get(SIGNAL_SERVERS) or "").strip()
        own = servers not in ("", EMBEDDED)
        return [
            RequiredTopic(
                TopicSettings(topic, partitions=1),
                f"It is the signal topic ({SIGNAL_TOPIC}), whose partition 0 alone is read: signals written to "
                "another partition would never be acted on",
                cluster=servers if own else None,
                cluster_key=SIGNAL_SERVERS if own else None,
            )
        ]

    def check_settings(self, props: Mapping[str, str]) -> None:
        self.parse_settings(props)

    def unimplemented_keys(self, props: Mapping[str, str]) -> list[str]:
        """The Debezium keys of `props` this connector does not implement and ignores (they only tune)."""
        return warned_keys(props, self.unimplemented, self.config_def().keys)

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
        """Debezium's keys it does not implement (refused or reported by `key_warnings`), and the keys read by
        pattern (the column mappers', `signal.consumer.*`): not misspelt keys."""
        declared = self.config_def().keys
        return [
            *(key for key in props if listed(key, self.unimplemented, declared)),
            *ColumnMappers.keys(props),
            *(key for key in props if key.startswith(SIGNAL_CONSUMER)),
        ]

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
