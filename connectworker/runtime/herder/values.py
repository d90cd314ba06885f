"""The values the `Herder` answers with: what the REST API and the console show, free of the runtime's
live objects (no running connector, task handle or store leaves the herder).

Secrets are hidden and traces redacted before a value is made: a value may be shown as it is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from connectworker.api.config_def import NO_DEFAULT, ConfigKey, ConfigType, config_text
from connectworker.api.operator import SnapshotProgress
from connectworker.runtime.observability.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from connectworker.runtime.observability.secrets import HIDDEN
from connectworker.runtime.observability.task_progress import ProgressAction, progress_actions, snapshot_of
from connectworker.runtime.status import State
from connectworker.runtime.topic_creation.service import CreatedTopic

__all__ = [
    "HIDDEN",
    "METRICS_CONTENT_TYPE",
    "Activity",
    "ConnectorActivity",
    "ConnectorInfo",
    "ConnectorStatus",
    "CreatedTopic",
    "Health",
    "OffsetChanges",
    "OffsetUse",
    "RestartPlan",
    "State",
    "TaskConfig",
    "TaskStatus",
    "ValidatedKey",
    "Validation",
    "shown_default",
]


OffsetChanges = Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
"""Offsets an operator sets: each source partition with its new offset (None: the partition's is removed)."""


@dataclass(frozen=True)
class Health:
    http_status: int
    status: str  # "healthy", "starting" or "unhealthy", as Kafka's GET /health
    message: str


@dataclass(frozen=True)
class RestartPlan:
    """What a restart request restarted (reported as RESTARTING, as Kafka does)."""

    connector: bool
    tasks: frozenset[int]


@dataclass(frozen=True)
class TaskStatus:
    id: int
    state: str
    worker_id: str
    trace: str | None = None  # redacted
    transactional_id: str | None = None  # the task's producer, on an exactly-once worker
    progress: dict[str, Any] | None = None  # the task's progress document, while it runs (api/operator.py)

    @property
    def snapshot(self) -> SnapshotProgress | None:
        """The snapshot the progress document reports, if any."""
        return snapshot_of(self.progress)

    @property
    def actions(self) -> list[ProgressAction]:
        """The buttons the progress document asks for, each sending the task a signal."""
        return progress_actions(self.progress)


@dataclass(frozen=True)
class ConnectorStatus:
    """Kafka's `ConnectorStateInfo`: the connector's state and its tasks'."""

    name: str
    state: str
    worker_id: str
    trace: str | None  # redacted
    tasks: list[TaskStatus]


@dataclass(frozen=True)
class ConnectorInfo:
    name: str
    config: dict[str, str]  # as written, secrets hidden
    tasks: list[int]


@dataclass(frozen=True)
class TaskConfig:
    """A task's own config (what `task_configs()` gave it, plus `task.class`), secrets hidden."""

    id: int
    config: dict[str, str]


@dataclass(frozen=True)
class Activity:
    """A connector's or task's records per second and last commit."""

    rate: float | None  # over the last samples; None before there were two
    series: list[float | None]  # records/s per slice of `keep_s`, oldest first (None: no sample)
    keep_s: float  # how long the series reaches back
    last_commit_at: float | None  # epoch seconds


@dataclass(frozen=True)
class ConnectorActivity:
    """What the console shows beside a connector's status."""

    target_state: State
    connector: Activity
    tasks: dict[int, Activity]
    auto_restart: str | None  # the automatic restarts' settings ("on, at most 5 restarts, base 1 min")
    auto_restarts: dict[int | None, int]  # restarts since the count was reset, by task (None: itself)
    given_up: frozenset[int | None]  # the tasks (None: itself) the automatic restarts gave up on


@dataclass(frozen=True)
class OffsetUse:
    """A committed offset, and why no task of the connector's current config would use it (None: one would)."""

    partition: object
    offset: object
    unused: str | None


@dataclass(frozen=True)
class ValidatedKey:
    """One key of a validated config (Kafka's `ConfigInfo`): its definition and its outcome, shown."""

    name: str  # as given (a `topic.creation.<group>.*` key names its group)
    definition: ConfigKey
    value: str | None = None  # secrets hidden
    recommended_values: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    visible: bool = True


def shown_default(key: ConfigKey) -> str | None:
    """A key's declared default as a properties file holds it; a password's hidden."""
    if key.default is None or key.default is NO_DEFAULT:
        return None
    return HIDDEN if key.type is ConfigType.PASSWORD else config_text(key.default)


@dataclass(frozen=True)
class Validation:
    """Kafka's `ConfigInfos`: every key's outcome, under the connector class's name."""

    name: str
    keys: list[ValidatedKey]
    groups: list[str]

    @property
    def error_count(self) -> int:
        return sum(len(key.errors) for key in self.keys)
