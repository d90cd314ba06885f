"""What one of Spark's Python worker processes keeps from one task to the next.

Spark reuses its Python worker processes across tasks and micro-batches (`spark.python.worker.reuse`,
on by default) and runs one task at a time in each, and the driver keeps one long-lived process per
planning step and per query's commits. So clients that are costly to open — the topic-creation
service and its gates, a write task's producer, the committer's offset storage — are kept per process
and per setting in a `ProcessCache` rather than opened for every micro-batch.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class ProcessCache(Generic[V]):
    """Values by key for the life of this process, each created on first use; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: dict[Hashable, V] = {}

    def get(self, key: Hashable, create: Callable[[], V]) -> V:
        """The value of `key`, made by `create()` (under the lock) if there is none yet."""
        with self._lock:
            value = self._values.get(key)
            if value is None:
                value = self._values[key] = create()
            return value

    def pop(self, key: Hashable) -> V | None:
        """Forget the value of `key` and return it (None if there was none): the caller closes it."""
        with self._lock:
            return self._values.pop(key, None)
