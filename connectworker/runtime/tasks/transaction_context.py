"""The worker's `TransactionContext`: what a task asked for, and where, until the task loop acts on it.

Requests come from the task's thread (inside `poll()`, or from a thread of its own); the loop reads
them after dispatching each record and each poll. Asking for a commit and an abort at the same point
is a task bug: the loop fails the task saying so, as Kafka does.
"""

from __future__ import annotations

import threading
from enum import Enum

from connectworker.api.exactly_once import TransactionContext
from connectworker.api.record import SourceRecord
from connectworker.runtime.tasks.vanished_topics import TaskFailure

__all__ = ["Boundary", "WorkerTransactionContext"]


class Boundary(Enum):
    COMMIT = "commit"
    ABORT = "abort"


class WorkerTransactionContext(TransactionContext):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._batch: set[Boundary] = set()
        self._records: dict[int, tuple[SourceRecord, set[Boundary]]] = {}  # id -> (record kept alive, asks)

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        self._request(Boundary.COMMIT, record)

    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        self._request(Boundary.ABORT, record)

    def _request(self, boundary: Boundary, record: SourceRecord | None) -> None:
        with self._lock:
            if record is None:
                self._batch.add(boundary)
            else:
                self._records.setdefault(id(record), (record, set()))[1].add(boundary)

    @property
    def has_record_requests(self) -> bool:
        return bool(self._records)

    def for_record(self, record: SourceRecord) -> Boundary | None:
        """The boundary asked for right after `record` (and forget the request)."""
        with self._lock:
            entry = self._records.get(id(record))
            if entry is None or entry[0] is not record:
                return None
            del self._records[id(record)]
        return _one(entry[1], f"record on topic {record.topic!r}")

    def for_batch(self) -> Boundary | None:
        """The boundary asked for after the current poll's records (and forget the request)."""
        with self._lock:
            asked, self._batch = self._batch, set()
        return _one(asked, "batch")


def _one(asked: set[Boundary], where: str) -> Boundary | None:
    if len(asked) > 1:
        raise TaskFailure(f"The task asked both to commit and to abort the transaction after the same {where}")
    return next(iter(asked), None)
