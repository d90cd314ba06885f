"""What the worker decided about one task: everything a task runner needs to run it, wherever."""

from __future__ import annotations

from dataclasses import dataclass

from connectworker.api.task import SourceTask
from connectworker.config.connector_config import ConnectorConfig


@dataclass(frozen=True)
class TaskSpec:
    config: ConnectorConfig  # the connector's validated config
    task_id: int
    props: dict[str, str]  # the connector's props with this task's own config on top
    task_class: type[SourceTask]

    @property
    def connector(self) -> str:
        return self.config.name

    @property
    def name(self) -> str:
        return f"{self.config.name}-{self.task_id}"
