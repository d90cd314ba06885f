"""What a source task hands the worker, and what the worker hands back once Kafka has acknowledged it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from connectworker.api.schema import Schema

SourcePartition = dict[str, Any]
SourceOffset = dict[str, Any]
Headers = list[tuple[str, bytes | str | None]]


@dataclass(slots=True)
class SourceRecord:
    """One record produced by a source task.

    `source_partition` identifies the stream in the external system (e.g. ``{"filename": "a.txt"}``)
    and `source_offset` the position in it after this record (e.g. ``{"position": 120}``). Both must be
    JSON-serialisable: they are stored in the offsets file and read back when a task restarts.
    """

    source_partition: SourcePartition | None
    source_offset: SourceOffset | None
    topic: str
    value: Any
    key: Any = None
    partition: int | None = None
    value_schema: Schema | None = None
    key_schema: Schema | None = None
    timestamp: int | None = None
    headers: Headers = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RecordMetadata:
    """Where Kafka stored an acknowledged record."""

    topic: str
    partition: int
    offset: int
    timestamp: int | None = None
