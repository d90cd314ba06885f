"""How a change becomes records, for every CDC connector (Debezium's `RelationalChangeRecordEmitter`): the
rules live here once, the databases only say what changed.

- A create is one record (`op: c`), an update one (`op: u`, `before` as the database gives the old row).
- An update that changes the row's key is, as Debezium sends it, a delete (`op: d`, carrying the new key in
  the `__debezium.newkey` header) and its tombstone, then a create under the new key (carrying the old one in
  `__debezium.oldkey`). Which `skipped.operations` skip it is where Debezium's connectors differ, and so do
  these: PostgreSQL's skips each record as its own operation (`d` skips the delete and its tombstone, `c` the
  create, `u` none of them); MySQL's skips whole binlog events (`u` skips the key change, `c` and `d` none of
  it): `by_event`.
- A delete is its record and, unless `tombstones.on.delete=false`, a tombstone: the same key, a null value.
- A truncate is one record with no key and no row (`op: t`); `skipped.operations` skips it by default.
- A snapshot's row is one record (`op: r`).

Each record goes to the stream's `sink` with its route (topic, schemas, headers) and whether it is the last of
its change: the database gives records their offsets, which say where a restart resumes (a change is sent
again, or not, as a whole).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Protocol

from connectworker.api.record import SourceRecord
from connectworker.api.schema import SchemaAndValue

from .envelope import envelope
from .routes import Route
from .table_shape import TableShape

NEW_KEY_HEADER, OLD_KEY_HEADER = "__debezium.newkey", "__debezium.oldkey"  # a primary-key change's, as Debezium's


class Sink(Protocol):
    def __call__(self, route: Route, key: Any, value: Any, last: bool, /) -> None: ...


class Watcher(Protocol):
    """Sees each change about to be emitted (`row`: the after, or the before of a delete): the incremental
    snapshot's signals and window (incremental_snapshot.py)."""

    def __call__(self, sink: Sink, shape: TableShape, op: str, row: Any, key: Any, /) -> None: ...


class ChangeEmitter:
    __slots__ = ("by_event", "skipped", "tombstones", "watcher")

    def __init__(self, skipped: frozenset[str], tombstones: bool, *, by_event: bool = False) -> None:
        self.skipped, self.tombstones, self.by_event = skipped, tombstones, by_event
        self.watcher: Watcher | None = None

    def created(self, sink: Sink, shape: TableShape, new: Any, source: dict[str, Any]) -> None:
        if "c" in self.skipped:
            return
        after = shape.change_row(new)
        key = shape.change_key(new, after)
        if self.watcher is not None:
            self.watcher(sink, shape, "c", after, key)
        sink(shape.route, key, envelope(None, after, source, "c", time.time_ns()), True)

    def updated(self, sink: Sink, shape: TableShape, old: Any, new: Any, source: dict[str, Any]) -> None:
        """`old` is None where the database sends no old row (PostgreSQL without REPLICA IDENTITY FULL or a key
        change); the new row takes the values the database marks unavailable from it."""
        skipped, now = self.skipped, time.time_ns()
        if self.by_event and "u" in skipped:
            return
        before = shape.change_row(old) if old is not None else None
        after = shape.change_row(new, old)
        new_key = shape.change_key(new, after)
        old_key = shape.change_key(old, before) if before is not None else None
        watcher = self.watcher
        if shape.keyed and old_key is not None and old_key != new_key:
            deletes = self.by_event or "d" not in skipped
            creates = self.by_event or "c" not in skipped
            if watcher is not None:
                watcher(sink, shape, "d", before, old_key)
                watcher(sink, shape, "c", after, new_key)
            if deletes:
                moved_to = ((NEW_KEY_HEADER, SchemaAndValue(shape.key_schema, new_key)),)
                self._delete(sink, shape, old_key, envelope(before, None, source, "d", now), moved_to, not creates)
            if creates:
                moved_from = ((OLD_KEY_HEADER, SchemaAndValue(shape.key_schema, old_key)),)
                sink((*shape.route[:3], moved_from), new_key, envelope(None, after, source, "c", now), True)
        elif "u" not in skipped:
            if watcher is not None:
                watcher(sink, shape, "u", after, new_key)
            sink(shape.route, new_key, envelope(before, after, source, "u", now), True)

    def deleted(self, sink: Sink, shape: TableShape, old: Any, source: dict[str, Any]) -> None:
        if "d" in self.skipped:
            return
        before = shape.change_row(old)
        key = shape.change_key(old, before)
        if self.watcher is not None:
            self.watcher(sink, shape, "d", before, key)
        self._delete(sink, shape, key, envelope(before, None, source, "d", time.time_ns()), (), True)

    def truncated(self, sink: Sink, shape: TableShape, source: dict[str, Any]) -> bool:
        """A TRUNCATE of the table: False when skipped.operations leaves it out (its default)."""
        if "t" in self.skipped:
            return False
        sink(shape.truncate_route, None, envelope(None, None, source, "t", time.time_ns()), True)
        return True

    def _delete(
        self,
        sink: Sink,
        shape: TableShape,
        key: Any,
        value: dict[str, Any],
        headers: tuple[tuple[str, Any], ...],
        ends_change: bool,
    ) -> None:
        """A delete, and its tombstone unless tombstones.on.delete=false; both carry `headers`."""
        route = (*shape.route[:3], headers) if headers else shape.route
        sink(route, key, value, ends_change and not self.tombstones)
        if self.tombstones:
            tombstone = (*shape.tombstone_route[:3], headers) if headers else shape.tombstone_route
            sink(tombstone, key, None, ends_change)


def read_records(
    shape: TableShape, rows: Iterable[Any], partition: dict[str, Any], offset: dict[str, Any], source: dict[str, Any]
) -> list[SourceRecord]:
    """A snapshot batch's rows as read (`op: r`) records; each gets its own copy of `source`, where its
    `source.snapshot` marker is set (snapshot_markers.py)."""
    now = time.time_ns()
    records = []
    for values in rows:
        after = shape.row(values)
        records.append(
            SourceRecord(
                partition,
                offset,
                shape.topic,
                envelope(None, after, dict(source), "r", now),
                shape.row_key(values, after),
                key_schema=shape.key_schema,
                value_schema=shape.envelope_schema,
            )
        )
    return records
