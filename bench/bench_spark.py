"""Records/s and first-commit latency of the same DataGen connector on the standalone worker, on Spark
`local[2]`, and on a 2-worker Spark standalone cluster (one core each, started from the pyspark wheel).

Every run writes the same records (tasks x records per task, string values of `value.size` bytes,
`topic.count` topics, topic creation on) to the same broker, one run after the other, and counts a
record once its source offset is committed (acknowledged throughput, not just produced). The Spark
runs go through `spark_runtime`, exactly what `connectworker spark` runs (each connector task one
long-lived Spark task); their clock starts when the Spark session is up (the session's own start-up
is reported apart), so "first commit after" is the latency Spark's task placement adds. Offsets: a
file on `local[2]`, a Kafka topic on the cluster. Results go to the `spark` section of
bench/results.md; `bench/spark_first_batch_timeline.py` compares process start to first record with
Spark's own floor.

    python -m bench.bench_spark [--records 2000000] [--tasks 2] [--no-cluster]

Uses the broker named by CONNECTWORKER_BENCH_BOOTSTRAP, else starts the embedded Tansu broker. All of
it (broker, driver, master, workers, executors) shares this machine's cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka.admin import AdminClient

from bench.results import write_section
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.herder.standalone import StandaloneRuntime
from connectworker.runtime.offsets.backing_store import OffsetBackingStore, read_committed
from connectworker.runtime.offsets.file_store import FileOffsetStore
from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore

STRING_CONVERTER = "org.apache.kafka.connect.storage.StringConverter"


@dataclass
class Run:
    mode: str
    records: int
    seconds: float
    commits: list[tuple[float, int]]  # (seconds, records committed) at each change seen
    session_s: float | None = None
    note: str = ""

    @property
    def first_commit_s(self) -> float:
        return self.commits[0][0]

    @property
    def rate(self) -> float:
        return self.records / self.seconds

    @property
    def steady_rate(self) -> float:
        """Records/s from the second commit to the last: start-up, and the first full micro-batch (on
        Spark: Python workers starting, the JVM compiling the conversion code), excluded."""
        if len(self.commits) < 3:
            return float("nan")
        (start, done), (end, total) = self.commits[1], self.commits[-1]
        return (total - done) / (end - start)


def connector(name: str, topic_prefix: str, tasks: int, records: int, value_size: int) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": "DataGen",
        "tasks.max": str(tasks),
        "topic.pattern": topic_prefix + ".{n}",
        "topic.count": "3",
        "records": str(records),
        "rate": "0",
        "batch.size": "500",
        "value.size": str(value_size),
        "seed": "1",
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "2",
    }


def wait_for(
    total: int, committed: Callable[[], int], timeout_s: float, start: float | None = None, every_s: float = 0.05
) -> list[tuple[float, int]]:
    """(seconds from `start` (default: now), records committed) at every change, until all `total` are."""
    start = time.monotonic() if start is None else start
    commits: list[tuple[float, int]] = []
    while True:
        done = committed()
        now = time.monotonic() - start
        if done > (commits[-1][1] if commits else 0):
            commits.append((now, done))
        if done >= total:
            return commits
        if now > timeout_s:
            raise RuntimeError(f"only {done} of {total} records committed after {timeout_s:.0f}s")
        time.sleep(every_s)


def run_standalone(bootstrap: str, work: Path, props: dict[str, str], total: int) -> Run:
    config = WorkerConfig.from_properties(
        {
            "bootstrap.servers": bootstrap,
            "offset.storage.file.filename": str(work / "standalone.offsets"),
            "offset.flush.interval.ms": "500",
            "topic.creation.enable": "true",
        }
    )
    with StandaloneRuntime(config) as runtime:
        assert runtime.worker is not None
        runtime.worker.start_connector(parse_connector_config(props))
        running = runtime.worker.get(props["name"])
        commits = wait_for(total, lambda: sum(t.stats().committed_records for t in running.tasks), 600)
    return Run("standalone (its tasks in task processes, one per core)", total, commits[-1][0], commits)


def run_spark(bootstrap: str, work: Path, props: dict[str, str], total: int, master: str, mode: str) -> Run:
    """`props` on `master` through `spark_runtime`, exactly what `connectworker spark` runs: the worker's
    tasks as long-lived Spark tasks; offsets in a file (local) or a Kafka topic (cluster)."""
    from connectworker.spark.runner.spark_runtime import spark_runtime

    local = master.startswith("local")
    offsets = work / f"{props['name']}.offsets"
    config = WorkerConfig.from_properties(
        {
            "bootstrap.servers": bootstrap,
            "key.converter": STRING_CONVERTER,
            "value.converter": STRING_CONVERTER,
            "topic.creation.enable": "true",
            "spark.master": master,
            "offset.flush.interval.ms": "500",
            "spark.conf.spark.ui.enabled": "false",
            "spark.conf.spark.driver.host": "127.0.0.1",
            "offset.storage.file.filename": str(offsets),
            **(
                {}
                if local
                else {
                    "offset.storage.topic": f"{props['name']}-offsets",
                    "offset.storage.partitions": "1",
                    "offset.storage.replication.factor": "1",
                    "spark.conf.spark.executor.memory": "1g",
                }
            ),
        }
    )
    storage: OffsetBackingStore = (
        FileOffsetStore(offsets, shared=True)
        if local
        else KafkaOffsetStore(
            f"{props['name']}-offsets", {"bootstrap.servers": bootstrap}, partitions=1, replication_factor=1
        )
    )
    started = time.monotonic()
    runtime = spark_runtime(config)
    try:
        runtime.start()
        session_ready = time.monotonic()
        runtime.start_herder([parse_connector_config(props)])

        def committed() -> int:
            if local and not offsets.exists():
                return 0
            return sum(o["seq"] for o in read_committed(storage, props["name"]).values())

        # A Kafka offsets read writes a barrier to the topic: poll it less often than a file.
        commits = wait_for(total, committed, 900, start=session_ready, every_s=0.05 if local else 0.2)
    finally:
        runtime.stop()
        storage.close()
    return Run(
        mode, total, commits[-1][0], commits, session_ready - started, "one long-lived Spark task per connector task"
    )


def run_dataframes(bootstrap: str, work: Path, props: dict[str, str], total: int) -> Run:
    """The same connector through the DataFrame formats on `local[2]`, as section 2 of docs/spark.md
    writes it: `readStream.format("connect-source")` into `writeStream.format("connect-kafka")`."""
    from connectworker.spark import register
    from connectworker.spark.runner.session import open_session

    offsets = work / f"{props['name']}.offsets"
    config = WorkerConfig.from_properties(
        {
            "bootstrap.servers": bootstrap,
            "spark.master": "local[2]",
            "spark.conf.spark.ui.enabled": "false",
            "spark.conf.spark.driver.host": "127.0.0.1",
        }
    )
    started = time.monotonic()
    spark, owned = open_session(config, work)
    session_ready = time.monotonic()
    register(spark)
    kafka = {"kafka.bootstrap.servers": bootstrap, "offset.storage.file.filename": str(offsets)}
    source = {**props, **kafka, "topic.creation.enable": "true", "microbatch.max.ms": "2000"}
    query = (
        spark.readStream.format("connect-source")
        .options(**source)
        .load()
        .writeStream.format("connect-kafka")
        .options(**kafka)
        .option("checkpointLocation", str(work / f"{props['name']}.checkpoint"))
        .trigger(processingTime="2 seconds")
        .start()
    )
    storage = FileOffsetStore(offsets, shared=True)
    try:

        def committed() -> int:
            if not query.isActive:
                raise RuntimeError(f"query stopped: {query.exception()}")
            return sum(o["seq"] for o in read_committed(storage, props["name"]).values()) if offsets.exists() else 0

        commits = wait_for(total, committed, 900, start=session_ready)
    finally:
        query.stop()
        if owned:
            spark.stop()
    return Run(
        "DataFrame formats, local[2] (`connect-source` -> `connect-kafka`, 2 s micro-batches)",
        total,
        commits[-1][0],
        commits,
        session_ready - started,
        "a streaming query: rows cross the JVM twice",
    )


def report(runs: list[Run], tasks: int, per_task: int, value_size: int, command: str) -> str:
    lines = [
        f"`{command}`: DataGen, {tasks} tasks x {per_task:,} records, {value_size}-byte string values, "
        f"3 topics (created by rule), acks=all; a record counts once its source offset is committed. "
        f"Spark runs are timed from the moment their session is up (session start-up: its own column).",
        "Steady state: records/s from the second commit to the last (excludes start-up: on Spark, "
        "Python workers starting and the first tasks placed). The cluster run "
        "reuses the JVM the local[2] run started (PySpark keeps one per process), so its session start "
        "is only a new SparkContext; its first commit includes launching the executors.",
        "",
        "| mode | records | seconds | records/s | session start | first commit after | "
        "steady records/s | steady x standalone | notes |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    base = runs[0]
    for r in runs:
        session = "" if r.session_s is None else f"{r.session_s:.1f} s"
        lines.append(
            f"| {r.mode} | {r.records:,} | {r.seconds:.1f} | {r.rate:,.0f} | {session} "
            f"| {r.first_commit_s:.1f} s | {r.steady_rate:,.0f} | {r.steady_rate / base.steady_rate:.2f}x "
            f"| {r.note} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=2_000_000, help="records per task")
    parser.add_argument("--tasks", type=int, default=2)
    parser.add_argument("--value-size", type=int, default=100)
    parser.add_argument("--no-cluster", action="store_true", help="skip the 2-worker standalone cluster")
    args = parser.parse_args(argv)
    total = args.records * args.tasks
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # the executors' Python, on the cluster too
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    named = os.environ.get("CONNECTWORKER_BENCH_BOOTSTRAP")
    runs: list[Run] = []
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-spark-")))
        broker = None if named else stack.enter_context(EmbeddedBroker())
        bootstrap = named or broker.bootstrap_servers  # type: ignore[union-attr]
        admin = AdminClient({"bootstrap.servers": bootstrap})
        modes = ["standalone", "local[2]", "dataframes"] + ([] if args.no_cluster else ["cluster"])
        for mode in modes:
            tag = uuid.uuid4().hex[:6]
            prefix = f"bench-{mode.replace('[', '').replace(']', '')}-{tag}"
            props = connector(prefix, prefix, args.tasks, args.records, args.value_size)
            if mode == "standalone":
                runs.append(run_standalone(bootstrap, tmp, props, total))
            elif mode == "dataframes":
                runs.append(run_dataframes(bootstrap, tmp, props, total))
            elif mode == "local[2]":
                runs.append(
                    run_spark(bootstrap, tmp, props, total, "local[2]", "Spark local[2] (`connectworker spark`)")
                )
            else:
                from tests.integration.spark_cluster import spark_cluster

                with spark_cluster(tmp / "cluster") as cluster:
                    runs.append(
                        run_spark(
                            bootstrap,
                            tmp,
                            props,
                            total,
                            cluster.master_url,
                            "Spark standalone cluster, 2 workers x 1 core (`connectworker spark`)",
                        )
                    )
            topics = [f"{prefix}.{n}" for n in range(3)] + ([f"{prefix}-offsets"] if mode == "cluster" else [])
            for future in admin.delete_topics(topics).values():
                future.result()  # free the broker's memory before the next run
    command = "python -m bench.bench_spark " + " ".join(argv if argv is not None else sys.argv[1:])
    write_section("spark", report(runs, args.tasks, args.records, args.value_size, command.strip()))


if __name__ == "__main__":
    main()
