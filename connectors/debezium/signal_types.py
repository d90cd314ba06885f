"""The values that pass between the incremental-snapshot machinery's parts: a signal as a channel reads it,
a notification as the snapshot raises it, and the progress an operator sees."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from connectworker.api.operator import SnapshotProgress

__all__ = ["Notification", "Signal", "SnapshotProgress"]


@dataclass(frozen=True)
class Signal:
    """A signal as Debezium's `SignalRecord`: its id (may be None from Kafka), type, data (the JSON text of an
    object, or None) and the channel it came from (`source`, `kafka`, `file`)."""

    id: str | None
    type: str
    data: str | None
    channel: str
    position: Any = None  # where the channel is once this signal is acted on (Kafka: the next offset to read)


@dataclass(frozen=True)
class Notification:
    """Debezium's `io.debezium.pipeline.notification.Notification`."""

    id: str
    aggregate_type: str  # "Incremental Snapshot" or "Initial Snapshot"
    type: str  # STARTED, PAUSED, RESUMED, ABORTED, IN_PROGRESS, TABLE_SCAN_COMPLETED, COMPLETED, SKIPPED
    additional_data: dict[str, str] = field(default_factory=dict)
    timestamp: int = 0  # epoch ms
