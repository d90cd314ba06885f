"""The commit half of a source task (`OffsetCommitter`, held by `WorkerSourceTask`): the offsets of what
Kafka acknowledged go to the offset store, on the flusher's thread while the task goes on producing,
or on the task's own thread; the commit is counted and measured once they are stored.

A failed write keeps its offsets in the store and counts their records with the next successful one,
so `committed_records` never loses records to a disk hiccup.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from connectworker.runtime.observability.task_metrics import TaskMetrics
from connectworker.runtime.offsets.backing_store import OffsetBackingStore
from connectworker.runtime.offsets.flusher import OffsetFlusher

__all__ = ["OffsetCommitter"]


class OffsetCommitter:
    """Writes one task's committable offsets and keeps its commit counters, which any thread may read.

    `on_written(done)` runs once the offsets of `done` more records are stored (on the flusher's thread,
    or the task's): the task logs it and calls its connector task's `commit()`."""

    def __init__(
        self,
        connector: str,
        store: OffsetBackingStore,
        flusher: OffsetFlusher | None,
        metrics: TaskMetrics,
        on_written: Callable[[int], None],
    ) -> None:
        self._connector = connector
        self.store = store
        self._flusher = flusher  # None: the task thread flushes the offset store itself
        self._metrics = metrics
        self._on_written = on_written
        self._lock = threading.Lock()
        self._started: float | None = None  # when the commit in progress began
        self._not_written = 0  # records whose offsets a failed flush left for the next one
        self.committed_records = 0  # records whose offsets are in the offset store
        self.commits_succeeded = 0
        self.commits_failed = 0
        self.last_commit_at: float | None = None

    @property
    def not_written(self) -> int:
        """Records whose offsets a failed write left in the store, waiting for the next write."""
        with self._lock:
            return self._not_written

    def write(self, offsets: dict[str, Any], done: int, *, wait: bool) -> None:
        """Store `offsets`, those of `done` more acknowledged records. `wait`: flush the store before
        returning (else the flusher does it, when the task has one). Raises what the flush raised when
        the task thread flushed."""
        if not offsets and not self._not_written:
            self._written(done, quiet=True)
            return
        self.started()
        if offsets:  # else: only the offsets a failed flush left are written again
            self.store.put(self._connector, offsets)
        if wait or self._flusher is None:
            try:
                self.store.flush()
            except Exception:
                self.failed(done)
                raise
            self._written(done)
        else:  # the task goes on producing while the offset store is flushed
            self._flusher.request(lambda: self._written(done), lambda: self.failed(done))

    def started(self) -> None:
        """A commit begins, unless one still being written began earlier: it is measured from then."""
        if self._started is None:
            self._started = time.monotonic()

    def failed(self, done: int) -> None:
        """The offsets could not be written: those of `done` records stay in the store and are written,
        and counted, with the next successful write."""
        with self._lock:
            self.commits_failed += 1
            self._not_written += done

    def transaction_failed(self) -> None:
        """A transaction could not commit: it is aborted, and its records are produced again."""
        with self._lock:
            self.commits_failed += 1
            self._started = None

    def counted(self, done: int) -> None:
        """A commit of `done` records succeeded outside `write` (a committed transaction)."""
        with self._lock:
            self.committed_records += done
        self._measured()

    def _written(self, done: int, *, quiet: bool = False) -> None:
        """The offsets of `done` more records are stored (on the writer thread, or the task's)."""
        with self._lock:
            if not quiet:  # a write succeeded: it holds what earlier failed writes left too
                done, self._not_written = done + self._not_written, 0
            self.committed_records += done
        if quiet:
            return
        self._measured()
        self._on_written(done)

    def _measured(self) -> None:
        """Count a successful commit and observe how long it took since it began."""
        with self._lock:
            self.commits_succeeded += 1
            self.last_commit_at = time.time()
            began, self._started = self._started, None
        if began is not None:
            self._metrics.committed(time.monotonic() - began)
