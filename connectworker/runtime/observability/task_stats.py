"""A task's counters (and its progress document) at one moment: what metrics and status read, wherever the
task runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class TaskStats:
    polled: int = 0  # records the task's poll() returned, transformed or dropped alike
    produced: int = 0  # records handed to the producer
    committed_records: int = 0  # records whose offsets are in the offset store
    bytes_out: int = 0  # key and value bytes handed to the producer
    commits_succeeded: int = 0
    last_commit_at: float | None = None  # when the last commit that stored offsets ended (epoch seconds)
    commits_failed: int = 0
    skipped: int = 0  # under errors.tolerance=all
    retries: int = 0
    errors: int = 0
    connectivity_note: str | None = None  # "Kafka cluster unreachable since …" while it is
    uncommitted_at_stop: int = 0  # records whose offsets the task's stop left uncommitted (they come again)
    progress: dict[str, Any] | None = None  # the task's progress document (api/operator.py) while it runs

    @property
    def active(self) -> int:
        """Records produced whose offsets are not committed yet."""
        return max(0, self.produced - self.committed_records)
