"""The herder's values in the REST API's shapes (Kafka Connect's JSON): info, tasks and status. Secrets
are hidden and traces redacted by the herder already."""

from __future__ import annotations

from connectworker.rest.models import (
    ConnectorInfo,
    ConnectorState,
    ConnectorStateInfo,
    ConnectorTaskId,
    TaskInfo,
    TaskState,
)
from connectworker.runtime.herder import values


def connector_info(info: values.ConnectorInfo) -> ConnectorInfo:
    return ConnectorInfo(
        name=info.name,
        config=info.config,
        tasks=[ConnectorTaskId(connector=info.name, task=task) for task in info.tasks],
    )


def task_infos(name: str, tasks: list[values.TaskConfig]) -> list[TaskInfo]:
    return [TaskInfo(id=ConnectorTaskId(connector=name, task=t.id), config=t.config) for t in tasks]


def task_state(task: values.TaskStatus) -> TaskState:
    return TaskState(
        id=task.id,
        state=task.state,
        worker_id=task.worker_id,
        trace=task.trace,
        transactional_id=task.transactional_id,
        progress=task.progress,
    )


def connector_status(status: values.ConnectorStatus) -> ConnectorStateInfo:
    return ConnectorStateInfo(
        name=status.name,
        connector=ConnectorState(state=status.state, worker_id=status.worker_id, trace=status.trace),
        tasks=[task_state(task) for task in status.tasks],
    )
