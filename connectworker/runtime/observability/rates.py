"""Records per second of each task and connector, over the last minutes, for the status page.

The worker keeps counters, not rates: each task's `stats().produced` (records handed to the producer,
`/metrics`' `source_record_write`). `RateHistory.sample()` reads them every `interval_s` (the herder's
supervisor thread calls it) and keeps `keep_s` of samples; rates are differences between samples. A
task restarted meanwhile starts counting from 0 again: a counter that went down counts from 0.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from connectworker.runtime.observability.metrics import StatusSnapshot

TaskKey = tuple[str, int]


@dataclass(frozen=True)
class _Step:
    """Records each task produced between two samples, and how long apart they were."""

    at: float
    seconds: float
    records: dict[TaskKey, int]


class RateHistory:
    def __init__(
        self,
        snapshot: StatusSnapshot,
        *,
        interval_s: float = 1.0,
        keep_s: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._snapshot = snapshot
        self.interval_s = interval_s
        self.keep_s = keep_s
        self._clock = clock
        self._steps: deque[_Step] = deque()
        self._last: tuple[float, dict[TaskKey, int]] | None = None
        self._lock = threading.Lock()

    def maybe_sample(self) -> None:
        """Sample when `interval_s` passed since the last sample."""
        with self._lock:
            due = self._last is None or self._clock() - self._last[0] >= self.interval_s
        if due:
            self.sample()

    def sample(self) -> None:
        counts = {
            (task.connector, task.task_id): task.stats().produced for _, _, task in self._snapshot() if task is not None
        }
        now = self._clock()
        with self._lock:
            if self._last is not None:
                before = self._last[1]
                records = {key: _since(before.get(key), value) for key, value in counts.items()}
                records = {key: value for key, value in records.items() if value}
                self._steps.append(_Step(now, now - self._last[0], records))
            self._last = (now, counts)
            while self._steps and self._steps[0].at < now - self.keep_s:
                self._steps.popleft()

    def rate(self, connector: str, task_id: int | None = None, window_s: float = 10.0) -> float | None:
        """Records per second over the last `window_s` of samples, of one task or (None) of all the
        connector's tasks; None before two samples were taken."""
        with self._lock:
            if not self._steps:
                return None
            end = self._steps[-1].at
            steps = [step for step in self._steps if step.at > end - window_s]
        seconds = sum(step.seconds for step in steps)
        return _records(steps, connector, task_id) / seconds if seconds > 0 else 0.0

    def series(self, connector: str, task_id: int | None = None, points: int = 60) -> list[float | None]:
        """Records per second in `points` equal slices of the last `keep_s`, oldest first; None for a
        slice before the first sample."""
        with self._lock:
            steps = list(self._steps)
        if not steps:
            return [None] * points
        end = steps[-1].at
        width = self.keep_s / points
        slices: list[list[_Step]] = [[] for _ in range(points)]
        for step in steps:
            index = points - 1 - int((end - step.at) // width)
            if 0 <= index < points:
                slices[index].append(step)
        out: list[float | None] = []
        for chunk in slices:
            seconds = sum(step.seconds for step in chunk)
            out.append(_records(chunk, connector, task_id) / seconds if seconds > 0 else None)
        return out


def _since(before: int | None, now: int) -> int:
    """Records counted since the last sample: all of them for a task new since then, or restarted (its
    counter started from 0 again)."""
    return now - before if before is not None and now >= before else now


def _records(steps: list[_Step], connector: str, task_id: int | None) -> int:
    return sum(
        count
        for step in steps
        for (name, task), count in step.records.items()
        if name == connector and (task_id is None or task == task_id)
    )
