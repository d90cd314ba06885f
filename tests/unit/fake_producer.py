"""An in-memory stand-in for confluent-kafka's Producer, for unit tests of the record path.

It keeps librdkafka's contract where the task loop depends on it: `produce()` may raise at once
(`refuse`), delivery reports run only inside `poll()`/`flush()`, a per-message `on_delivery` wins over
the producer-wide one, `delivery.report.only.error` reports failures only, and `flush()` returns how
many messages are still outstanding (`hold` keeps them outstanding, as an unreachable broker would).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from confluent_kafka import KafkaError, KafkaException


@dataclass
class FakeMessage:
    _topic: str
    _value: bytes | None
    _key: bytes | None
    _partition: int = 0
    _offset: int = -1
    _callback: Callable[[KafkaError | None, FakeMessage], None] | None = None
    _headers: Any = None

    def topic(self) -> str:
        return self._topic

    def value(self) -> bytes | None:
        return self._value

    def key(self) -> bytes | None:
        return self._key

    def partition(self) -> int:
        return self._partition

    def offset(self) -> int:
        return self._offset

    def timestamp(self) -> tuple[int, int]:
        return (0, 0)

    def headers(self) -> Any:
        return self._headers


@dataclass
class FakeProducer:
    config: dict[str, Any]
    refuse: Callable[[str, bytes | None], KafkaError | None] = lambda topic, value: None
    """Return an error to make `produce()` raise it at once (e.g. MSG_SIZE_TOO_LARGE)."""
    fail: Callable[[FakeMessage], KafkaError | None] = lambda msg: None
    """Return an error to fail a message's delivery (reported asynchronously)."""
    hold: threading.Event = field(default_factory=threading.Event)
    """While set, nothing is delivered: flush() times out with the messages outstanding."""
    delivered: list[FakeMessage] = field(default_factory=list)
    _pending: list[FakeMessage] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def produce(
        self,
        topic: str,
        value: bytes | None = None,
        key: bytes | None = None,
        partition: int = -1,
        on_delivery: Any = None,
        timestamp: int = 0,
        headers: Any = None,
    ) -> None:
        error = self.refuse(topic, value)
        if error is not None:
            raise KafkaException(error)
        with self._lock:
            self._pending.append(FakeMessage(topic, value, key, max(partition, 0), -1, on_delivery, headers))

    def poll(self, timeout: float = 0) -> int:
        return self._deliver()

    def flush(self, timeout: float = 0) -> int:
        self._deliver()
        if self.hold.is_set():
            self.hold.wait(min(timeout, 0.05))
        with self._lock:
            return len(self._pending)

    def list_topics(self, topic: str | None = None, timeout: float = -1) -> None:
        return None

    def _deliver(self) -> int:
        if self.hold.is_set():
            return 0
        with self._lock:
            batch, self._pending = self._pending, []
        report_only_errors = bool(self.config.get("delivery.report.only.error"))
        default_callback = self.config.get("on_delivery")
        for msg in batch:
            error = self.fail(msg)
            if error is None:
                msg._offset = len(self.delivered)
                self.delivered.append(msg)
            callback = msg._callback or default_callback
            if callback is None or (error is None and report_only_errors and msg._callback is None):
                continue
            callback(error, msg)
        return len(batch)

    def values(self) -> list[str]:
        """Values of the delivered messages, decoded."""
        return [m.value().decode() if m.value() is not None else "" for m in self.delivered]  # type: ignore[union-attr]
