"""Topics deleted while a task writes to them: which records to re-send, and until when.

A topic deleted at run time fails the task's in-flight records, first with "unknown topic" (or, for a
record the producer had already placed, "unknown partition": its partition vanished with the topic)
and then, while it is being re-created, with other errors. When topic creation is on, the task
re-creates the topic and re-sends those records until `topic.creation.timeout.ms` has passed since the
topic first went missing; when it is off, or the deadline passes, the task fails saying which.

"Unknown partition" means a vanished topic only for a record the producer placed itself: its
partitioner picks among the partitions the topic had. A record pinned by its task to a partition the
topic does not have gets the same error, and fails the task (re-sending it could never succeed).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import TYPE_CHECKING

from confluent_kafka import KafkaError, Message

from connectworker.api.errors import ConnectError
from connectworker.topics.admin import MISSING_CODES

if TYPE_CHECKING:  # a type only: the task's record path uses this room, not the other way round
    from connectworker.runtime.tasks.submitted_records import RecordAck

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
        # Filled by delivery reports, drained by the task thread (deque ops are thread-safe): the
        # record's callback, the message, whether its topic looked gone, whether its partition is pinned.
        self.resend: deque[tuple[RecordAck | None, Message, bool, bool]] = deque()

    def _deadline(self, topic: str, now: float) -> float:
        with self._lock:
            return self._deadlines.setdefault(topic, now + self._timeout_s)

    def retry_later(self, callback: RecordAck | None, err: KafkaError, msg: Message, *, pinned: bool) -> bool:
        """Queue a failed record for re-sending if its topic is (being) re-created; False otherwise.
        `pinned`: the task chose the record's partition (the producer's partitioner did not)."""
        if not self._recreates:
            return False
        topic = msg.topic()
        assert topic is not None  # a produced message always names its topic
        code = err.code()
        unknown = code in MISSING_CODES or (code == KafkaError._UNKNOWN_PARTITION and not pinned)
        now = time.monotonic()
        with self._lock:
            recovering = unknown or topic in self._deadlines
            if not recovering:
                return False
            deadline = self._deadlines.setdefault(topic, now + self._timeout_s)
        if now < deadline:
            self.resend.append((callback, msg, unknown, pinned))
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
                f"Topic {topic!r} vanished while in use and was still not usable after topic.creation.timeout.ms "
                f"({self._timeout_s * 1000:.0f} ms): check that the broker can create it (the worker log says "
                f"what it answered), or raise topic.creation.timeout.ms"
            )

    def expire(self) -> None:
        """Forget deadlines that have passed (a topic deleted again later gets a fresh one)."""
        now = time.monotonic()
        with self._lock:
            self._deadlines = {t: d for t, d in self._deadlines.items() if d > now}
