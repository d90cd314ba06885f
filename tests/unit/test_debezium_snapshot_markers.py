"""Debezium's `source.snapshot` markers over a snapshot read in batches (connectors/debezium/snapshot_markers.py):
first, first and last of each table, last; each batch's last record held back until the next is read."""

from __future__ import annotations

from connectworker.api.record import SourceRecord
from connectworker.connectors.debezium.snapshot_markers import SnapshotMarkers


def records(table: str, *ids: int) -> list[SourceRecord]:
    return [SourceRecord({"server": "s"}, {}, table, {"id": i, "source": {"snapshot": None}}) for i in ids]


def test_markers_across_batches_and_tables() -> None:
    markers = SnapshotMarkers()
    out = markers.batch("a", records("a", 1, 2))
    out += markers.batch("a", records("a", 3))  # a's second batch: 2 is not its table's last
    out += markers.batch("b", records("b", 4, 5))  # 3 was a's last
    out += markers.batch("c", records("c", 6))  # a table of one row: 6 is first and last of c
    last = markers.finish()
    assert last is not None
    out.append(last)
    assert [(r.value["id"], r.value["source"]["snapshot"]) for r in out] == [
        (1, "first"),
        (2, "true"),
        (3, "last_in_data_collection"),
        (4, "first_in_data_collection"),
        (5, "last_in_data_collection"),
        (6, "last"),
    ]


def test_a_snapshot_without_rows_has_no_last_record() -> None:
    assert SnapshotMarkers().finish() is None
