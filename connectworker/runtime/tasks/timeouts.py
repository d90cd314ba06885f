"""The worker's time bounds a task runs under."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TaskTimeouts:
    offset_flush_interval_s: float
    offset_flush_timeout_s: float
    topic_creation_timeout_s: float = 30.0
