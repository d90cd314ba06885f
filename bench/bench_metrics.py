"""What the worker's metrics cost, in the same run: recorded and scraped vs not recorded at all.

DataGen's columnar string records (100-byte values, polls of 1,000: the worker's fastest path, where a
per-record cost shows most) go through a standalone worker. "on" is the worker as shipped, with a
scraper reading `/metrics`' body every 0.25 s (far more often than Prometheus would); "off" replaces
what the record path records (the per-poll and per-commit histogram observations, the per-poll byte
count) with nothing, and nobody scrapes. Rounds alternate the two; medians are compared.
Target (issue 12): on ≥ 0.95x off (metrics cost at most 5%).
Run: `python -m bench.bench_metrics [records] [rounds]`.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

from bench.results import ratio_table, verdict, write_section
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.clients.gc_tuning import tune_gc_for_throughput
from connectworker.runtime.herder.standalone import StandaloneRuntime
from connectworker.runtime.observability.task_metrics import TaskMetrics
from connectworker.runtime.tasks import record_sending

TARGET = 0.95
SCRAPE_EVERY_S = 0.25


@contextmanager
def recording_off() -> Iterator[None]:
    with (
        mock.patch.object(TaskMetrics, "polled", lambda self, seconds, records: None),
        mock.patch.object(TaskMetrics, "committed", lambda self, seconds: None),
        mock.patch.object(record_sending, "_byte_count", lambda chunks: 0),
    ):
        yield


def run(bootstrap: str, workdir: Path, count: int, metrics: bool) -> tuple[float, int]:
    """Records per second of one run (connector start to graceful stop, every record committed) and how
    many scrapes were served meanwhile."""
    run_id = uuid.uuid4().hex[:8]
    config = WorkerConfig.from_properties(
        {
            # the record path in this process: its CPU measured, the task's counters read every millisecond
            "task.processes": "0",
            "bootstrap.servers": bootstrap,
            "offset.storage.file.filename": str(workdir / f"{run_id}.json"),
            "offset.flush.interval.ms": "1000",
        }
    )
    runtime = StandaloneRuntime(config).start()
    assert runtime.worker is not None
    connector = parse_connector_config(
        {
            "name": f"metrics-{run_id}",
            "connector.class": "DataGen",
            "topic.pattern": f"metrics-{run_id}",
            "topic.count": "1",
            "records": str(count),
            "rate": "0",
            "batch.size": "1000",
            "value.size": "100",
            "format": "string",
            "seed": "1",
        }
    )
    done = threading.Event()
    scrapes = 0

    def scrape() -> None:
        nonlocal scrapes
        while not done.wait(SCRAPE_EVERY_S):
            runtime.metrics.exposition()
            scrapes += 1

    scraper = threading.Thread(target=scrape, daemon=True)
    start = time.perf_counter()
    runtime.worker.start_connector(connector)
    if metrics:
        scraper.start()
    task = runtime.worker.get(connector.name).tasks[0]
    while task.stats().produced < count:
        time.sleep(0.01)
    runtime.stop()
    elapsed = time.perf_counter() - start
    done.set()
    if metrics:
        scraper.join()
    if task.committed_records != count:
        raise RuntimeError(f"{connector.name} committed {task.committed_records} of {count} records")
    return count / elapsed, scrapes


def main(count: int = 1_000_000, rounds: int = 3) -> None:
    tune_gc_for_throughput()
    results: dict[str, list[float]] = {"off": [], "on": []}
    scraped: list[int] = []
    with EmbeddedBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):
            with recording_off():
                results["off"].append(run(broker.bootstrap_servers, Path(tmp), count, metrics=False)[0])
            rate, scrapes = run(broker.bootstrap_servers, Path(tmp), count, metrics=True)
            results["on"].append(rate)
            scraped.append(scrapes)
    table, ratio = ratio_table("metrics", results, "off")
    body = (
        f"{count:,} DataGen records (100-byte string values, polls of 1,000) per run, {rounds} rounds, "
        f"embedded Tansu broker. on: histograms and byte counts recorded, `/metrics` rendered every "
        f"{SCRAPE_EVERY_S} s ({', '.join(map(str, scraped))} scrapes per run); off: nothing recorded, "
        f"nothing scraped.\n\n" + table + f"\n\nTarget on ≥ {TARGET}x off: {verdict(ratio, TARGET)} ({ratio:.2f}x).\n"
        f"Command: `python -m bench.bench_metrics {count} {rounds}`"
    )
    write_section("Metrics cost", body)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
