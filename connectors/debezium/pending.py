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
        one route (an incremental snapshot's chunk, a backlog of one table) is never cut into records: ahead
        of others it is taken alone, as a batch; behind a few others, those are taken first, as records, and
        the run waits for the next take."""
        records = self.records
        size = min(count, len(records))
        if size >= 2:
            first = records[0][3]
            run = _run_length(records, 0, size)
            if _batchable(first) and (run == size or run >= LONG_RUN):
                return self._batch(run, partition)
            size = _before_long_run(records, run, size)
        taken = records[:size]
        del records[:size]
        return [
            SourceRecord(
                partition, offset, route[0], value, key, key_schema=route[1], value_schema=route[2], headers=[*route[3]]
            )
            for offset, key, value, route in taken
        ]

    def _batch(self, run: int, partition: dict[str, Any]) -> SourceRecordBatch:
        records = self.records
        taken = records[:run]
        del records[:run]
        offsets, keys, values, _routes = map(list, zip(*taken, strict=True))
        topic, key_schema, value_schema, _headers = taken[0][3]
        return SourceRecordBatch(
            partition, offsets, [topic] * run, keys, values, key_schema=key_schema, value_schema=value_schema
        )


def _batchable(route: Route) -> bool:
    """A route whose records can go as one batch: with a value schema (no tombstones) and no headers."""
    return route[2] is not None and not route[3]


def _run_length(records: list[Pending], start: int, end: int) -> int:
    """How many records from `start` (before `end`) share the route of the one at `start`."""
    route = records[start][3]
    at = start + 1
    while at < end and records[at][3] is route:
        at += 1
    return at - start


def _before_long_run(records: list[Pending], start: int, size: int) -> int:
    """Where the first batchable run of LONG_RUN records or more begins after `start` (counting records past
    `size` too), or `size` when none begins before it."""
    while start < size:
        run = _run_length(records, start, min(len(records), start + LONG_RUN))
        if run >= LONG_RUN and _batchable(records[start][3]):
            return start
        start += run
    return size


LONG_RUN = 256
"""A run of records of one route this long goes as a batch of its own, ahead of what follows it."""
