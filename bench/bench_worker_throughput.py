"""Worker end-to-end throughput against a raw confluent-kafka Producer, in the same run.

Both send the same records (100-byte values from the data generator, string keys) to a topic of the
same shape with acks=all and idempotence. The worker's time runs from connector start until its
graceful stop returns, so it includes polling, conversion, delivery reports and the offset commit.
Target (issue 2): worker >= 0.6x raw. Run: `python -m bench.bench_worker_throughput [records]`.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from confluent_kafka import Producer

from bench.results import write_section
from connectors.datagen import DataGenTask
from connectworker.api.topic_settings import TopicSettings
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.gc_tuning import tune_gc_for_throughput
from connectworker.runtime.plan_context import PlanTaskContext
from connectworker.runtime.standalone import StandaloneRuntime
from connectworker.runtime.worker import PRODUCER_DEFAULTS
from connectworker.topics.admin import TopicAdmin

PARTITIONS = 4


def connector_props(name: str, topic: str, records: int) -> dict[str, str]:
    return {"name": name, "connector.class": "DataGen", "topic.pattern": topic, "topic.count": "1",
            "records": str(records), "rate": "0", "batch.size": "1000", "value.size": "100",
            "format": "string", "seed": "1"}


def materialise(props: dict[str, str]) -> list[tuple[bytes, bytes]]:
    """The exact (key, value) bytes the worker will send, from the same generator."""
    task = DataGenTask()
    task_props = {**props, "task.id": "0"}
    task.initialize(PlanTaskContext(task_props))
    task.start(task_props)
    out: list[tuple[bytes, bytes]] = []
    while len(out) < int(props["records"]):
        batch = task.poll() or []
        out.extend((r.key.encode(), r.value.encode()) for r in batch)
    task.stop()
    return out


def run_raw(bootstrap: str, topic: str, records: list[tuple[bytes, bytes]]) -> float:
    start = time.perf_counter()  # like the worker's time, this includes creating the client
    producer = Producer({**PRODUCER_DEFAULTS, "bootstrap.servers": bootstrap})
    for i, (key, value) in enumerate(records):
        while True:
            try:
                producer.produce(topic, value, key)
                break
            except BufferError:
                producer.poll(0.05)
        if i % 1000 == 0:
            producer.poll(0)
    if producer.flush(60):
        raise RuntimeError("raw producer did not deliver everything")
    return len(records) / (time.perf_counter() - start)


def run_worker(bootstrap: str, topic: str, count: int, workdir: Path, n: int) -> float:
    config = WorkerConfig.from_properties({
        "bootstrap.servers": bootstrap, "offset.storage.file.filename": str(workdir / f"offsets-{n}.json"),
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.flush.interval.ms": "1000"})
    runtime = StandaloneRuntime(config).start()
    assert runtime.worker is not None
    connector = parse_connector_config(connector_props(f"bench-{n}", topic, count))
    start = time.perf_counter()
    runtime.worker.start_connector(connector)
    task = runtime.worker.get(connector.name).tasks[0]
    while task.produced < count:
        time.sleep(0.01)
    runtime.stop()  # flushes, waits for every ack, commits offsets
    elapsed = time.perf_counter() - start
    if task.committed_records != count:
        raise RuntimeError(f"worker committed {task.committed_records} of {count}")
    return count / elapsed


def main(count: int = 1_000_000, rounds: int = 3) -> None:
    tune_gc_for_throughput()  # as the connectworker command does; applies to the raw runs alike
    with EmbeddedBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        admin = TopicAdmin(broker.bootstrap_servers)
        records = materialise(connector_props("x", "x", count))
        raw, worker = [], []
        for n in range(rounds):  # interleaved so drift on a noisy machine hits both alike
            for kind in ("raw", "worker"):
                topic = f"bench-{kind}-{n}"
                admin.create([TopicSettings(topic, PARTITIONS, 1)])
                if kind == "raw":
                    raw.append(run_raw(broker.bootstrap_servers, topic, records))
                else:
                    worker.append(run_worker(broker.bootstrap_servers, topic, count, Path(tmp), n))
                admin.delete([topic])  # Tansu keeps every byte in memory
        ratio = statistics.median(worker) / statistics.median(raw)
        body = (f"`python -m bench.bench_worker_throughput {count}`: {count:,} records of 100 bytes, "
                f"{PARTITIONS} partitions, acks=all, embedded Tansu broker, {rounds} interleaved rounds.\n\n"
                f"| | records/s (median) | all rounds |\n|---|---|---|\n"
                f"| raw confluent-kafka Producer | {statistics.median(raw):,.0f} | "
                f"{', '.join(f'{x:,.0f}' for x in raw)} |\n"
                f"| worker (DataGen → StringConverter → Kafka, offsets committed) | "
                f"{statistics.median(worker):,.0f} | {', '.join(f'{x:,.0f}' for x in worker)} |\n\n"
                f"**worker / raw = {ratio:.2f}** (target ≥ 0.6)\n")
        write_section("Worker throughput vs raw producer (issue 2)", body)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
