"""The commit half of a source task: the offsets of what Kafka acknowledged go to the offset store
(on the flusher's thread while the task goes on producing, or on the task's own thread), and the
task's `commit()` hook runs once they are stored.

A failed write keeps its offsets in the store and counts their records with the next successful one,
so `committed_records` never loses records to a disk hiccup.
"""

from __future__ import annotations

import logging
import threading
import time

from connectworker.api.task import SourceTask
from connectworker.runtime.clients.connectivity import ConnectivityMonitor
from connectworker.runtime.observability.task_metrics import TaskMetrics
from connectworker.runtime.offsets.backing_store import OffsetBackingStore
from connectworker.runtime.offsets.flusher import OffsetFlusher
from connectworker.runtime.tasks.delivery_reports import DeliveryReportPump
from connectworker.runtime.tasks.submitted_records import SubmittedRecords
from connectworker.runtime.tasks.timeouts import TaskTimeouts
from connectworker.runtime.topic_creation.vanished_topics import VanishedTopics

log = logging.getLogger(__name__)


class OffsetCommits:
    """Mixin of `WorkerSourceTask`: the state it uses is set up by the task's constructor."""

    name: str
    connector: str
    task: SourceTask
    connectivity: ConnectivityMonitor
    metrics: TaskMetrics
    produced: int
    committed_records: int
    commits_succeeded: int
    last_commit_at: float | None
    commits_failed: int
    _wants_acks: bool
    _pump: DeliveryReportPump | None
    _submitted: SubmittedRecords
    _timeouts: TaskTimeouts
    _vanished: VanishedTopics
    _failure: str | None
    _store: OffsetBackingStore
    _flusher: OffsetFlusher | None
    _commit_started: float | None
    _not_written: int
    _committed_lock: threading.Lock

    # -- offsets -------------------------------------------------------------------------------
    def _commit(self, *, flush: bool, wait: bool = False) -> None:
        """Commit the offsets of what Kafka acknowledged; `flush` first waits for every record in flight
        (always, for tasks without per-record reports); `wait` flushes the offset store before returning."""
        # Without per-record reports, a flush is how the task learns what Kafka acknowledged.
        if (flush or not self._wants_acks) and self._pump is not None:
            in_flight = self._submitted.in_flight
            remaining = self._pump.flush(self._timeouts.offset_flush_timeout_s)
            if in_flight and not remaining:
                self.connectivity.healthy()  # the cluster took every record: proof it is back
            if remaining:
                log.warning(
                    "Task %s: %d records still unacknowledged after offset.flush.timeout.ms; "
                    "committing offsets of the acknowledged ones only",
                    self.name,
                    remaining,
                )
            elif not self._wants_acks and not self._vanished.resend and self._failure is None:
                self._submitted.mark_all_delivered()
        offsets, done = self._submitted.committable()
        if not offsets and not self._not_written:
            self._offsets_written(done, quiet=True)
            return
        if self._commit_started is None:  # a commit still being written is measured from its start
            self._commit_started = time.monotonic()
        if offsets:  # else: only the offsets a failed flush left are written again
            self._store.put(self.connector, offsets)
        if wait or self._flusher is None:
            try:
                self._store.flush()
            except Exception:
                self._offsets_not_written(done)
                raise
            self._offsets_written(done)
        else:  # the task goes on producing while the offset store is flushed
            self._flusher.request(lambda: self._offsets_written(done), lambda: self._offsets_not_written(done))

    def _offsets_not_written(self, done: int) -> None:
        """The offset store could not be written: the offsets of those `done` records stay in it and are
        written, and counted, with the next successful flush."""
        with self._committed_lock:
            self.commits_failed += 1
            self._not_written += done

    def _offsets_written(self, done: int, *, quiet: bool = False) -> None:
        """The offsets of `done` more records are stored (on the writer thread, or the task's)."""
        with self._committed_lock:
            if not quiet:  # a write succeeded: it holds what earlier failed writes left too
                done, self._not_written = done + self._not_written, 0
            self.committed_records += done
        if quiet:
            return
        self._commit_measured()
        log.info(
            "Task %s committed offsets of %d records (%d produced, %d in flight)",
            self.name,
            done,
            self.produced,
            self._submitted.in_flight,
        )
        try:
            self.task.commit()
        except Exception:
            log.exception("Task %s raised from commit(); offsets are stored regardless", self.name)

    def _commit_measured(self) -> None:
        """Count a successful commit and observe how long it took since it began."""
        with self._committed_lock:
            self.commits_succeeded += 1
            self.last_commit_at = time.time()
            began, self._commit_started = self._commit_started, None
        if began is not None:
            self.metrics.committed(time.monotonic() - began)
