"""A CDC task's line to its operators through the worker (connectworker.api.operator): the signals sent
with the REST API (`POST /connectors/NAME/signals`, the `/ui` buttons) read as Debezium signals of the
channel `rest`, and a running snapshot published as the task's progress document, which the REST status,
the `/ui` status page and `/metrics` show (with the Pause, Resume and Stop buttons for an incremental
snapshot, sending Debezium's `pause-snapshot`, `resume-snapshot` and `stop-snapshot`)."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from connectworker.api.task import SourceTaskContext

from .signal_types import Signal, SnapshotProgress

CHANNEL = "rest"


class RestSignalChannel:
    """The signals operators sent the task through the worker, oldest first, each once: `data` is the JSON
    text of the object sent (`{}` when none was), as a signal table's `data` column holds it."""

    name = CHANNEL

    def __init__(self, context: SourceTaskContext) -> None:
        self._context = context

    def poll(self) -> list[Signal]:
        return [
            Signal(signal.id, signal.type, json.dumps(signal.data), CHANNEL)
            for signal in self._context.operator_signals()
        ]


def progress_document(progress: SnapshotProgress | None) -> dict[str, Any] | None:
    """What `context.report_progress` takes for `progress` (None while no snapshot runs): its fields as the
    `snapshot` member, and the buttons that apply to it as `actions` (none for a blocking snapshot, which
    Debezium neither pauses nor stops)."""
    if progress is None:
        return None
    actions: list[dict[str, Any]] = []
    if progress.kind == "incremental" and progress.running:
        if progress.paused:
            actions.append(_action("Resume snapshot", "resume-snapshot"))
        else:
            actions.append(_action("Pause snapshot", "pause-snapshot"))
        actions.append(_action("Stop snapshot", "stop-snapshot", {"type": "incremental"}))
    return {"snapshot": asdict(progress), "actions": actions}


def _action(label: str, signal_type: str, data: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"label": label, "signal": {"type": signal_type, "data": data or {}}}
