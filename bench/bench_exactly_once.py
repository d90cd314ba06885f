"""Exactly-once throughput against at-least-once, in the same run, on the same connector.

DataGen's columnar string records (100-byte values, polls of 1,000) go through a standalone worker
three ways: at least once (offsets in a Kafka topic, flushed every second), exactly once with
`transaction.boundary=poll` (one transaction per poll) and with `transaction.boundary=interval` at
1 s. Each run is timed two ways: from the worker's start (which, at least once, reads the offsets
topic; exactly once, each task fences its predecessor and then reads it) until its graceful stop
returned with every record committed; and from the first record produced until then (steady state).
Rounds alternate the modes so a drifting machine affects them alike; the medians are compared.
Target (issue 11): interval ≥ 0.7x at-least-once.
Run: `python -m bench.bench_exactly_once [records] [rounds]`.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.results import verdict, write_section
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.clients.gc_tuning import tune_gc_for_throughput
from connectworker.runtime.herder.standalone import StandaloneRuntime

STRING = "org.apache.kafka.connect.storage.StringConverter"
MODES = {  # label -> (worker keys, connector keys)
    "at least once": ({}, {}),
    "exactly once, transaction.boundary=poll": (
        {"exactly.once.source.support": "enabled"},
        {"transaction.boundary": "poll"},
    ),
    "exactly once, transaction.boundary=interval (1 s)": (
        {"exactly.once.source.support": "enabled"},
        {"transaction.boundary": "interval", "transaction.boundary.interval.ms": "1000"},
    ),
}
TARGET = 0.7


def run(
    bootstrap: str, workdir: Path, count: int, worker_keys: dict[str, str], connector_keys: dict[str, str]
) -> tuple[float, float]:
    """Records per second of one worker run, every record committed: (from the worker's start, from the
    first record produced)."""
    run_id = uuid.uuid4().hex[:8]
    config = WorkerConfig.from_properties(
        {
            # the record path in this process: its CPU measured, the task's counters read every millisecond
            "task.processes": "0",
            "bootstrap.servers": bootstrap,
            "offset.storage.file.filename": str(workdir / f"{run_id}.json"),
            "offset.storage.topic": f"bench-offsets-{run_id}",
            "offset.storage.partitions": "1",
            "offset.storage.replication.factor": "1",
            "key.converter": STRING,
            "value.converter": STRING,
            "offset.flush.interval.ms": "1000",
            **worker_keys,
        }
    )
    connector = parse_connector_config(
        {
            "name": f"eos-{run_id}",
            "connector.class": "DataGen",
            "topic.pattern": f"eos-{run_id}",
            "topic.count": "1",
            "records": str(count),
            "rate": "0",
            "batch.size": "1000",
            "value.size": "100",
            "format": "string",
            "seed": "1",
            **connector_keys,
        }
    )
    start = time.perf_counter()
    runtime = StandaloneRuntime(config).start()
    assert runtime.worker is not None
    runtime.worker.start_connector(connector)
    task = runtime.worker.get(connector.name).tasks[0]
    while not task.stats().produced:
        time.sleep(0.001)
    first = time.perf_counter()
    while task.stats().produced < count:
        time.sleep(0.01)
    runtime.stop()  # the final transaction or offset flush
    end = time.perf_counter()
    if task.committed_records != count:
        raise RuntimeError(f"{connector.name} committed {task.committed_records} of {count} records")
    return count / (end - start), count / (end - first)


def main(count: int = 1_000_000, rounds: int = 3) -> None:
    tune_gc_for_throughput()
    results: dict[str, list[tuple[float, float]]] = {label: [] for label in MODES}
    with EmbeddedBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):
            for label, (worker_keys, connector_keys) in MODES.items():
                results[label].append(run(broker.bootstrap_servers, Path(tmp), count, worker_keys, connector_keys))

    def median(label: str, field: int) -> float:
        return statistics.median(r[field] for r in results[label])

    rows = [
        "| delivery | records/s from start | x at least once | records/s from the first record "
        "(rounds) | x at least once |",
        "|---|---:|---:|---|---:|",
    ]
    for label, rates in results.items():
        rows.append(
            f"| {label} | {median(label, 0):,.0f} | {median(label, 0) / median('at least once', 0):.2f} | "
            f"{median(label, 1):,.0f} ({', '.join(f'{r[1]:,.0f}' for r in rates)}) | "
            f"{median(label, 1) / median('at least once', 1):.2f} |"
        )
    interval_label = "exactly once, transaction.boundary=interval (1 s)"
    interval = median(interval_label, 1) / median("at least once", 1)
    from_start = median(interval_label, 0) / median("at least once", 0)
    body = (
        f"{count:,} DataGen records (100-byte string values, polls of 1,000) per run, {rounds} rounds, "
        f"embedded Tansu broker, offsets in a Kafka topic for every mode.\n\n"
        + "\n".join(rows)
        + f"\n\nTarget interval ≥ {TARGET}x at least once (steady state): {verdict(interval, TARGET)} "
        f"({interval:.2f}x; from the worker's start {from_start:.2f}x).\n"
        f"Command: `python -m bench.bench_exactly_once {count} {rounds}`"
    )
    write_section("Exactly-once throughput", body)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
