"""What the API shows of a running connector: info, tasks and status, with secrets hidden.

Config values are hidden by key (`secrets.hide`); the free text of failure traces cannot be, so every
trace goes through `redact` (the herder's, the code that also redacts the log lines), which replaces
each known secret value with ``[hidden]``.
"""

from __future__ import annotations

from collections.abc import Callable

from connectworker.rest.models import (
    ConnectorInfo,
    ConnectorState,
    ConnectorStateInfo,
    ConnectorTaskId,
    TaskInfo,
    TaskState,
)
from connectworker.runtime.observability.secrets import hide
from connectworker.runtime.runners.task_runner import TaskHandle
from connectworker.runtime.status import State
from connectworker.runtime.worker import RunningConnector

Redact = Callable[[str], str]


def connector_info(running: RunningConnector) -> ConnectorInfo:
    name = running.config.name
    return ConnectorInfo(
        name=name,
        config=hide(running.config.props),
        tasks=[ConnectorTaskId(connector=name, task=t.task_id) for t in _tasks(running)],
    )


def task_infos(running: RunningConnector) -> list[TaskInfo]:
    """Each task's own config, as Kafka's `GET /connectors/{name}/tasks` shows it: what the connector's
    `task_configs()` gave it plus `task.class`, config provider references unresolved, secrets hidden.
    (The task itself receives the connector's config with its own laid over it.)"""
    name = running.config.name
    kept = running.task_configs
    task_class = _task_class_name(running)
    return [
        TaskInfo(
            id=ConnectorTaskId(connector=name, task=t.task_id),
            config=hide({**(kept[t.task_id] if t.task_id < len(kept) else t.props), **task_class}),
        )
        for t in _tasks(running)
    ]


def _task_class_name(running: RunningConnector) -> dict[str, str]:
    """`{"task.class": <module.Class>}` of the connector's tasks; empty when the connector never started."""
    if running.connector is None:
        return {}
    cls = running.connector.task_class()
    return {"task.class": f"{cls.__module__}.{cls.__qualname__}"}


def task_state(task: TaskHandle, worker_id: str, redact: Redact, restarting: bool = False) -> TaskState:
    state, trace = task.status.shown()
    if restarting:
        return TaskState(
            id=task.task_id,
            state=State.RESTARTING.value,
            worker_id=task.worker_id or worker_id,
            transactional_id=task.transactional_id,
        )
    return TaskState(
        id=task.task_id,
        state=state.value,
        worker_id=task.worker_id or worker_id,
        trace=_shown_trace(trace, redact),
        transactional_id=task.transactional_id,
    )


def connector_status(
    running: RunningConnector,
    worker_id: str,
    redact: Redact,
    *,
    restarting_connector: bool = False,
    restarting_tasks: frozenset[int] = frozenset(),
) -> ConnectorStateInfo:
    state, trace = running.status.shown()
    connector = (
        ConnectorState(state=State.RESTARTING.value, worker_id=worker_id)
        if restarting_connector
        else ConnectorState(state=state.value, worker_id=worker_id, trace=_shown_trace(trace, redact))
    )
    return ConnectorStateInfo(
        name=running.config.name,
        connector=connector,
        tasks=[task_state(t, worker_id, redact, t.task_id in restarting_tasks) for t in _tasks(running)],
    )


def _shown_trace(trace: str | None, redact: Redact) -> str | None:
    return redact(trace) if trace else None


def find_task(running: RunningConnector, task_id: int) -> TaskHandle | None:
    return next((t for t in _tasks(running) if t.task_id == task_id), None)


def _tasks(running: RunningConnector) -> list[TaskHandle]:
    """The live tasks; a copy, since a restart may replace the list while we read it."""
    return sorted(list(running.tasks), key=lambda t: t.task_id)
