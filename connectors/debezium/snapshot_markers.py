"""Debezium's `source.snapshot` markers on a snapshot's records, for a snapshot read in batches of one
table's rows: `first` on the snapshot's first record, `last` on its last, `first_in_data_collection` /
`last_in_data_collection` on each table's first and last, `true` on the others (Debezium 2.x).

Whether a record ends its table, or the snapshot, is known only once the next batch is read: each batch's
last record is held back until then.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from connectworker.api.record import SourceRecord


def snapshot_marker(*, first: bool, last: bool, first_in_table: bool, last_in_table: bool) -> str:
    if last:
        return "last"
    if first:
        return "first"
    if last_in_table:
        return "last_in_data_collection"
    if first_in_table:
        return "first_in_data_collection"
    return "true"


class SnapshotMarkers:
    """Marks the records of one snapshot, batch by batch (each record's value a Debezium envelope)."""

    def __init__(self) -> None:
        self._held: tuple[SourceRecord, bool, bool, Hashable] | None = None  # (record, first, first_in_table, table)
        self._table: Hashable | None = None
        self._started = False

    def batch(self, table: Hashable, records: Sequence[SourceRecord]) -> list[SourceRecord]:
        """The records ready to hand on once a batch of `table`'s rows (`records`, not empty) is read: the one
        held back from the batch before, then all of these but the last, which is held back in turn."""
        out = self._release(last=False, next_table=table)
        starts, table_starts = not self._started, table != self._table
        self._started, self._table = True, table
        for number, record in enumerate(records):
            first, first_in_table = starts and number == 0, table_starts and number == 0
            if number == len(records) - 1:
                self._held = (record, first, first_in_table, table)
            else:
                _mark(
                    record, snapshot_marker(first=first, last=False, first_in_table=first_in_table, last_in_table=False)
                )
                out.append(record)
        return out

    def finish(self) -> SourceRecord | None:
        """The snapshot's last record, marked `last`; None for a snapshot without rows."""
        out = self._release(last=True, next_table=None)
        return out[0] if out else None

    def _release(self, *, last: bool, next_table: Hashable | None) -> list[SourceRecord]:
        if self._held is None:
            return []
        record, first, first_in_table, table = self._held
        self._held = None
        ends_table = last or next_table != table
        _mark(record, snapshot_marker(first=first, last=last, first_in_table=first_in_table, last_in_table=ends_table))
        return [record]


def _mark(record: SourceRecord, marker: str) -> None:
    record.value["source"]["snapshot"] = marker
