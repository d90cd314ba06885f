"""How soon a task's first record is produced after its connector starts, how long its stop takes, and
how long the memory-only embedded broker takes to end: tasks as threads of the worker against tasks in
task processes, in one run.

Each round starts a new worker, creates a DataGen connector on it once it has been running for a
second (as one created through the REST API is: the worker's first task), then removes it. "First
record" is the producer's timestamp (CreateTime, set when the task hands the record to librdkafka) of
the earliest record in the connector's topic, minus the moment `start_connector` was called; "stop" is
how long `remove_connector` takes (every task asked to stop, flushed, committed and ended). Also timed:
a worker's whole start (`StandaloneRuntime.start` plus its connector, as `connectworker standalone W C`
does) to its first record, and `EmbeddedBroker.stop()` after it served a workload. Targets (issue 42):
first record within 0.25 s, stop at most 0.2 s, the embedded broker ended within 1 s.
Run: `python -m bench.bench_task_start [rounds]`.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from bench.results import write_section
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.herder.standalone import StandaloneRuntime

STRING = "org.apache.kafka.connect.storage.StringConverter"
PLACEMENTS = {"thread (task.processes=0)": "0", "task process (default)": None}
FIRST_RECORD_TARGET_S, STOP_TARGET_S, BROKER_STOP_TARGET_S = 0.25, 0.2, 1.0


def worker_config(bootstrap: str, workdir: Path, processes: str | None) -> WorkerConfig:
    props = {
        "bootstrap.servers": bootstrap,
        "offset.storage.file.filename": str(workdir / f"offsets-{uuid.uuid4().hex[:6]}.json"),
        "key.converter": STRING,
        "value.converter": STRING,
    }
    if processes is not None:
        props["task.processes"] = processes
    return WorkerConfig.from_properties(props)


def new_topic(bootstrap: str) -> str:
    topic = f"start-{uuid.uuid4().hex[:10]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})  # alive until the result is in
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result()
    return topic


def datagen(topic: str) -> dict[str, str]:
    return {
        "name": topic,
        "connector.class": "DataGen",
        "topic.pattern": topic,
        "topic.count": "1",
        "rate": "1000",
        "batch.size": "10",
        "format": "string",
    }


def first_record_ms(bootstrap: str, topic: str) -> int:
    """The CreateTime (ms since the epoch) of the topic's first record, waiting up to 30 s for it."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"bench-{uuid.uuid4().hex}"})
    try:
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is not None and message.error() is None:
                return int(message.timestamp()[1])
        raise RuntimeError(f"no record in {topic} within 30 s")
    finally:
        consumer.close()


def connector_round(runtime: StandaloneRuntime, bootstrap: str) -> tuple[float, float]:
    """(first record s, stop s) of one connector created on a running worker."""
    assert runtime.worker is not None
    topic = new_topic(bootstrap)
    config = parse_connector_config(datagen(topic))
    started = time.time()
    runtime.worker.start_connector(config)
    first = first_record_ms(bootstrap, topic) / 1000 - started
    stop_began = time.perf_counter()
    runtime.worker.remove_connector(topic)
    return first, time.perf_counter() - stop_began


def worker_start_to_first_record(bootstrap: str, workdir: Path, processes: str | None) -> float:
    """Seconds from a new worker's start (its runtime, then its connector) to that connector's first record."""
    topic = new_topic(bootstrap)
    started = time.time()
    runtime = StandaloneRuntime(worker_config(bootstrap, workdir, processes)).start()
    try:
        assert runtime.worker is not None
        runtime.worker.start_connector(parse_connector_config(datagen(topic)))
        return first_record_ms(bootstrap, topic) / 1000 - started
    finally:
        runtime.stop()


def embedded_broker_stop_s(rounds: int) -> list[float]:
    """`EmbeddedBroker.stop()` after the broker served a worker and its connector for a second."""
    times = []
    for _ in range(rounds):
        broker = EmbeddedBroker().start()
        with tempfile.TemporaryDirectory() as workdir:
            runtime = StandaloneRuntime(worker_config(broker.bootstrap_servers, Path(workdir), "0")).start()
            assert runtime.worker is not None
            runtime.worker.start_connector(parse_connector_config(datagen(new_topic(broker.bootstrap_servers))))
            time.sleep(1.0)
            runtime.stop()
        began = time.perf_counter()
        broker.stop()
        times.append(time.perf_counter() - began)
    return times


def row(label: str, values: list[float], target: float) -> str:
    median = statistics.median(values)
    verdict = "met" if max(values) <= target else ("median met" if median <= target else "NOT met")
    shown = ", ".join(f"{v * 1000:.0f}" for v in values)
    return f"| {label} | {median * 1000:.0f} | {max(values) * 1000:.0f} | {shown} | {target * 1000:.0f} ({verdict}) |"


def main(rounds: int = 8) -> None:
    first: dict[str, list[float]] = {label: [] for label in PLACEMENTS}
    stops: dict[str, list[float]] = {label: [] for label in PLACEMENTS}
    whole: dict[str, list[float]] = {label: [] for label in PLACEMENTS}
    with EmbeddedBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        workdir, bootstrap = Path(tmp), broker.bootstrap_servers
        for _ in range(rounds):
            for label, processes in PLACEMENTS.items():
                runtime = StandaloneRuntime(worker_config(bootstrap, workdir, processes)).start()
                try:
                    time.sleep(1.0)  # up a moment, as when a connector comes through the REST API
                    first_s, stop_s = connector_round(runtime, bootstrap)
                finally:
                    runtime.stop()
                first[label].append(first_s)
                stops[label].append(stop_s)
        for _ in range(max(3, rounds // 2)):
            for label, processes in PLACEMENTS.items():
                whole[label].append(worker_start_to_first_record(bootstrap, workdir, processes))
    broker_stops = embedded_broker_stop_s(max(3, rounds // 2))
    header = "| | ms (median) | ms (max) | each round | target ms |\n|---|---:|---:|---|---|\n"
    lines = [row(f"first record, {label}", first[label], FIRST_RECORD_TARGET_S) for label in PLACEMENTS]
    lines += [row(f"stop, {label}", stops[label], STOP_TARGET_S) for label in PLACEMENTS]
    lines += [row("embedded broker stop", broker_stops, BROKER_STOP_TARGET_S)]
    whole_lines = [
        f"| {label} | {statistics.median(v) * 1000:.0f} | {', '.join(f'{x * 1000:.0f}' for x in v)} |"
        for label, v in whole.items()
    ]
    write_section(
        "Task start and stop",
        f"`python -m bench.bench_task_start {rounds}` (embedded Tansu broker, DataGen at 1,000 records/s to a "
        "1-partition topic). First record: from `start_connector` on a new worker that has been up a second to the "
        "producer timestamp of the topic's first record; stop: `remove_connector` (tasks stopped, flushed, "
        "committed, ended); embedded broker stop: `EmbeddedBroker.stop()` after a worker used it.\n\n"
        + header
        + "\n".join(lines)
        + "\n\nA new worker's whole start (`StandaloneRuntime.start()` and its connector, as `connectworker "
        "standalone` runs them) to the first record, no target:\n\n| placement | ms (median) | each round |\n"
        "|---|---:|---|\n" + "\n".join(whole_lines) + "\n",
    )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))
