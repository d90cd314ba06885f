"""Retry delays as Kafka Connect computes them, and a gate that lets a repeated log line through only
once per interval (so an outage yields a few lines, not a flood)."""

from __future__ import annotations

import threading
import time

RETRY_DELAY_MIN_S = 0.3
"""Kafka's `RetryWithToleranceOperator` starts at 300 ms and doubles each attempt."""


class RetryBackoff:
    """300 ms, 600 ms, 1.2 s, … capped at `max_delay_s`."""

    def __init__(self, max_delay_s: float) -> None:
        self.max_delay_s = max_delay_s
        self.attempts = 0

    def next_delay(self) -> float:
        delay = min(RETRY_DELAY_MIN_S * (1 << min(self.attempts, 30)), self.max_delay_s)
        self.attempts += 1
        return delay

    def reset(self) -> None:
        self.attempts = 0


class EveryInterval:
    """`due()` is true the first time and then at most once per `interval_s` (thread-safe)."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self._next = 0.0
        self._lock = threading.Lock()

    def due(self) -> bool:
        now = time.monotonic()
        with self._lock:
            if now >= self._next:
                self._next = now + self.interval_s
                return True
            return False
