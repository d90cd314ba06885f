"""What a task measures as it runs: the few figures that cannot be read from its state at scrape time.

Counts (records polled, written, committed, skipped, commits that succeeded or failed) live on the task
itself and the worker's collector reads them when `/metrics` is scraped. Durations and batch sizes need
a distribution, so they go into Prometheus histograms: once per poll and once per offset commit, never
per record. A task built outside a worker (tests, tools) gets histograms registered nowhere.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from prometheus_client import Histogram

__all__ = ["StartupCounts", "TaskMetrics"]


@dataclass
class StartupCounts:
    """Start-up attempts, successes and failures of connectors or tasks (Kafka's
    `connector-startup-*-total` and `task-startup-*-total` of connect-worker-metrics)."""

    attempts: int = 0
    successes: int = 0
    failures: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def attempted(self) -> None:
        with self._lock:
            self.attempts += 1

    def succeeded(self) -> None:
        with self._lock:
            self.successes += 1

    def failed(self) -> None:
        with self._lock:
            self.failures += 1


class TaskMetrics:
    """One task's histograms (children of the worker's labelled histograms) and the worker's task
    start-up counts."""

    __slots__ = ("_batch_size", "_commit_time", "_poll_time", "startups")

    def __init__(
        self, poll_time: Histogram, batch_size: Histogram, commit_time: Histogram, startups: StartupCounts
    ) -> None:
        self._poll_time = poll_time
        self._batch_size = batch_size
        self._commit_time = commit_time
        self.startups = startups

    @classmethod
    def unregistered(cls) -> TaskMetrics:
        """Histograms that no registry exposes, for a task that runs outside a worker."""
        return cls(
            Histogram("poll_batch_time_seconds", "", registry=None),
            Histogram("batch_size", "", registry=None),
            Histogram("offset_commit_time_seconds", "", registry=None),
            StartupCounts(),
        )

    def polled(self, seconds: float, records: int) -> None:
        """A `poll()` that returned `records` records (0 included) took `seconds`."""
        self._poll_time.observe(seconds)
        self._batch_size.observe(records)

    def committed(self, seconds: float) -> None:
        """An offset commit (or a transaction commit) took `seconds`, from its start until stored."""
        self._commit_time.observe(seconds)
