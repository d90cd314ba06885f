"""Topic creation cost: time from a task's first sight of N new topics to the first acknowledged
record on every one of them, for N = 1, 100, 1000, in one run against

  (a) floor: one raw batched CreateTopics for the same topics, then one record to each;
  (b) Kafka Connect's way: per topic, describe then create (TopicAdmin.createOrFindTopics), then produce;

plus the worker's Admin requests per 1M records on topics it already knows (target 0).
Targets at 1,000 topics (issue 3): worker within 1.5x of (a), and at least 2x faster than (b).
Run: `python -m bench.bench_topic_creation`.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from pathlib import Path

from confluent_kafka import Producer

from bench.results import write_section
from connectworker.api import RecordMetadata, SourceRecord, SourceTask, TopicSettings
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.connectors.datagen import DataGenConnector, DataGenTask
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.clients.admin_client import open_topic_admin
from connectworker.runtime.clients.gc_tuning import tune_gc_for_throughput
from connectworker.runtime.clients.producer_settings import PRODUCER_DEFAULTS
from connectworker.runtime.herder.standalone import StandaloneRuntime
from connectworker.topics.admin import TopicAdmin


class AckClock:
    """Counts acknowledged records and remembers when the last one arrived."""

    lock = threading.Lock()
    acked = 0
    last = 0.0

    @classmethod
    def reset(cls) -> None:
        cls.acked, cls.last = 0, 0.0


class AckTimedTask(DataGenTask):
    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        with AckClock.lock:
            AckClock.acked += 1
            AckClock.last = time.perf_counter()


class AckTimedDataGen(DataGenConnector):
    def task_class(self) -> type[SourceTask]:
        return AckTimedTask


def worker_config(bootstrap: str, workdir: Path, tag: str) -> WorkerConfig:
    return WorkerConfig.from_properties(
        {
            "bootstrap.servers": bootstrap,
            "offset.storage.file.filename": str(workdir / f"{tag}.offsets"),
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            "topic.creation.enable": "true",
        }
    )


def datagen(name: str, prefix: str, topics: int, records: int, cls: str = "DataGen") -> dict[str, str]:
    return {
        "name": name,
        "connector.class": cls,
        "topic.pattern": f"{prefix}.{{n}}",
        "topic.count": str(topics),
        "records": str(records),
        "rate": "0",
        "batch.size": str(min(records, 10_000)),
        "format": "string",
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "1",
    }


def run_worker(bootstrap: str, workdir: Path, prefix: str, n: int) -> float:
    AckClock.reset()
    runtime = StandaloneRuntime(worker_config(bootstrap, workdir, prefix)).start()
    assert runtime.worker is not None
    start = time.perf_counter()
    runtime.worker.start_connector(parse_connector_config(datagen(prefix, prefix, n, n, f"{__name__}.AckTimedDataGen")))
    while AckClock.acked < n:
        time.sleep(0.001)
    elapsed = AckClock.last - start
    runtime.stop()
    return elapsed


def produce_one_each(producer: Producer, topics: list[str]) -> None:
    for topic in topics:
        producer.produce(topic, b"x" * 100, b"k")
    if producer.flush(60):
        raise RuntimeError("records not acknowledged")


def run_floor(bootstrap: str, admin: TopicAdmin, topics: list[str]) -> float:
    start = time.perf_counter()
    producer = Producer({**PRODUCER_DEFAULTS, "bootstrap.servers": bootstrap})
    admin.create([TopicSettings(t, 1, 1) for t in topics])
    produce_one_each(producer, topics)
    return time.perf_counter() - start


def run_connect_style(bootstrap: str, admin: TopicAdmin, topics: list[str]) -> float:
    start = time.perf_counter()
    producer = Producer({**PRODUCER_DEFAULTS, "bootstrap.servers": bootstrap})
    for topic in topics:  # Kafka Connect checks and creates each topic on its own, per record
        _, missing = admin.describe([topic])
        if missing:
            admin.create([TopicSettings(topic, 1, 1)])
        producer.produce(topic, b"x" * 100, b"k")
    if producer.flush(60):
        raise RuntimeError("records not acknowledged")
    return time.perf_counter() - start


def admin_requests_on_known_topics(bootstrap: str, workdir: Path, records: int) -> tuple[int, int]:
    runtime = StandaloneRuntime(worker_config(bootstrap, workdir, "known")).start()
    assert runtime.worker is not None and runtime.admin is not None
    runtime.worker.start_connector(parse_connector_config(datagen("known", "known", 10, records)))
    task = runtime.worker.get("known").tasks[0]
    while task.stats().produced < 10_000:
        time.sleep(0.01)
    before = runtime.admin.requests
    while task.stats().produced < records:
        time.sleep(0.01)
    after = runtime.admin.requests
    runtime.stop()
    return after - before, records - 10_000


def main(rounds: int = 3) -> None:
    tune_gc_for_throughput()
    rows = []
    with EmbeddedBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        admin = open_topic_admin(broker.bootstrap_servers)
        for n in (1, 100, 1000):
            times: dict[str, list[float]] = {"worker": [], "floor": [], "connect": []}
            for r in range(rounds):
                for kind in ("floor", "worker", "connect"):
                    prefix = f"tc-{kind}-{n}-{r}"
                    topics = [f"{prefix}.{i}" for i in range(n)]
                    if kind == "worker":
                        times[kind].append(run_worker(broker.bootstrap_servers, workdir, prefix, n))
                    elif kind == "floor":
                        times[kind].append(run_floor(broker.bootstrap_servers, admin, topics))
                    else:
                        times[kind].append(run_connect_style(broker.bootstrap_servers, admin, topics))
                    admin.delete(topics)
            med = {k: statistics.median(v) for k, v in times.items()}
            rows.append((n, med["floor"], med["worker"], med["connect"]))
        delta, records = admin_requests_on_known_topics(broker.bootstrap_servers, workdir, 1_010_000)
    table = [
        "| new topics | (a) raw batched create + produce | worker | (b) Connect-style per topic | "
        "worker / (a) | (b) / worker |",
        "|---|---|---|---|---|---|",
    ]
    for n, floor, worker, connect in rows:
        table.append(
            f"| {n:,} | {floor * 1000:.1f} ms | {worker * 1000:.1f} ms | {connect * 1000:.1f} ms | "
            f"{worker / floor:.2f}x | {connect / worker:.1f}x |"
        )
    body = (
        f"`python -m bench.bench_topic_creation`: time from first sight of N new topics to the first "
        f"acknowledged record on every one, median of {rounds} interleaved rounds, embedded Tansu broker "
        f"(1 partition, replication factor 1).\n\n"
        + "\n".join(table)
        + f"\n\nTargets at 1,000 topics: worker / (a) ≤ 1.5, (b) / worker ≥ 2.\n\n"
        f"Admin requests on already-known topics: **{delta} for {records:,} records** "
        f"(= {delta * 1_000_000 / records:.0f} per 1M; target 0).\n"
    )
    write_section("Topic creation latency (issue 3)", body)


if __name__ == "__main__":
    main()
