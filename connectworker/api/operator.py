"""What a running task shows its operators and what they send it, beyond its state.

A task may publish a **progress document** (`SourceTaskContext.report_progress`): a small JSON object the
worker shows in the task's REST status (`progress`), on the `/ui` status page and, for its `snapshot`
member, as `/metrics` gauges. Operators send a task **signals** (`POST /connectors/NAME/signals`), which
it reads with `SourceTaskContext.operator_signals()`: what a signal's `type` and `data` mean is the
connector's business (the CDC connectors take Debezium's `execute-snapshot`, `pause-snapshot`, …).

Both travel the same way wherever the task runs (a thread of the worker, a task process, a Spark
executor): with the task's reports to the worker, and with the worker's commands to the task.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MAX_PROGRESS_BYTES", "OperatorSignal", "SnapshotProgress", "progress_document"]

MAX_PROGRESS_BYTES = 64 * 1024
"""The largest progress document (as JSON): it is sent to the worker several times a second."""


@dataclass(frozen=True)
class OperatorSignal:
    """One signal an operator sent to the task: its `id` (the sender's, else a random UUID the worker
    gave it), its `type` and its `data` (a JSON object; empty when none was sent)."""

    id: str
    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "type": self.type, "data": self.data}

    @classmethod
    def from_json(cls, message: Mapping[str, Any]) -> OperatorSignal:
        data = message.get("data")
        return cls(str(message["id"]), str(message["type"]), dict(data) if isinstance(data, Mapping) else {})


@dataclass(frozen=True)
class SnapshotProgress:
    """The progress document's `snapshot` member, which the worker reads itself (the `/ui` line, the
    `/metrics` gauges): a snapshot in progress, with the names of Debezium's snapshot metrics in the
    comments. A connector writes it with `dataclasses.asdict`; the worker reads it leniently (a member that
    does not fit is left out)."""

    kind: str = ""  # e.g. incremental, blocking, initial
    running: bool = False  # SnapshotRunning
    paused: bool = False  # SnapshotPaused
    table: str | None = None  # the table being read
    tables_remaining: int = 0  # RemainingTableCount
    total_tables: int = 0  # TotalTableCount
    chunk_id: str | None = None  # ChunkId
    chunk_from: str | None = None  # ChunkFrom
    chunk_to: str | None = None  # ChunkTo
    table_from: str | None = None  # TableFrom
    table_to: str | None = None  # TableTo (the table's maximum key)
    rows_scanned: dict[str, int] = field(default_factory=dict)  # RowsScanned, by table
    rows_sent: int = 0  # rows of the current table sent so far


def progress_document(progress: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """`progress` as the worker keeps it: a copy made of JSON values (so that the task may keep changing
    its own), or None. Raises ValueError saying what is wrong: not a mapping, not JSON (a set, a float
    NaN, a key that is not a string), or over `MAX_PROGRESS_BYTES`."""
    if progress is None:
        return None
    if not isinstance(progress, Mapping):
        raise ValueError(f"a task's progress must be a mapping (a JSON object) or None, not {type(progress).__name__}")
    if any(not isinstance(key, str) for key in progress):
        raise ValueError("a task's progress must have text keys (JSON object keys)")
    try:
        text = json.dumps(dict(progress), allow_nan=False, separators=(",", ":"), default=_refuse)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"a task's progress must hold JSON values only: {exc}") from None
    if len(text) > MAX_PROGRESS_BYTES:
        raise ValueError(
            f"a task's progress is {len(text)} bytes as JSON, over the limit of {MAX_PROGRESS_BYTES}: "
            "report a summary (the current table, counts), not the data"
        )
    copy: dict[str, Any] = json.loads(text)
    return copy


def _refuse(value: object) -> object:
    raise TypeError(f"{type(value).__name__} {value!r} is not a JSON value")
