"""Where the first micro-batch's latency goes on Spark `local[2]`, and Spark's own floor for it.

Two kinds of run, each in a fresh process (a new JVM, as `connectworker spark` has), alternated for
`--rounds` rounds so both see the same machine:

- `engine`: `SparkEngine` with the DataGen connector (2 tasks, topic creation on, offsets in a file),
  exactly what `connectworker spark` runs. Seconds from the session being up to: `start()` returned
  (queries started), the first micro-batch's trigger, and the first offsets commit.
- `floor`: the smallest query on the same design: a Python streaming source whose `read()` yields one
  row per partition and a Python sink whose `commit()` writes the time, nothing imported but PySpark
  and pyarrow, on a session opened the same way (`open_session`). What Spark itself costs before a
  first commit: the planning steps and runners it starts as Python processes one after the other.

Prints each run; writes the medians to the `spark first commit` section of bench/results.md.

    python -m bench.spark_first_batch_timeline [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import (
    DataSource,
    DataSourceStreamArrowWriter,
    DataSourceStreamReader,
    InputPartition,
    WriterCommitMessage,
)

from bench.bench_spark import STRING_CONVERTER, connector
from bench.results import write_section

COMMIT_FILE_ENV = "CONNECTWORKER_FLOOR_COMMITS"


class FloorReader(DataSourceStreamReader):
    def initialOffset(self) -> dict[str, int]:
        return {"batch": 0}

    def latestOffset(self, start: dict[str, int] | None = None, limit: Any = None) -> dict[str, int]:
        return {"batch": (start or {"batch": 0})["batch"] + 1}

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> list[InputPartition]:
        return [InputPartition(i) for i in range(2)]

    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        yield pa.RecordBatch.from_pylist([{"value": 1}])


class FloorWriter(DataSourceStreamArrowWriter):
    def write(self, iterator: Iterator[pa.RecordBatch]) -> WriterCommitMessage:
        for _ in iterator:
            pass
        return WriterCommitMessage()

    def commit(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        with open(os.environ[COMMIT_FILE_ENV], "a") as out:
            out.write(f"{time.time()}\n")

    def abort(self, messages: list[WriterCommitMessage | None], batchId: int) -> None:
        return None


class Floor(DataSource):
    @classmethod
    def name(cls) -> str:
        return "floor"

    def schema(self) -> str:
        return "value BIGINT"

    def streamReader(self, schema: Any) -> FloorReader:
        return FloorReader()

    def streamWriter(self, schema: Any, overwrite: bool) -> FloorWriter:
        return FloorWriter()


def session_properties(work: Path, bootstrap: str) -> dict[str, str]:
    return {"bootstrap.servers": bootstrap, "key.converter": STRING_CONVERTER, "value.converter": STRING_CONVERTER,
            "topic.creation.enable": "true", "spark.master": "local[2]", "spark.trigger.interval.ms": "2000",
            "spark.checkpoint.location": str(work / "checkpoints"), "spark.conf.spark.ui.enabled": "false",
            "spark.conf.spark.driver.host": "127.0.0.1", "offset.storage.file.filename": str(work / "offsets.json")}


def run_floor(work: Path) -> dict[str, float]:
    from connectworker.config.worker_config import WorkerConfig
    from connectworker.spark.session import open_session

    commits = work / "commits"
    os.environ[COMMIT_FILE_ENV] = str(commits)
    spark, _ = open_session(WorkerConfig.from_properties(session_properties(work, "127.0.0.1:9")), work)
    up = time.time()
    try:
        spark.dataSource.register(Floor)
        query = (spark.readStream.format("floor").schema("value BIGINT").load().writeStream.format("floor")
                 .option("checkpointLocation", str(work / "checkpoints"))
                 .trigger(processingTime="2000 milliseconds").start())
        started = time.time()
        while not commits.exists():
            if not query.isActive:
                raise RuntimeError(f"the floor query stopped: {query.exception()}")
            time.sleep(0.02)
        first_commit = float(commits.read_text().split()[0])
        query.stop()
    finally:
        spark.stop()
    return {"queries started": started - up, "first commit": first_commit - up}


def run_engine(work: Path) -> dict[str, float]:
    from connectworker.config.connector_config import parse_connector_config
    from connectworker.embedded_broker import EmbeddedBroker
    from connectworker.spark.engine import SparkEngine
    from connectworker.spark.worker_settings import load_spark_worker

    with EmbeddedBroker() as broker:
        offsets = work / "offsets.json"
        worker_file = work / "worker.properties"
        worker_file.write_text("".join(f"{k}={v}\n" for k, v in session_properties(work, broker.bootstrap_servers)
                                       .items()))
        engine = SparkEngine(load_spark_worker(worker_file),
                             [parse_connector_config(connector("timeline", "timeline", 2, 200_000, 100))])
        try:
            engine.start()
            started = time.monotonic()
            while not offsets.exists():
                time.sleep(0.02)
            committed = time.monotonic()
            time.sleep(3)
            progress = engine.queries[0].query.recentProgress[:2]
        finally:
            engine.stop()
    assert engine.session_ready is not None
    up, up_wall = engine.session_ready, time.time() - (time.monotonic() - engine.session_ready)
    first_trigger = datetime.fromisoformat(progress[0]["timestamp"].replace("Z", "+00:00")).timestamp()
    for p in progress:
        print(f"  micro-batch {p['batchId']}: {p['numInputRows']} rows, durationMs {json.dumps(p['durationMs'])}",
              file=sys.stderr)
    return {"queries started": started - up, "first trigger": first_trigger - up_wall, "first commit": committed - up}


RUNS = {"floor": run_floor, "engine": run_engine}


def one(kind: str) -> None:
    """Run one `kind` in this process; print its figures as JSON on the last line of stdout."""
    with tempfile.TemporaryDirectory() as tmp:
        figures = RUNS[kind](Path(tmp))
    print(json.dumps(figures))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one", choices=sorted(RUNS), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        one(args.one)
        return
    results: dict[str, list[dict[str, float]]] = {kind: [] for kind in RUNS}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [os.getcwd(), os.environ.get("PYTHONPATH")]))}
    for round_ in range(args.rounds):
        for kind in RUNS:
            done = subprocess.run([sys.executable, "-m", "bench.spark_first_batch_timeline", "--one", kind],
                                  capture_output=True, text=True, env=env, check=False)
            if done.returncode != 0:
                raise SystemExit(f"{kind} run failed:\n{done.stderr[-3000:]}")
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            results[kind].append(figures)
            print(f"round {round_ + 1} {kind:6}: " + ", ".join(f"{k} {v:.2f} s" for k, v in figures.items()))
    write_section("spark first commit", report(results, args.rounds))


def report(results: dict[str, list[dict[str, float]]], rounds: int) -> str:
    def median(kind: str, key: str) -> str:
        values = [r[key] for r in results[kind] if key in r]
        return f"{statistics.median(values):.2f} s" if values else ""

    def every(kind: str) -> str:
        return ", ".join(f"{r['first commit']:.2f}" for r in results[kind])

    floor, engine = (statistics.median(r["first commit"] for r in results[k]) for k in ("floor", "engine"))
    return "\n".join([
        f"`python -m bench.spark_first_batch_timeline --rounds {rounds}`: seconds from the Spark session being up "
        "(`local[2]`, each run in a new process and JVM, the two kinds alternated) to the first offsets commit. "
        "*floor*: a Python streaming source yielding one row per partition into a Python sink whose commit "
        "writes a timestamp (nothing imported but PySpark and pyarrow); *engine*: `SparkEngine` with DataGen, "
        "2 tasks, topic creation on, offsets in a file, as `connectworker spark` runs.",
        "",
        "| run | queries started | first trigger | first commit (median) | first commit, every round |",
        "|---|---:|---:|---:|---|",
        f"| floor (Spark alone) | {median('floor', 'queries started')} |  | {median('floor', 'first commit')} "
        f"| {every('floor')} |",
        f"| engine (`connectworker spark`) | {median('engine', 'queries started')} | "
        f"{median('engine', 'first trigger')} | {median('engine', 'first commit')} | {every('engine')} |",
        "",
        f"connectworker's own share of the first commit: {engine - floor:.2f} s ({engine / floor:.2f}x the floor). "
        "Target: first commit <= 5 s after the session is up.",
    ])


if __name__ == "__main__":
    main()
