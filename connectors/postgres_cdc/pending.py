"""Change records the stream has made but not handed on yet, kept column by column.

A poll of a backlog is thousands of changes of one table: kept as columns (offsets, keys, values and each
record's route, its topic and schemas), they are handed on as a `SourceRecordBatch` straight from the
lists, with no `SourceRecord` object made per record and none read back. A poll that mixes tables,
tombstones or heartbeats is handed on as `SourceRecord`s, as the worker needs it.
"""

from __future__ import annotations

from itertools import repeat
from operator import is_
from typing import Any

from connectworker.api.record import SourceRecord, SourceRecordBatch

from .envelope import Route


class PendingRecords:
    __slots__ = ("keys", "offsets", "routes", "values")

    def __init__(self) -> None:
        self.offsets: list[dict[str, Any]] = []
        self.keys: list[Any] = []
        self.values: list[Any] = []
        self.routes: list[Route] = []

    def __len__(self) -> int:
        return len(self.routes)

    def append(self, offset: dict[str, Any], key: Any, value: Any, route: Route) -> None:
        self.offsets.append(offset)
        self.keys.append(key)
        self.values.append(value)
        self.routes.append(route)

    def move_to(self, other: PendingRecords) -> None:
        """Append every record to `other`, in order, and forget them here."""
        other.offsets += self.offsets
        other.keys += self.keys
        other.values += self.values
        other.routes += self.routes
        self.clear()

    def clear(self) -> None:
        self.offsets, self.keys, self.values, self.routes = [], [], [], []

    def take(self, count: int, partition: dict[str, Any]) -> list[SourceRecord] | SourceRecordBatch:
        """The first `count` records (all if fewer), removed from here: a `SourceRecordBatch` when there
        are two or more and they share one route with a value schema (no tombstone), else records."""
        if count >= len(self.routes):
            offsets, keys, values, routes = self.offsets, self.keys, self.values, self.routes
            self.clear()
        else:
            offsets, keys, values, routes = (
                self.offsets[:count],
                self.keys[:count],
                self.values[:count],
                self.routes[:count],
            )
            del self.offsets[:count], self.keys[:count], self.values[:count], self.routes[:count]
        size = len(routes)
        if size >= 2:
            first = routes[0]
            topic, key_schema, value_schema = first
            if value_schema is not None and all(map(is_, routes, repeat(first, size))):
                return SourceRecordBatch(
                    partition, offsets, [topic] * size, keys, values, key_schema=key_schema, value_schema=value_schema
                )
        return [
            SourceRecord(partition, offset, route[0], value, key, key_schema=route[1], value_schema=route[2])
            for offset, key, value, route in zip(offsets, keys, values, routes, strict=True)
        ]
