"""Topics deleted while a task writes to them: which records to re-send, and until when.

A topic deleted at run time fails the task's in-flight records, first with "unknown topic" and then,
while it is being re-created, with other errors. When topic creation is on, the task re-creates the
topic and re-sends those records until `topic.creation.timeout.ms` has passed since the topic first
went missing; when it is off, or the deadline passes, the task fails saying which.
"""

from __future__ import annotations

import threading
import time
from collections import deque

from confluent_kafka import KafkaError, Message

from connectworker.api.errors import ConnectError
from connectworker.runtime.tasks.submitted_records import RecordAck
from connectworker.topics.admin import MISSING_CODES

__all__ = ["TaskFailure", "VanishedTopics"]


class TaskFailure(ConnectError):
    """The task cannot go on; the message is what its status shows."""


class VanishedTopics:
    """The deadlines of topics being made usable again and the records waiting for them.

    `retry_later` runs on whichever thread serves delivery reports; the task thread drains `resend`
    and calls `check` before re-creating a topic.
    """

    def __init__(self, connector: str, *, recreates: bool, timeout_s: float) -> None:
        self._connector = connector
        self._recreates = recreates
        self._timeout_s = timeout_s
        self._deadlines: dict[str, float] = {}
        self._lock = threading.Lock()
        # Filled by delivery reports, drained by the task thread (deque ops are thread-safe).
        self.resend: deque[tuple[RecordAck | None, Message, bool]] = deque()

    def _deadline(self, topic: str, now: float) -> float:
        with self._lock:
            return self._deadlines.setdefault(topic, now + self._timeout_s)

    def retry_later(self, callback: RecordAck | None, err: KafkaError, msg: Message) -> bool:
        """Queue a failed record for re-sending if its topic is (being) re-created; False otherwise."""
        if not self._recreates:
            return False
        topic = msg.topic()
        assert topic is not None  # a produced message always names its topic
        unknown = err.code() in MISSING_CODES
        now = time.monotonic()
        with self._lock:
            recovering = unknown or topic in self._deadlines
            deadline = self._deadlines.setdefault(topic, now + self._timeout_s)
        if recovering and now < deadline:
            self.resend.append((callback, msg, unknown))
            return True
        return False

    def check(self, topic: str) -> None:
        """Raise `TaskFailure` unless the task may still (re-)create `topic` now."""
        if not self._recreates:
            raise TaskFailure(
                f"Topic {topic!r} no longer exists and topic creation is off for connector "
                f"{self._connector}; create the topic, or enable topic creation, and restart"
            )
        now = time.monotonic()
        if now > self._deadline(topic, now):
            raise TaskFailure(
                f"Topic {topic!r} vanished while in use and was still not usable after topic.creation.timeout.ms"
            )

    def expire(self) -> None:
        """Forget deadlines that have passed (a topic deleted again later gets a fresh one)."""
        now = time.monotonic()
        with self._lock:
            self._deadlines = {t: d for t, d in self._deadlines.items() if d > now}
