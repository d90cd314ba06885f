"""What `SourceTask.poll()` may return, and a message that says so when a task returns something else."""

from __future__ import annotations

from collections.abc import Sequence

from connectworker.api.errors import ConnectError
from connectworker.api.record import SourceRecord, SourceRecordBatch

EXPECTED = "a list of SourceRecord, a SourceRecordBatch, or None"


class BadPollResultError(ConnectError):
    pass


def check_poll_result(result: object, task_name: str) -> Sequence[SourceRecord] | SourceRecordBatch:
    """`result` if it has the shape of a poll result; a clear error otherwise. Items are not checked
    one by one here (that would cost every record a type check): `bad_item_message` explains the first
    wrong item once using one failed."""
    if isinstance(result, SourceRecordBatch | list | tuple):
        return result
    raise BadPollResultError(
        f"poll() of task {task_name} must return {EXPECTED}; it returned a {type(result).__name__}"
    )


def bad_item_message(records: Sequence[object], task_name: str) -> str:
    """Why a list returned by `poll()` could not be used, naming the first item that is not a record."""
    for index, item in enumerate(records):
        if not isinstance(item, SourceRecord):
            return (
                f"poll() of task {task_name} must return {EXPECTED}; item {index} of the list it "
                f"returned is a {type(item).__name__} ({_short(item)})"
            )
    return f"poll() of task {task_name} returned records the worker could not read"


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"
