"""Drift between existing topics and what the connector's rules would create now.

A topic the worker created once may have been changed by hand since, or the rules changed after it was
created; the worker never alters an existing topic on its own. `compare` says, per topic, what differs
from what the rule (after the task's hook, within the worker's policy) wants, and whether each
difference can be fixed in place (more partitions: CreatePartitions; a config: IncrementalAlterConfigs)
or only by re-creating the topic (fewer partitions, another replication factor). Only what the rule
sets is compared: a config the rule leaves to the broker is not drift.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from connectworker.api.topic_settings import CLEANUP_POLICY, USE_BROKER_DEFAULT, TopicSettings

__all__ = ["Difference", "TopicDrift", "TopicState", "compare"]


@dataclass(frozen=True)
class TopicState:
    """An existing topic as the broker describes it (`configs`: the values it reports)."""

    name: str
    partitions: int
    replication_factor: int
    configs: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Difference:
    what: str  # "partitions", "replication.factor" or a topic config's name
    actual: str | None  # None: the topic does not report the config (the broker's default)
    wanted: str
    fixable: bool  # in place; else only by re-creating the topic

    @property
    def deletes_data(self) -> bool:
        """Whether making the change deletes records the topic holds now: a shorter (or first) retention, or
        a cleanup policy it did not have (`delete` removes old records, `compact` superseded ones). A
        config the topic does not report counts as the broker's default, which may be longer."""
        if self.what in _RETENTION_CONFIGS:
            wanted, actual = _as_int(self.wanted), _as_int(self.actual)
            if wanted is None or wanted < 0:
                return False
            return actual is None or actual < 0 or wanted < actual
        if self.what == CLEANUP_POLICY:
            return bool(_policies(self.wanted) - _policies(self.actual or ""))
        return False

    def __str__(self) -> str:
        how = (
            "fixable in place: partitions are added"
            if self.what == "partitions" and self.fixable
            else "fixable in place: the config is set"
            if self.fixable
            else "only by re-creating the topic"
        )
        actual = self.actual if self.actual is not None else "(broker default)"
        warning = "; DELETES DATA the topic holds now" if self.deletes_data else ""
        return f"{self.what} {actual} → rule wants {self.wanted} ({how}{warning})"

    def to_json(self) -> dict[str, object]:
        return {
            "what": self.what,
            "actual": self.actual,
            "wanted": self.wanted,
            "fixable": self.fixable,
            "deletes_data": self.deletes_data,
            "text": str(self),
        }


@dataclass
class TopicDrift:
    """One topic's verdict. `note` explains a topic that is not compared (missing, no rule, vetoed,
    refused by the policy); such a topic is not drift."""

    topic: str
    rule: str | None = None
    differences: list[Difference] = field(default_factory=list)
    note: str | None = None

    @property
    def in_sync(self) -> bool:
        return not self.differences

    @property
    def fixable(self) -> list[Difference]:
        return [d for d in self.differences if d.fixable]

    def to_json(self) -> dict[str, object]:
        return {
            "topic": self.topic,
            "rule": self.rule,
            "in_sync": self.in_sync,
            "note": self.note,
            "differences": [d.to_json() for d in self.differences],
        }


_RETENTION_CONFIGS = frozenset({"retention.ms", "retention.bytes", "local.retention.ms", "local.retention.bytes"})


def _as_int(value: str | None) -> int | None:
    try:
        return None if value is None else int(value.strip())
    except ValueError:
        return None


def _policies(value: str) -> set[str]:
    return {p.strip().lower() for p in value.split(",") if p.strip()}


def _same(key: str, actual: str | None, wanted: str) -> bool:
    if actual is None:
        return False
    if key == CLEANUP_POLICY:  # a list: "compact,delete" is "delete,compact"
        return sorted(p.strip() for p in actual.split(",")) == sorted(p.strip() for p in wanted.split(","))
    return actual == wanted


def compare(state: TopicState, wanted: TopicSettings, rule: str | None) -> TopicDrift:
    """What differs between an existing topic and the settings its rule wants now."""
    differences = []
    if wanted.partitions != USE_BROKER_DEFAULT and wanted.partitions != state.partitions:
        differences.append(
            Difference(
                "partitions",
                str(state.partitions),
                str(wanted.partitions),
                fixable=wanted.partitions > state.partitions,
            )
        )
    if wanted.replication_factor != USE_BROKER_DEFAULT and wanted.replication_factor != state.replication_factor:
        differences.append(
            Difference(
                "replication.factor", str(state.replication_factor), str(wanted.replication_factor), fixable=False
            )
        )
    for key, value in sorted(wanted.configs().items()):
        actual = state.configs.get(key)
        if not _same(key, actual, value):
            differences.append(Difference(key, actual, value, fixable=True))
    return TopicDrift(state.name, rule, differences)
