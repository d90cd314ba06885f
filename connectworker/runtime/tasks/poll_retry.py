"""What the task loop does when `poll()` raises a retriable error.

Kafka Connect treats a `RetriableException` from `poll()` as "nothing this time" and polls again,
without limit. We do the same, with Kafka's backoff (300 ms doubling up to
`errors.retry.delay.max.ms`) so a failing source is not hammered, and with a WARN on the first failure
and then at most once per interval, so an outage is visible without flooding the log. Nothing was
returned by the failed poll, so a retry cannot duplicate or reorder records.
"""

from __future__ import annotations

import logging

from confluent_kafka import KafkaError, KafkaException

from connectworker.api.errors import RetriableError
from connectworker.runtime.clients.retry_backoff import EveryInterval, RetryBackoff

log = logging.getLogger(__name__)

WARN_INTERVAL_S = 30.0


def is_retriable(exc: BaseException) -> bool:
    """`RetriableError`, or a Kafka client error that says it is retriable (a task using a consumer)."""
    if isinstance(exc, RetriableError):
        return True
    if isinstance(exc, KafkaException) and exc.args and isinstance(exc.args[0], KafkaError):
        return bool(exc.args[0].retriable())
    return False


class PollRetry:
    def __init__(self, task_name: str, max_delay_s: float) -> None:
        self._task_name = task_name
        self._backoff = RetryBackoff(max_delay_s)
        self._warn = EveryInterval(WARN_INTERVAL_S)
        self.failures = 0  # consecutive failed polls
        self.note: str | None = None
        """What a RUNNING task's status says while its polls fail (None once a poll succeeds)."""

    def failed(self, exc: BaseException) -> float:
        """Note a retriable failure; return how long to wait before polling again."""
        self.failures += 1
        delay = self._backoff.next_delay()
        self.note = (
            f"poll() failed with a retriable error ({self.failures} in a row), retrying with backoff: "
            f"{type(exc).__name__}: {exc}"
        )
        if self._warn.due():
            log.warning(
                "Task %s: poll() failed with a retriable error (%d in a row), polling again in %.1f s: %s: %s",
                self._task_name,
                self.failures,
                delay,
                type(exc).__name__,
                exc,
            )
        return delay

    def succeeded(self) -> None:
        if self.failures:
            log.info("Task %s: poll() succeeded again after %d retriable failure(s)", self._task_name, self.failures)
            self.failures = 0
            self.note = None
            self._backoff.reset()
            self._warn = EveryInterval(WARN_INTERVAL_S)
