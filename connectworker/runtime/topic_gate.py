"""The interface between the record path and topic creation.

Before a task produces to topics it has not used yet, it asks a `TopicGate` to make them ready. The
gate created for a connector decides what "ready" means: with topic creation off it only notes the
topics (the broker's auto-create applies); with it on, it checks and creates them (topics/creation.py).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Protocol

from connectworker.api.task import SourceTask


class TopicGate(Protocol):
    def ensure(self, topics: Collection[str], task: SourceTask, task_name: str) -> None:
        """Return once `topics` may be produced to; raise ConnectError if one can never be."""
        ...

    def forget(self, topic: str) -> None:
        """`topic` vanished (e.g. deleted at run time): check it again on next use."""
        ...

    @property
    def recreates_missing_topics(self) -> bool:
        """Whether a record that met 'unknown topic' should be re-sent after `ensure` again."""
        ...
