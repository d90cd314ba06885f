"""The values that pass between the incremental-snapshot machinery's parts: a signal as a channel reads it,
a notification as the snapshot raises it, and the progress an operator sees."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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


@dataclass(frozen=True)
class SnapshotProgress:
    """What an operator sees of a running incremental snapshot (REST status, /ui, /metrics); Debezium's
    snapshot metrics' names in the comments."""

    running: bool = False  # SnapshotRunning
    paused: bool = False  # SnapshotPaused
    kind: str = "incremental"  # incremental | blocking
    table: str | None = None  # the collection in progress
    tables_remaining: int = 0  # RemainingTableCount
    total_tables: int = 0  # TotalTableCount
    chunk_id: str | None = None  # ChunkId
    chunk_from: str | None = None  # ChunkFrom
    chunk_to: str | None = None  # ChunkTo
    table_from: str | None = None  # TableFrom
    table_to: str | None = None  # TableTo (the maximum key)
    rows_scanned: dict[str, int] = field(default_factory=dict)  # RowsScanned, by table
    rows_sent: int = 0  # rows of the current table sent so far
