"""Reading the settings of one `topic.creation` group (or draft rule): its replication factor and
partitions, its topic configs and its patterns, each problem under its exact key and each key defined
for the REST validate endpoint. rule_parser.py reads the groups' structure with it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from connectworker.api.config_def import NO_DEFAULT, ConfigKey, ConfigType, Importance, closest_name, config_text
from connectworker.api.topic_settings import CLEANUP_POLICY, CleanupPolicy
from connectworker.topics.config_keys import (
    EXTRA_CONFIGS_KEY,
    KNOWN_TOPIC_CONFIGS,
    PARTITIONS,
    REPLICATION_FACTOR,
    RULE_SETTINGS,
    TOPIC_CREATION_CONFIG_GROUP,
    TOPIC_CREATION_PREFIX,
    group_key,
    is_known_topic_config,
)
from connectworker.topics.rule_values import invalid_message, missing_message, parse_count, parse_patterns

__all__ = ["Entries", "GroupSettingsReader", "GroupSpec"]


def _unclaimed_near(key: str, unclaimed: Iterable[str]) -> str | None:
    """The key of `unclaimed` that is `key` with its group name misspelt (`topic.creation.defualt.partitions`
    for `topic.creation.default.partitions`): the same setting, a group name close to this one's."""
    setting = next((s for s in RULE_SETTINGS if key.endswith("." + s)), key.rsplit(".", 1)[-1])
    group = key[len(TOPIC_CREATION_PREFIX) : -len(setting) - 1]
    same_setting = {
        k[len(TOPIC_CREATION_PREFIX) : -len(setting) - 1]: k for k in unclaimed if k.endswith("." + setting)
    }
    near = closest_name(group, same_setting)
    return None if near is None else same_setting[near]


def _unknown_topic_config_message(group: str, suffix: str) -> str:
    """Why `group`'s key ending in `suffix` is refused: a broker would refuse to create the topic (Apache Kafka
    answers INVALID_CONFIG), so a misspelt setting fails where the operator sees it, not at run time."""
    near = closest_name(suffix, RULE_SETTINGS | KNOWN_TOPIC_CONFIGS)
    hint = f" Did you mean {group_key(group, near)}?" if near else ""
    return (
        f"{suffix!r} is neither a setting of the group nor a topic config Apache Kafka defines.{hint} A "
        f"topic config your cluster accepts beyond Kafka's (a broker plugin's) is allowed once the worker "
        f"names it in {EXTRA_CONFIGS_KEY}; names starting with 'confluent.' are always allowed."
    )


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

    def __init__(self, extra_configs: Iterable[str] = ()) -> None:
        """`extra_configs`: topic configs allowed beyond Apache Kafka's (the worker's
        `topic.creation.extra.configs`)."""
        self.problems: dict[str, list[str]] = {}
        self.warnings: list[str] = []
        self.definitions: dict[str, ConfigKey] = {}
        self.extra_configs = frozenset(extra_configs)
        self.unclaimed: frozenset[str] = frozenset()  # keys no group owns: what a missing key may be misspelt as

    def _missing(self, key: str) -> None:
        """A required key is absent: Kafka's message, and the given key that is probably its misspelling."""
        message = missing_message(key)
        near = _unclaimed_near(key, self.unclaimed)
        if near is not None:
            message += f" {near} is set instead: did you mean {key}?"
        self._problem(key, message)

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
                self._missing(key)
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
            "broker as is: one Apache Kafka defines, or one the worker's topic.creation.extra.configs names. "
            "Not inherited by other groups.",
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
        if not is_known_topic_config(suffix) and suffix not in self.extra_configs:
            self._problem(key, _unknown_topic_config_message(group, suffix))
            return
        configs[suffix] = value

    def _patterns(self, key: str, raw: Any, *, single: bool) -> list[str]:
        """Compile-check a pattern list (or one pattern); report every bad pattern under `key`."""
        patterns, problems = parse_patterns(key, raw, single=single)
        for problem in problems:
            self._problem(key, problem)
        return patterns
