"""Connector and task states, as Kafka Connect reports them."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from enum import StrEnum


class State(StrEnum):
    UNASSIGNED = "UNASSIGNED"
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"
    FAILED = "FAILED"
    RESTARTING = "RESTARTING"


@dataclass
class Status:
    """State of one connector or task; `trace` holds the failure's message and traceback."""

    state: State = State.UNASSIGNED
    trace: str | None = None
    since: float = field(default_factory=time.time)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def set(self, state: State, trace: str | None = None) -> None:
        with self._lock:
            self.state = state
            self.trace = trace
            self.since = time.time()

    def annotate(self, state: State, note: str | None) -> None:
        """Replace the trace with `note` if the state is still `state` (a RUNNING task's warning), in
        one step so that a concurrent pause or failure is never overwritten."""
        with self._lock:
            if self.state is state:
                self.trace = note

    def snapshot(self) -> tuple[State, str | None]:
        with self._lock:
            return self.state, self.trace
