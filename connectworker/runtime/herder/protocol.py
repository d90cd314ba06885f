"""The `Herder`: what the REST API and the console know of the runtime (Kafka Connect's `Herder`
interface). They ask it, in values (`values.py`), and it refuses in its errors (`errors.py`); no running
connector, task or store crosses this line. `StandaloneHerder` (herder.py) is the one implementation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from connectworker.api.operator import OperatorSignal
from connectworker.runtime.herder.values import (
    ConnectorActivity,
    ConnectorInfo,
    ConnectorStatus,
    CreatedTopic,
    Health,
    OffsetChanges,
    OffsetUse,
    RestartPlan,
    State,
    TaskConfig,
    TaskStatus,
    Validation,
)
from connectworker.topics.drift import TopicDrift
from connectworker.topics.plan import PlanEntry


class Herder(Protocol):
    """Every method naming a connector raises `UnknownConnectorError` for one the worker does not run."""

    # -- the worker ----------------------------------------------------------------------------
    def health(self) -> Health: ...

    def cluster_id(self) -> str | None: ...

    def metrics_text(self) -> bytes:
        """The worker's metrics in Prometheus' text format; empty when it keeps none."""
        ...

    def redact(self, text: str) -> str:
        """`text` with every secret value the worker knows replaced by ``[hidden]``."""
        ...

    # -- connectors: what they are -------------------------------------------------------------
    def names(self) -> list[str]: ...

    def connector_info(self, name: str) -> ConnectorInfo: ...

    def connector_config(self, name: str) -> dict[str, str]: ...

    def connector_status(self, name: str, restarting: RestartPlan | None = None) -> ConnectorStatus: ...

    def task_configs(self, name: str) -> list[TaskConfig]: ...

    def task_status(self, name: str, task_id: int) -> TaskStatus | None: ...

    def activity(self, name: str) -> ConnectorActivity: ...

    def validate_connector_config(self, class_name: str, props: Mapping[str, str]) -> Validation: ...

    # -- connectors: changes -------------------------------------------------------------------
    def create(self, name: str, props: Mapping[str, str], initial_state: State | None = None) -> ConnectorInfo: ...

    def put_config(self, name: str, props: Mapping[str, str]) -> tuple[ConnectorInfo, bool]:
        """Create or replace; the connector's info and whether it was created."""
        ...

    def patch_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo: ...

    def delete(self, name: str) -> None: ...

    def pause(self, name: str) -> None: ...

    def resume(self, name: str) -> None: ...

    def stop(self, name: str) -> None: ...

    def restart(self, name: str, include_tasks: bool, only_failed: bool) -> RestartPlan: ...

    def restart_task(self, name: str, task_id: int) -> None: ...

    def signal(self, name: str, signal: OperatorSignal, task_id: int | None = None) -> list[int]:
        """Hand an operator's signal to the connector's running and paused tasks (or task `task_id` alone);
        the ids of the tasks it went to. Raises `InvalidRequestError` when no task may take it."""
        ...

    # -- offsets -------------------------------------------------------------------------------
    def offsets(self, name: str, *, read_again: bool = True) -> list[tuple[object, object]]: ...

    def read_offsets_again(self) -> None:
        """Read what every writer committed (once for a page of several connectors)."""
        ...

    def offset_uses(self, name: str) -> list[OffsetUse]: ...

    def alter_offsets(self, name: str, offsets: OffsetChanges) -> None: ...

    def reset_offsets(self, name: str) -> None: ...

    # -- topics --------------------------------------------------------------------------------
    def active_topics(self, name: str) -> list[str]: ...

    def reset_topics(self, name: str) -> None: ...

    def created_topics(self, name: str) -> list[CreatedTopic]: ...

    def plan(self, name: str, topics: Sequence[str], validate_only: bool) -> list[PlanEntry]: ...

    def drift(self, name: str, topics: Sequence[str] = ()) -> list[TopicDrift]: ...
