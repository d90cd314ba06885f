"""Change records a stream has made but not handed on yet: the columnar batches of both CDC connectors.

A poll of a backlog is thousands of changes of one table. Each is kept as one tuple (offset, key, value,
route: its topic and schemas), and a poll's tuples are turned into columns at once (`zip`), handed on as
a `SourceRecordBatch`: no `SourceRecord` object is made per record, nor read back by the worker. A poll
that mixes tables, tombstones or heartbeats is handed on as `SourceRecord`s, as the worker needs it.
"""

from __future__ import annotations

from itertools import repeat
from operator import is_
from typing import Any

from connectworker.api.record import SourceRecord, SourceRecordBatch

from .routes import Route

Pending = tuple[dict[str, Any], Any, Any, Route]
"""One record: its offset, key, value and route."""


class PendingRecords:
    __slots__ = ("records",)

    def __init__(self) -> None:
        self.records: list[Pending] = []

    def __len__(self) -> int:
        return len(self.records)

    def move_to(self, other: PendingRecords) -> None:
        """Append every record to `other`, in order, and forget them here."""
        other.records += self.records
        self.records = []

    def clear(self) -> None:
        self.records = []

    def take(self, count: int, partition: dict[str, Any]) -> list[SourceRecord] | SourceRecordBatch:
        """The first `count` records (all if fewer), removed from here: a `SourceRecordBatch` when there
        are two or more and they share one route with a value schema (no tombstone), else records."""
        if count >= len(self.records):
            taken, self.records = self.records, []
        else:
            taken = self.records[:count]
            del self.records[:count]
        size = len(taken)
        if size >= 2:
            offsets, keys, values, routes = map(list, zip(*taken, strict=True))
            first = routes[0]
            topic, key_schema, value_schema, headers = first
            if value_schema is not None and not headers and all(map(is_, routes, repeat(first, size))):
                return SourceRecordBatch(
                    partition, offsets, [topic] * size, keys, values, key_schema=key_schema, value_schema=value_schema
                )
        return [
            SourceRecord(
                partition, offset, route[0], value, key, key_schema=route[1], value_schema=route[2], headers=[*route[3]]
            )
            for offset, key, value, route in taken
        ]
