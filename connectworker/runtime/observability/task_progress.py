"""A task's progress document (api/operator.py) as the worker shows it: in the REST status while the task
runs, and the members the worker reads itself: `snapshot` (a snapshot in progress, for the `/ui` line and
the `/metrics` gauges named after Debezium's snapshot metrics) and `actions` (the buttons `/ui` shows
beside it, each sending an operator signal).

A task writes the document; a mistake in it (a count that is text, an action without a signal) must not
break a scrape or the page, so each member is read leniently: what does not fit is left out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connectworker.api.operator import SnapshotProgress
from connectworker.runtime.status import State

__all__ = ["ProgressAction", "progress_actions", "shown_progress", "snapshot_of"]

SHOWN_IN = (State.RUNNING, State.PAUSED)
"""The task states in which a progress document is shown: a stopped or failed task does nothing now."""


def shown_progress(state: State, progress: dict[str, Any] | None) -> dict[str, Any] | None:
    """The task's progress document, if it is to be shown in `state`."""
    return progress if progress and state in SHOWN_IN else None


def snapshot_of(progress: Mapping[str, Any] | None) -> SnapshotProgress | None:
    """The document's `snapshot` member, or None when it has none (or it is not an object)."""
    section = progress.get("snapshot") if progress else None
    if not isinstance(section, Mapping):
        return None
    rows = section.get("rows_scanned")
    return SnapshotProgress(
        kind=_text(section.get("kind")) or "",
        running=section.get("running") is True,
        paused=section.get("paused") is True,
        table=_text(section.get("table")),
        tables_remaining=_count(section.get("tables_remaining")),
        total_tables=_count(section.get("total_tables")),
        chunk_id=_text(section.get("chunk_id")),
        chunk_from=_text(section.get("chunk_from")),
        chunk_to=_text(section.get("chunk_to")),
        table_from=_text(section.get("table_from")),
        table_to=_text(section.get("table_to")),
        rows_scanned={str(t): _count(n) for t, n in rows.items()} if isinstance(rows, Mapping) else {},
        rows_sent=_count(section.get("rows_sent")),
    )


@dataclass(frozen=True)
class ProgressAction:
    """A button of the document's `actions`: its label and the signal it sends the task."""

    label: str
    type: str
    data: dict[str, Any]


def progress_actions(progress: Mapping[str, Any] | None) -> list[ProgressAction]:
    """The document's `actions`: `[{"label": "Pause snapshot", "signal": {"type": "pause-snapshot",
    "data": {…}}}, …]`; an entry without a label or a signal type is left out."""
    entries = progress.get("actions") if progress else None
    if not isinstance(entries, list):
        return []
    actions = []
    for entry in entries:
        signal = entry.get("signal") if isinstance(entry, Mapping) else None
        if not isinstance(signal, Mapping):
            continue
        label, kind, data = entry.get("label"), signal.get("type"), signal.get("data")
        if isinstance(label, str) and label and isinstance(kind, str) and kind:
            actions.append(ProgressAction(label, kind, dict(data) if isinstance(data, Mapping) else {}))
    return actions


def _text(value: object) -> str | None:
    """A key or a name as shown: text as it is, a number or a list (a composite key) as JSON would write it."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_text(v) or "null" for v in value) + "]"
    return str(value)


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
