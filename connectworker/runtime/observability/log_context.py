"""Which connector, task and topic a log line is about, for the JSON log format.

A task's thread sets its connector and task once (`task_log_context`); every line it logs then carries
them, whichever module logs it. Lines logged elsewhere about a connector or a topic pass them with
logging's `extra` (`log_fields(connector=…, topic=…)`). `LogContextFilter`, on the handler, copies the
thread's context onto each record; the text format ignores these attributes.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar

__all__ = ["LogContextFilter", "log_fields", "task_log_context"]

_task: ContextVar[tuple[str, int] | None] = ContextVar("connectworker_task", default=None)


def task_log_context(connector: str, task_id: int) -> None:
    """Mark the calling thread as running task `task_id` of `connector` (a new thread starts unmarked)."""
    _task.set((connector, task_id))


def log_fields(*, connector: str | None = None, task: int | None = None, topic: str | None = None) -> dict[str, object]:
    """`extra=` for a log call about a connector, task or topic, from any thread."""
    fields: dict[str, object] = {}
    if connector is not None:
        fields["connector"] = connector
    if task is not None:
        fields["task"] = task
    if topic is not None:
        fields["topic"] = topic
    return fields


class LogContextFilter(logging.Filter):
    """Adds `connector` and `task` of the logging thread's task to records that do not name them."""

    def filter(self, record: logging.LogRecord) -> bool:
        current = _task.get()
        if current is not None and not hasattr(record, "connector"):
            record.connector, record.task = current
        return True
