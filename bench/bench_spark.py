"""Records/s of the same DataGen connector on Spark (`local[2]`) and on the standalone worker.

Both runs write the same records (tasks x records per task, string values of `value.size` bytes,
`topic.count` topics, topic creation on) to the same broker, in the same process, one after the
other, and count a record once its source offset is committed (so both figures are acknowledged
throughput, not just produced). The Spark figure is measured from the query's start; the session's
own start-up is reported apart. Results go to the `spark` section of bench/results.md.

    python -m bench.bench_spark [--records 1000000] [--tasks 2] [--batch-ms 2000]

Uses the broker named by CONNECTWORKER_BENCH_BOOTSTRAP, else starts the embedded Tansu broker.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka.admin import AdminClient

from bench.results import write_section
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.offset_backing_store import read_committed
from connectworker.runtime.offset_store import FileOffsetStore
from connectworker.runtime.standalone import StandaloneRuntime
from connectworker.spark.drain import DrainSignal

STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"


@dataclass
class Run:
    mode: str
    records: int
    seconds: float
    first_commit_s: float
    first_commit_records: int
    note: str = ""

    @property
    def rate(self) -> float:
        return self.records / self.seconds

    @property
    def steady_rate(self) -> float:
        """Records/s after the first commit: start-up (and, on Spark, Python worker start) excluded."""
        span = self.seconds - self.first_commit_s
        return (self.records - self.first_commit_records) / span if span > 0 else float("nan")


def connector(name: str, topic_prefix: str, tasks: int, records: int, value_size: int) -> dict[str, str]:
    return {"name": name, "connector.class": "DataGen", "tasks.max": str(tasks),
            "topic.pattern": topic_prefix + ".{n}", "topic.count": "3", "records": str(records), "rate": "0",
            "batch.size": "500", "value.size": str(value_size), "seed": "1",
            "key.converter": STRING_CONVERTER, "value.converter": STRING_CONVERTER,
            "topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "2"}


def wait_for(total: int, committed: Callable[[], int], timeout_s: float) -> tuple[float, int, float]:
    """Seconds until the first commit, records committed then, and seconds until all `total` are."""
    start = time.monotonic()
    first: tuple[float, int] | None = None
    while True:
        done = committed()
        now = time.monotonic() - start
        if first is None and done > 0:
            first = (now, done)
        if done >= total:
            first = first or (now, done)
            return first[0], first[1], now
        if now > timeout_s:
            raise RuntimeError(f"only {done} of {total} records committed after {timeout_s:.0f}s")
        time.sleep(0.05)


def run_standalone(bootstrap: str, work: Path, props: dict[str, str], total: int) -> Run:
    config = WorkerConfig.from_properties({
        "bootstrap.servers": bootstrap, "offset.storage.file.filename": str(work / "standalone.offsets"),
        "offset.flush.interval.ms": "500", "topic.creation.enable": "true"})
    with StandaloneRuntime(config) as runtime:
        assert runtime.worker is not None
        runtime.worker.start_connector(parse_connector_config(props))
        running = runtime.worker.get(props["name"])
        first, first_records, seconds = wait_for(
            total, lambda: sum(t.committed_records for t in running.tasks), 600)
    return Run("standalone (one process, a thread per task)", total, seconds, first, first_records)


def run_spark(bootstrap: str, work: Path, props: dict[str, str], total: int, batch_ms: int) -> tuple[Run, float]:
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from connectworker.spark import register

    started = time.monotonic()
    spark = (SparkSession.builder.master("local[2]").appName("bench-spark")
             .config("spark.ui.enabled", "false").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    register(spark)
    session_s = time.monotonic() - started
    offsets = work / "spark.offsets"
    drain = DrainSignal(work / "drain")
    storage_options = {"offset.storage.file.filename": str(offsets), "kafka.bootstrap.servers": bootstrap}
    storage = FileOffsetStore(offsets, shared=True)
    try:
        query = (spark.readStream.format("connect-source")
                 .options(**props, **storage_options, **{"topic.creation.enable": "true",
                                                         "microbatch.max.ms": str(batch_ms),
                                                         "connectworker.drain.file": str(drain.path)}).load()
                 .writeStream.format("connect-kafka").options(**storage_options)
                 .option("checkpointLocation", str(work / "checkpoint")).start())

        def committed() -> int:
            if not query.isActive:
                raise RuntimeError(f"query stopped: {query.exception()}")
            return sum(o["seq"] for o in read_committed(storage, props["name"]).values()) if offsets.exists() else 0

        first, first_records, seconds = wait_for(total, committed, 900)
        drain.request()  # stop between micro-batches, as `connectworker spark` does
        drain.wait(60)
        batches = (query.lastProgress or {}).get("batchId", 0) + 1
        query.stop()
    finally:
        spark.stop()
    note = f"{batches} micro-batches of up to {batch_ms} ms per task"
    return Run("Spark local[2] (connect-source → connect-kafka)", total, seconds, first, first_records,
               note), session_s


def report(runs: list[Run], session_s: float, tasks: int, per_task: int, value_size: int) -> str:
    lines = [f"DataGen, {tasks} tasks x {per_task:,} records, {value_size}-byte string values, 3 topics "
             f"(created by rule), acks=all; a record counts once its source offset is committed.", "",
             "| mode | records | seconds | records/s | first commit after | records/s after it | notes |",
             "|---|---:|---:|---:|---:|---:|---|"]
    for r in runs:
        lines.append(f"| {r.mode} | {r.records:,} | {r.seconds:.1f} | {r.rate:,.0f} | {r.first_commit_s:.1f} s "
                     f"| {r.steady_rate:,.0f} | {r.note} |")
    standalone, spark = runs
    lines += ["", f"Spark / standalone: {spark.rate / standalone.rate:.2f}x overall, "
                  f"{spark.steady_rate / standalone.steady_rate:.2f}x after the first commit. The Spark "
                  f"session itself took {session_s:.1f} s to start (not included above)."]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1_000_000, help="records per task")
    parser.add_argument("--tasks", type=int, default=2)
    parser.add_argument("--value-size", type=int, default=100)
    parser.add_argument("--batch-ms", type=int, default=2_000, help="microbatch.max.ms on Spark")
    args = parser.parse_args()
    total = args.records * args.tasks
    named = os.environ.get("CONNECTWORKER_BENCH_BOOTSTRAP")
    broker = None if named else EmbeddedBroker().start()
    bootstrap = named or broker.bootstrap_servers  # type: ignore[union-attr]
    admin = AdminClient({"bootstrap.servers": bootstrap})
    try:
        with tempfile.TemporaryDirectory(prefix="bench-spark-") as tmp:
            work = Path(tmp)
            tag = uuid.uuid4().hex[:6]
            runs = []
            for mode in ("standalone", "spark"):
                prefix = f"bench-{mode}-{tag}"
                props = connector(f"bench-{mode}-{tag}", prefix, args.tasks, args.records, args.value_size)
                if mode == "standalone":
                    runs.append(run_standalone(bootstrap, work, props, total))
                else:
                    spark_run, session_s = run_spark(bootstrap, work, props, total, args.batch_ms)
                    runs.append(spark_run)
                for future in admin.delete_topics([f"{prefix}.{n}" for n in range(3)]).values():
                    future.result()  # free the broker's memory before the next run
    finally:
        if broker is not None:
            broker.stop()
    body = report(runs, session_s, args.tasks, args.records, args.value_size)
    write_section('spark', body)


if __name__ == "__main__":
    main()
