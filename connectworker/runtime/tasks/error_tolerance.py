"""Per-record error handling: retry what may pass, then tolerate or fail (Kafka's
`RetryWithToleranceOperator`, for the stages a source task has here: conversion and production).

With `errors.tolerance=none` the first record that cannot be handled fails the task; with `all` it is
skipped, counted and (with `errors.log.enable`) logged with its topic, source partition and offset,
and its source offset still advances, as in Kafka. Without `errors.log.enable` a skipped record is
still never silent: a WARN summary says how many were skipped, at most once per interval.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from connectworker.api.errors import ConnectError, RetriableError
from connectworker.api.record import SourceRecord
from connectworker.config.error_handling import ErrorHandling
from connectworker.runtime.clients.retry_backoff import EveryInterval, RetryBackoff

log = logging.getLogger(__name__)

T = TypeVar("T")
SUMMARY_INTERVAL_S = 30.0
SHOWN_CHARS = 200


class ToleranceExceededError(ConnectError):
    """A record could not be handled and `errors.tolerance=none`: the task must fail."""


class Skipped:
    """Returned by `ToleranceOperator.run` for a record that was skipped under `errors.tolerance=all`."""

    __slots__ = ()


SKIPPED = Skipped()


def describe_record(record: SourceRecord, *, include_messages: bool) -> str:
    """Where a record came from (and, when asked, its key and value), for error messages."""
    text = (
        f"topic {record.topic!r}, source partition {record.source_partition!r}, source offset {record.source_offset!r}"
    )
    if include_messages:
        text += f", key {_shown(record.key)}, value {_shown(record.value)}"
    return text


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS] + f"… ({len(text)} chars)"


class ToleranceOperator:
    """One task's error handling; `skipped` and `retries` count what it did (thread-safe counters)."""

    def __init__(self, settings: ErrorHandling, task_name: str, stopping: threading.Event) -> None:
        self.settings = settings
        self.task_name = task_name
        self._stopping = stopping
        self._summary = EveryInterval(SUMMARY_INTERVAL_S)
        self._lock = threading.Lock()
        self.skipped = 0
        self.retries = 0
        self.errors = 0  # records a stage finally failed on (after retries), tolerated or not

    def run(self, stage: str, operation: Callable[[], T], record: SourceRecord) -> T | Skipped:
        """`operation()`, retried while it raises `RetriableError` within `errors.retry.timeout`; on a
        final failure, `SKIPPED` under `errors.tolerance=all`, else `ToleranceExceededError`."""
        timeout_ms = self.settings.retry_timeout_ms
        deadline = float("inf") if timeout_ms < 0 else time.monotonic() + timeout_ms / 1000
        backoff = RetryBackoff(self.settings.retry_delay_max_ms / 1000)
        while True:
            try:
                return operation()
            except RetriableError as exc:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._stopping.is_set():
                    return self.failed(stage, exc, self.describe(record))
                delay = min(backoff.next_delay(), remaining)
                with self._lock:
                    self.retries += 1
                if backoff.attempts == 1 or self._summary.due():
                    log.warning(
                        "Task %s: %s failed with a retriable error, retrying in %.1f s "
                        "(errors.retry.timeout=%d ms): %s",
                        self.task_name,
                        stage,
                        delay,
                        timeout_ms,
                        exc,
                    )
                self._stopping.wait(delay)
            except Exception as exc:
                return self.failed(stage, exc, self.describe(record))

    def describe(self, record: SourceRecord) -> str:
        return describe_record(record, include_messages=self.settings.log_include_messages)

    def failed(self, stage: str, exc: BaseException, where: str) -> Skipped:
        """Apply the tolerance to a record (described by `where`) that `stage` could not handle."""
        cause = f"{type(exc).__name__}: {exc}"
        with self._lock:
            self.errors += 1
        if not self.settings.tolerates_all:
            raise ToleranceExceededError(
                f"Task {self.task_name}: {stage} failed for a record ({where}): {cause}. With "
                f"errors.tolerance=none the task stops; offsets are committed only up to the records "
                f"before it. Fix the data or the settings, or set errors.tolerance=all to skip such "
                f"records."
            ) from exc
        with self._lock:
            self.skipped += 1
            skipped = self.skipped
        if self.settings.log_enable:
            log.error(
                "Task %s skipped a record (errors.tolerance=all): %s failed (%s): %s",
                self.task_name,
                stage,
                where,
                cause,
            )
        elif self._summary.due():
            log.warning(
                "Task %s has skipped %d record(s) in all (errors.tolerance=all); the latest: %s failed "
                "for %s: %s. Set errors.log.enable=true to log each one.",
                self.task_name,
                skipped,
                stage,
                where,
                cause,
            )
        return SKIPPED
