"""Reading the settings of one `topic.creation` group (or draft rule): its replication factor and
partitions, its topic configs and its patterns, each problem under its exact key and each key defined
for the REST validate endpoint. rule_parser.py reads the groups' structure with it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from connectworker.api.config_def import NO_DEFAULT, ConfigKey, ConfigType, Importance, config_text
from connectworker.api.topic_settings import CLEANUP_POLICY, CleanupPolicy
from connectworker.topics.config_keys import (
    PARTITIONS,
    REPLICATION_FACTOR,
    TOPIC_CREATION_CONFIG_GROUP,
    group_key,
    is_known_topic_config,
)
from connectworker.topics.rule_values import invalid_message, missing_message, parse_count, parse_patterns

__all__ = ["Entries", "GroupSettingsReader", "GroupSpec"]


@dataclass
class GroupSpec:
    """One group (or rule) as read, before it is checked whole and built into a `TopicCreationRule`."""

    name: str
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    partitions: int | None = None
    replication_factor: int | None = None
    configs: dict[str, str] = field(default_factory=dict)


Entries = dict[str, tuple[str, Any]]  # suffix -> (full key, raw value)


class GroupSettingsReader:
    """Problems, warnings and key definitions collected while the settings of groups are read."""

    def __init__(self) -> None:
        self.problems: dict[str, list[str]] = {}
        self.warnings: list[str] = []
        self.definitions: dict[str, ConfigKey] = {}

    def _problem(self, key: str, message: str) -> None:
        messages = self.problems.setdefault(key, [])
        if message not in messages:
            messages.append(message)

    def _define(
        self, key: str, ctype: ConfigType, documentation: str, *, default: Any = None, display_name: str | None = None
    ) -> None:
        if key in self.definitions:
            return
        self.definitions[key] = ConfigKey(
            key,
            ctype,
            default,
            importance=Importance.LOW,
            documentation=documentation,
            group=TOPIC_CREATION_CONFIG_GROUP,
            order_in_group=len(self.definitions) + 1,
            width="LONG",
            display_name=display_name,
        )

    def _count(self, key: str, raw: Any, setting: str) -> int | None:
        value, problem = parse_count(key, raw, setting)
        if problem is not None:
            self._problem(key, problem)
        return value

    def _counts(
        self,
        group: str,
        entries: Entries,
        spec: GroupSpec,
        *,
        required: bool,
        inherited: str = "",
        fallback: Mapping[str, int | None] | None = None,
    ) -> None:
        """Parse a group's replication factor and partitions into `spec` and define their keys.

        `fallback` holds the inherited values, shown as the keys' defaults by the validate endpoint.
        """
        docs = {
            REPLICATION_FACTOR: "The replication factor for new topics created for this connector; "
            "must not be larger than the number of brokers. -1 uses the broker's "
            "default.",
            PARTITIONS: "The number of partitions of new topics created for this connector. -1 uses "
            "the broker's default.",
        }
        ctypes = {REPLICATION_FACTOR: ConfigType.SHORT, PARTITIONS: ConfigType.INT}
        displays = {
            REPLICATION_FACTOR: "Replication Factor for Topics in ",
            PARTITIONS: "Partition Count for Topics in ",
        }
        for setting in (REPLICATION_FACTOR, PARTITIONS):
            key = group_key(group, setting)
            doc = docs[setting] + (" Required." if required else f" Optional: {inherited}")
            entry = entries.get(setting)
            if entry is None and not required:
                continue
            default = NO_DEFAULT if required else (fallback or {}).get(setting)
            self._define(key, ctypes[setting], doc, default=default, display_name=displays[setting] + group)
            if entry is None:
                self._problem(key, missing_message(key))
                continue
            value = self._count(key, entry[1], setting)
            if setting == REPLICATION_FACTOR:
                spec.replication_factor = value
            else:
                spec.partitions = value

    def _topic_config(self, group: str, suffix: str, key: str, raw: Any, configs: dict[str, str]) -> None:
        self._define(
            key,
            ConfigType.STRING,
            f"Topic config {suffix!r} of the topics created by the {group!r} group, sent to the "
            "broker as is. Not inherited by other groups.",
            default=None,
        )
        if not suffix.strip():
            self._problem(key, invalid_message(key, raw, "the topic config name after the group name is empty"))
            return
        value = config_text(raw)
        if suffix == CLEANUP_POLICY:
            try:
                CleanupPolicy.parse(value)
            except ValueError as exc:
                self._problem(key, invalid_message(key, raw, str(exc)))
                return
        if not is_known_topic_config(suffix):
            self.warnings.append(
                f"{key}: {suffix!r} is not a topic config Apache Kafka knows; it is sent to "
                "the broker as is, which may reject it"
            )
        configs[suffix] = value

    def _patterns(self, key: str, raw: Any, *, single: bool) -> list[str]:
        """Compile-check a pattern list (or one pattern); report every bad pattern under `key`."""
        patterns, problems = parse_patterns(key, raw, single=single)
        for problem in problems:
            self._problem(key, problem)
        return patterns
