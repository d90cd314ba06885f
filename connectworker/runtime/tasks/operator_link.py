"""A task's line to its operators (api/operator.py), where the task runs: the progress document it last
reported and the signals sent to it that it has not read yet.

The task's context writes the progress and takes the signals (on the task's thread); the worker reads the
progress (`WorkerSourceTask.stats()`, any thread) and delivers signals: directly for a task on a thread
of the worker, through the task channel for one in another process (runners/remote_task.py).
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Mapping
from typing import Any

from connectworker.api.operator import OperatorSignal, progress_document

log = logging.getLogger(__name__)

MAX_UNREAD_SIGNALS = 100
"""Signals kept for a task that does not read them (most connectors do not): beyond this, the oldest go."""


class OperatorLink:
    def __init__(self, task_name: str) -> None:
        self._task_name = task_name
        self._lock = threading.Lock()
        self._progress: dict[str, Any] | None = None
        self._signals: deque[OperatorSignal] = deque()

    # -- the task's side (its context) -----------------------------------------------------------
    def report_progress(self, progress: Mapping[str, Any] | None) -> None:
        document = progress_document(progress)
        with self._lock:
            self._progress = document

    def take_signals(self) -> list[OperatorSignal]:
        with self._lock:
            taken = list(self._signals)
            self._signals.clear()
        return taken

    # -- the worker's side ------------------------------------------------------------------------
    @property
    def progress(self) -> dict[str, Any] | None:
        """The progress document last reported (the worker's copy; not to be changed)."""
        with self._lock:
            return self._progress

    def deliver(self, signal: OperatorSignal) -> None:
        """Keep `signal` for the task's next `operator_signals()`; past `MAX_UNREAD_SIGNALS` unread, the
        oldest is dropped, with a WARN naming it."""
        with self._lock:
            self._signals.append(signal)
            dropped = self._signals.popleft() if len(self._signals) > MAX_UNREAD_SIGNALS else None
        if dropped is not None:
            log.warning(
                "Task %s has not read its last %d operator signals; dropped the oldest, %r (type %s)",
                self._task_name,
                MAX_UNREAD_SIGNALS,
                dropped.id,
                dropped.type,
            )

    def ended(self) -> None:
        """The task stopped: it shows no progress any more, and reads no signal."""
        with self._lock:
            self._progress = None
            self._signals.clear()
