"""The `/metrics` gauges of a snapshot a task reports in its progress document (`task_progress.py`), named
after Debezium's snapshot metrics (MBean `debezium.<connector>:type=connector-metrics,context=snapshot`):
`SnapshotRunning`, `SnapshotPaused`, `RowsScanned` (by table), `RemainingTableCount`, `TotalTableCount`,
and `ChunkId`, `ChunkFrom`, `ChunkTo`, `TableFrom`, `TableTo` as the labels of one info metric. A task's
series exist while it reports a snapshot; none are written while no task does."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily, Metric

from connectworker.api.operator import SnapshotProgress


def snapshot_families(
    snapshots: Iterable[tuple[Sequence[str], SnapshotProgress | None]], prefix: str, task_labels: list[str]
) -> Iterator[Metric]:
    """The gauges of the tasks' snapshots (each with its values of `task_labels`: connector, task; None for a
    task reporting none); nothing when none snapshots."""

    def gauge(name: str, doc: str, extra: Sequence[str] = ()) -> GaugeMetricFamily:
        return GaugeMetricFamily(f"{prefix}snapshot_{name}", doc, labels=[*task_labels, *extra])

    running = gauge("running", "1 while the task's snapshot runs (Debezium SnapshotRunning).")
    paused = gauge("paused", "1 while the task's snapshot is paused (Debezium SnapshotPaused).")
    rows = gauge("rows_scanned", "Rows the snapshot read so far, by table (Debezium RowsScanned).", ["table"])
    remaining = gauge("remaining_table_count", "Tables the snapshot has still to read (Debezium RemainingTableCount).")
    total = gauge("total_table_count", "Tables the snapshot reads in all (Debezium TotalTableCount).")
    chunk = InfoMetricFamily(
        f"{prefix}snapshot_chunk",
        "The chunk the snapshot reads now (Debezium ChunkId, ChunkFrom, ChunkTo, TableFrom, TableTo); "
        "a label is empty while it has no value.",
        labels=task_labels,
    )
    any_snapshot = False
    for task_values, snapshot in snapshots:
        if snapshot is None:
            continue
        any_snapshot = True
        labels = list(task_values)
        running.add_metric(labels, 1 if snapshot.running else 0)
        paused.add_metric(labels, 1 if snapshot.paused else 0)
        for table, count in sorted(snapshot.rows_scanned.items()):
            rows.add_metric([*labels, table], count)
        remaining.add_metric(labels, snapshot.tables_remaining)
        total.add_metric(labels, snapshot.total_tables)
        chunk.add_metric(
            labels,
            {
                "kind": snapshot.kind,
                "table": snapshot.table or "",
                "chunk_id": snapshot.chunk_id or "",
                "chunk_from": snapshot.chunk_from or "",
                "chunk_to": snapshot.chunk_to or "",
                "table_from": snapshot.table_from or "",
                "table_to": snapshot.table_to or "",
            },
        )
    if any_snapshot:
        yield from (running, paused, rows, remaining, total, chunk)
