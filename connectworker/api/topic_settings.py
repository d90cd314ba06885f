"""`TopicSettings`: the settings of a topic about to be created, as in KIP-158's draft.

The worker builds one from the connector's matching `topic.creation.*` rule and hands it to
`SourceTask.settings_for_new_topic`, which may change it or return ``None`` to skip creation.
Named settings (cleanup policy, retention, ...) are views over the topic configs map, so
``settings.configs()`` is always exactly what the broker will be sent.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from datetime import timedelta
from enum import Enum, StrEnum

from connectworker.api.config_def import config_text

USE_BROKER_DEFAULT = -1
"""Partitions or replication factor of -1: let the broker choose (its `num.partitions` etc.)."""


class CleanupPolicy(StrEnum):
    """The log cleanup policy, as the value of the `cleanup.policy` topic config."""

    COMPACT = "compact"
    DELETE = "delete"
    COMPACT_AND_DELETE = "compact,delete"

    @classmethod
    def parse(cls, value: str) -> CleanupPolicy:
        parts = sorted(p.strip().lower() for p in value.split(",") if p.strip())
        if parts == ["compact", "delete"]:
            return cls.COMPACT_AND_DELETE
        if len(parts) == 1 and parts[0] in ("compact", "delete"):
            return cls(parts[0])
        raise ValueError(f"cleanup.policy {value!r} is not one of 'compact', 'delete', 'compact,delete'")


class TimeUnit(Enum):
    """Units for `retention_time`, valued in milliseconds."""

    MILLISECONDS = 1
    SECONDS = 1_000
    MINUTES = 60_000
    HOURS = 3_600_000
    DAYS = 86_400_000


CLEANUP_POLICY = "cleanup.policy"
RETENTION_MS = "retention.ms"
RETENTION_BYTES = "retention.bytes"
MIN_INSYNC_REPLICAS = "min.insync.replicas"
UNCLEAN_LEADER_ELECTION = "unclean.leader.election.enable"


def _check_count(what: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    if value < 1 and value != USE_BROKER_DEFAULT:
        raise ValueError(f"{what} must be positive, or -1 to use the broker's default; got {value}")
    return value


class TopicSettings:
    """Partitions, replication factor and topic configs of one new topic. Setters chain."""

    __slots__ = ("_configs", "_name", "_partitions", "_replication_factor")

    def __init__(
        self,
        name: str,
        partitions: int = USE_BROKER_DEFAULT,
        replication_factor: int = USE_BROKER_DEFAULT,
        configs: Mapping[str, str] | None = None,
    ) -> None:
        if not name:
            raise ValueError("topic name must not be empty")
        self._name = name
        self._partitions = _check_count("partitions", partitions)
        self._replication_factor = _check_count("replication factor", replication_factor)
        self._configs: dict[str, str] = {}
        if configs:
            self.with_configs(configs)

    # -- getters -------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def partitions(self) -> int:
        """Number of partitions; -1 means the broker's default."""
        return self._partitions

    @property
    def replication_factor(self) -> int:
        """Replication factor; -1 means the broker's default."""
        return self._replication_factor

    @property
    def cleanup_policy(self) -> CleanupPolicy | None:
        value = self._configs.get(CLEANUP_POLICY)
        return None if value is None else CleanupPolicy.parse(value)

    def retention_time(self, unit: TimeUnit = TimeUnit.MILLISECONDS) -> int | None:
        """Retention time in `unit` (rounded down), -1 for unlimited, None for the broker default."""
        value = self._configs.get(RETENTION_MS)
        if value is None:
            return None
        ms = int(value)
        return ms if ms < 0 else ms // unit.value

    @property
    def retention_bytes(self) -> int | None:
        value = self._configs.get(RETENTION_BYTES)
        return None if value is None else int(value)

    @property
    def min_insync_replicas(self) -> int | None:
        value = self._configs.get(MIN_INSYNC_REPLICAS)
        return None if value is None else int(value)

    @property
    def unclean_leader_election(self) -> bool | None:
        value = self._configs.get(UNCLEAN_LEADER_ELECTION)
        return None if value is None else value.strip().lower() == "true"

    def config(self, name: str) -> str | None:
        return self._configs.get(name)

    def configs(self) -> dict[str, str]:
        """A copy of every topic config that will be sent to the broker."""
        return dict(self._configs)

    # -- fluent setters ------------------------------------------------------------------------
    def with_partitions(self, partitions: int) -> TopicSettings:
        self._partitions = _check_count("partitions", partitions)
        return self

    def with_replication_factor(self, replication_factor: int) -> TopicSettings:
        self._replication_factor = _check_count("replication factor", replication_factor)
        return self

    def with_cleanup_policy(self, policy: CleanupPolicy) -> TopicSettings:
        if not isinstance(policy, CleanupPolicy):
            raise TypeError(f"cleanup policy must be a CleanupPolicy, got {policy!r}")
        self._configs[CLEANUP_POLICY] = policy.value
        return self

    def with_retention_time(self, time: int | timedelta, unit: TimeUnit = TimeUnit.MILLISECONDS) -> TopicSettings:
        """Retention as a `timedelta`, or a count of `unit`; -1 means no time limit."""
        if isinstance(time, timedelta):
            ms = int(time.total_seconds() * 1000)
            if ms < 0:
                raise ValueError("retention time must not be negative; use -1 for no limit")
        elif isinstance(time, int) and not isinstance(time, bool):
            if time < -1:
                raise ValueError(f"retention time must be ≥ 0, or -1 for no limit; got {time}")
            ms = -1 if time == -1 else time * unit.value
        else:
            raise TypeError(f"retention time must be an int or a timedelta, got {type(time).__name__}")
        self._configs[RETENTION_MS] = str(ms)
        return self

    def with_retention_bytes(self, size: int) -> TopicSettings:
        if isinstance(size, bool) or not isinstance(size, int) or size < -1:
            raise ValueError(f"retention bytes must be an int ≥ 0, or -1 for no limit; got {size!r}")
        self._configs[RETENTION_BYTES] = str(size)
        return self

    def with_min_insync_replicas(self, count: int) -> TopicSettings:
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"min in-sync replicas must be a positive int; got {count!r}")
        self._configs[MIN_INSYNC_REPLICAS] = str(count)
        return self

    def with_unclean_leader_election(self, allow: bool) -> TopicSettings:
        if not isinstance(allow, bool):
            raise TypeError(f"unclean leader election must be a bool; got {allow!r}")
        self._configs[UNCLEAN_LEADER_ELECTION] = config_text(allow)
        return self

    def with_config(self, name: str, value: str | int | bool) -> TopicSettings:
        """Set one topic config; values are sent to the broker as strings (bools as true/false)."""
        if not isinstance(name, str) or not name.strip():
            raise ValueError("topic config name must be a non-empty string")
        if isinstance(value, bool | int | str):
            text = config_text(value)
        else:
            raise TypeError(f"topic config {name!r} must be a str, int or bool; got {type(value).__name__}")
        if name == CLEANUP_POLICY:
            text = CleanupPolicy.parse(text).value
        self._configs[name] = text
        return self

    def with_configs(self, configs: Mapping[str, str | int | bool] | None) -> TopicSettings:
        """Set several topic configs; ``None`` clears every topic config, as in the KIP."""
        if configs is None:
            return self.clear()
        for name, value in configs.items():
            self.with_config(name, value)
        return self

    def clear(self) -> TopicSettings:
        """Drop every topic config, so the broker's defaults apply."""
        self._configs.clear()
        return self

    # -- value semantics -----------------------------------------------------------------------
    def copy(self) -> TopicSettings:
        return copy.deepcopy(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TopicSettings):
            return NotImplemented
        return (self._name, self._partitions, self._replication_factor, self._configs) == (
            other._name,
            other._partitions,
            other._replication_factor,
            other._configs,
        )

    __hash__ = None  # type: ignore[assignment]  # mutable: not hashable

    def __repr__(self) -> str:
        return (
            f"TopicSettings(name={self._name!r}, partitions={self._partitions}, "
            f"replication_factor={self._replication_factor}, configs={self._configs!r})"
        )
