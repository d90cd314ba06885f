"""Change records a stream has made but not handed on yet: the columnar batches of both CDC connectors.

A poll of a backlog is thousands of changes of one table. Each is kept as one tuple (offset, key, value,
route: its topic and schemas), and a poll's tuples are turned into columns at once (`zip`), handed on as
a `SourceRecordBatch`: no `SourceRecord` object is made per record, nor read back by the worker. A poll
that mixes tables, tombstones or heartbeats is handed on as `SourceRecord`s, as the worker needs it.
"""

from __future__ import annotations

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
        """The first `count` records (all if fewer), removed from here: a `SourceRecordBatch` when there are
        two or more and they share one route with a value schema (no tombstone), else records. A long run of
        one route ahead of others (an incremental snapshot's chunk, then its watermark and notification) is
        taken alone, as a batch: the others wait for the next take."""
        records = self.records
        size = min(count, len(records))
        if size >= 2:
            first = records[0][3]
            run = 1
            while run < size and records[run][3] is first:
                run += 1
            if first[2] is not None and not first[3] and (run == size or run >= LONG_RUN):
                taken = records[:run]
                del records[:run]
                offsets, keys, values, _routes = map(list, zip(*taken, strict=True))
                topic, key_schema, value_schema, _headers = first
                return SourceRecordBatch(
                    partition, offsets, [topic] * run, keys, values, key_schema=key_schema, value_schema=value_schema
                )
        taken = records[:size]
        del records[:size]
        return [
            SourceRecord(
                partition, offset, route[0], value, key, key_schema=route[1], value_schema=route[2], headers=[*route[3]]
            )
            for offset, key, value, route in taken
        ]


LONG_RUN = 256
"""A run of records of one route this long goes as a batch of its own, ahead of what follows it."""
