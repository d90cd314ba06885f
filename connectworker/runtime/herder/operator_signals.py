"""Operators' signals to a connector's tasks (`POST /connectors/NAME/signals`, api/operator.py): handed to
each task that runs (or is paused: it reads them once resumed), wherever it runs; the task's context
gives them out. Nothing is stored: a task that is restarted before it read a signal never sees it."""

from __future__ import annotations

import logging

from connectworker.api.operator import OperatorSignal
from connectworker.runtime.herder.errors import InvalidRequestError
from connectworker.runtime.observability.log_context import log_fields
from connectworker.runtime.observability.task_progress import SHOWN_IN
from connectworker.runtime.runners.task_runner import TaskHandle
from connectworker.runtime.worker import RunningConnector

log = logging.getLogger(__name__)


def send_signal(running: RunningConnector, signal: OperatorSignal, task_id: int | None = None) -> list[int]:
    """Hand `signal` to the connector's RUNNING and PAUSED tasks (only task `task_id`'s, when given); the
    ids of the tasks it went to. Raises InvalidRequestError, saying each task's state, when none may take
    it."""
    name = running.config.name
    tasks = sorted((t for t in running.tasks if task_id is None or t.task_id == task_id), key=lambda t: t.task_id)
    ready = [t for t in tasks if t.status.state in SHOWN_IN]
    if not ready:
        raise InvalidRequestError(
            f"Signal {signal.id!r} ({signal.type}) not sent: {_why_none(running, tasks, task_id)}"
        )
    for task in ready:
        task.signal(signal)
        log.info(
            "Signal %r (%s) sent to task %s",
            signal.id,
            signal.type,
            task.name,
            extra=log_fields(connector=name, task=task.task_id),
        )
    return [t.task_id for t in ready]


def _why_none(running: RunningConnector, tasks: list[TaskHandle], task_id: int | None) -> str:
    if tasks:
        states = ", ".join(f"task {t.task_id} is {t.status.state.value}" for t in tasks)
        return f"only a RUNNING or PAUSED task takes signals, and {states}"
    if task_id is not None:
        return f"connector {running.config.name} has no task {task_id}"
    return f"connector {running.config.name} has no tasks (it is {running.status.state.value})"
