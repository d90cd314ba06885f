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
    note: str | None = None  # said after the trace (the automatic restarts gave up); gone when the state changes
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def set(self, state: State, trace: str | None = None) -> None:
        with self._lock:
            if state is not self.state:  # the note is about this state: a task process re-reporting it keeps it
                self.note = None
            self.state = state
            self.trace = trace
            self.since = time.time()

    def annotate(self, state: State, note: str | None) -> None:
        """Replace the trace with `note` if the state is still `state` (a RUNNING task's warning), in
        one step so that a concurrent pause or failure is never overwritten."""
        with self._lock:
            if self.state is state:
                self.trace = note

    def add_note(self, state: State, note: str) -> bool:
        """Say `note` after the trace while the state stays `state` (kept apart from the trace, which a
        task process's reports keep setting); False when the state has changed meanwhile."""
        with self._lock:
            if self.state is not state:
                return False
            self.note = note
            return True

    def clear_note(self) -> None:
        with self._lock:
            self.note = None

    def snapshot(self) -> tuple[State, str | None]:
        with self._lock:
            return self.state, self.trace

    def shown(self) -> tuple[State, str | None]:
        """The state and what the status shows as its trace: the trace, then the note if any."""
        with self._lock:
            if self.note is None:
                return self.state, self.trace
            return self.state, f"{self.trace.rstrip()}\n\n{self.note}" if self.trace else self.note
