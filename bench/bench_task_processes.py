"""What `tasks.max` buys now that tasks run in processes of their own (`task.processes`, one per core by
default), against tasks as threads of the worker's own process (`task.processes=0`, before), in one run.

Two ordinary connectors (bench/scaling_source.py, each poll a `list[SourceRecord]`, the records split
over the tasks): one with 20 µs of Python work per record, and the fastest (100-character strings,
nothing else). Each variant is one worker on an embedded Tansu broker, warmed up by a small connector
with the same task count (so its task processes are running, as in a worker that runs for hours); then
each round creates a connector with the same records in total, to a new 4-partition topic, and the rate
is records / (connector created -> every record's offset committed). Rounds alternate the variants.
Also measured in the same run: two raw confluent-kafka producer processes against one (what the machine
allows with the broker beside them); a task process's start-up (spawned -> its task reports RUNNING) and
its resident memory; REST latency of 8 clients polling a status while two tasks run at full speed.
Run: `python -m bench.bench_task_processes [scale] [rounds]` (scale 1.0: 300,000 records with work,
2,000,000 without).
"""

from __future__ import annotations

import multiprocessing
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from bench.ordinary_source import string_values
from bench.results import ratio_table, verdict, write_section
from bench.scaling_source import rounds_for
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.rest.server import RestServer
from connectworker.runtime.clients.gc_tuning import tune_gc_for_throughput
from connectworker.runtime.clients.producer_settings import PRODUCER_DEFAULTS
from connectworker.runtime.herder.standalone import StandaloneRuntime
from connectworker.runtime.runners.remote_handle import RemoteTaskHandle
from connectworker.runtime.status import State

PARTITIONS = 4
STRING = "org.apache.kafka.connect.storage.StringConverter"
SOURCE = "bench.scaling_source.ScalingSource"
VARIANTS = {  # label: (task.processes, tasks.max); None: the default (one per core)
    "1 task, thread (task.processes=0: before)": ("0", 1),
    "1 task, task process (default)": (None, 1),
    "2 tasks (default)": (None, 2),
    "4 tasks (default)": (None, 4),
}


def create_topic(bootstrap: str) -> str:
    topic = f"scale-{uuid.uuid4().hex[:10]}"
    admin = AdminClient({"bootstrap.servers": bootstrap})  # alive until the result is in
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result()
    return topic


def worker(bootstrap: str, workdir: Path, processes: str | None, **extra: str) -> StandaloneRuntime:
    props = {
        "bootstrap.servers": bootstrap,
        "offset.storage.file.filename": str(workdir / "offsets.json"),
        "key.converter": STRING,
        "value.converter": STRING,
        "offset.flush.interval.ms": "1000",
        **extra,
    }
    if processes is not None:
        props["task.processes"] = processes
    return StandaloneRuntime(WorkerConfig.from_properties(props)).start()


def run_connector(runtime: StandaloneRuntime, bootstrap: str, tasks: int, records: int, work_rounds: int) -> float:
    """Records/s of one connector run to completion (created -> every offset committed)."""
    assert runtime.worker is not None
    name = f"scale-{uuid.uuid4().hex[:8]}"
    config = parse_connector_config(
        {
            "name": name,
            "connector.class": SOURCE,
            "topic": create_topic(bootstrap),
            "records": str(records),
            "work.rounds": str(work_rounds),
            "tasks.max": str(tasks),
        }
    )
    start = time.perf_counter()
    runtime.worker.start_connector(config)
    while True:
        handles = runtime.worker.get(name).tasks
        for handle in handles:
            if handle.status.state is State.FAILED:
                raise RuntimeError(f"{handle.name} FAILED: {handle.status.snapshot()[1]}")
        if len(handles) == tasks and sum(h.stats().committed_records for h in handles) >= records:
            break
        time.sleep(0.005)
    elapsed = time.perf_counter() - start
    runtime.worker.remove_connector(name)
    return records / elapsed


def scaling(bootstrap: str, workdir: Path, records: int, work_rounds: int, rounds: int) -> dict[str, list[float]]:
    runtimes = {
        label: worker(bootstrap, workdir / f"w{n}-{work_rounds}", processes)
        for n, (label, (processes, _)) in enumerate(VARIANTS.items())
    }
    try:
        for label, runtime in runtimes.items():  # task processes up and warm, as in a long-running worker
            run_connector(runtime, bootstrap, VARIANTS[label][1], 2_000, work_rounds)
        results: dict[str, list[float]] = {label: [] for label in VARIANTS}
        for _ in range(rounds):
            for label, runtime in runtimes.items():
                results[label].append(run_connector(runtime, bootstrap, VARIANTS[label][1], records, work_rounds))
        return results
    finally:
        for runtime in runtimes.values():
            runtime.stop()


def _raw_producer(bootstrap: str, topic: str, count: int, start: object, done: object) -> None:
    values = [v.encode() for v in string_values(100)]
    producer = Producer({**PRODUCER_DEFAULTS, "bootstrap.servers": bootstrap})
    start.wait()  # type: ignore[attr-defined]
    for seq in range(count):
        while True:
            try:
                producer.produce(topic, values[seq % len(values)], str(seq).encode())
                break
            except BufferError:
                producer.poll(0.01)
        if seq % 1000 == 0:
            producer.poll(0)
    producer.flush()
    done.put(time.perf_counter())  # type: ignore[attr-defined]


def raw_processes(bootstrap: str, records: int, processes: int) -> float:
    """Records/s of `processes` raw producer processes sharing `records`, from a common start."""
    context = multiprocessing.get_context("spawn")
    topic = create_topic(bootstrap)
    start, done = context.Event(), context.Queue()
    children = [
        context.Process(target=_raw_producer, args=(bootstrap, topic, records // processes, start, done))
        for _ in range(processes)
    ]
    for child in children:
        child.start()
    time.sleep(1.0)  # every child connected and waiting
    began = time.perf_counter()
    start.set()
    ended = max(done.get() for _ in children)
    for child in children:
        child.join()
    return records / (ended - began)


def startup_and_rss(bootstrap: str, workdir: Path) -> tuple[float, float, int, int]:
    """Seconds from the connector's creation to its task reporting (the process spawned and importing),
    to the task RUNNING; the task process's and the worker's resident memory (kB)."""
    runtime = worker(bootstrap, workdir / "startup", None)
    try:
        assert runtime.worker is not None and runtime.task_processes is not None
        config = parse_connector_config(
            {
                "name": "startup",
                "connector.class": "DataGen",
                "topic.pattern": "startup",
                "topic.count": "1",
                "rate": "10",
            }
        )
        start = time.perf_counter()
        runtime.worker.start_connector(config)
        handle = runtime.worker.get("startup").tasks[0]
        assert isinstance(handle, RemoteTaskHandle)
        while handle.executor is None:
            time.sleep(0.002)
        reported = time.perf_counter() - start
        while handle.status.state is not State.RUNNING:
            time.sleep(0.002)
        running = time.perf_counter() - start
        time.sleep(2.0)
        [pid] = runtime.task_processes.pids
        return reported, running, _rss_kb(pid), _rss_kb(None)
    finally:
        runtime.stop()


def _rss_kb(pid: int | None) -> int:
    status = Path(f"/proc/{pid or 'self'}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1])


@contextmanager
def rest_worker(bootstrap: str, workdir: Path, processes: str) -> Iterator[tuple[StandaloneRuntime, str]]:
    runtime = worker(bootstrap, workdir, processes, listeners="http://127.0.0.1:0")
    rest = RestServer.for_worker(runtime.config)
    assert rest is not None
    server = rest.bind().serve(runtime.start_herder([]))
    try:
        yield runtime, server.urls[0]
    finally:
        server.stop()
        runtime.stop()


def rest_latency(
    bootstrap: str, workdir: Path, processes: str, busy: bool, seconds: float = 5.0
) -> tuple[float, float]:
    """p50 and p99 ms of `GET /connectors/NAME/status` from 8 clients at once, while two tasks run at full
    speed (`busy`) or idle."""
    with rest_worker(bootstrap, workdir, processes) as (runtime, url):
        assert runtime.worker is not None
        name = "latency"
        runtime.worker.start_connector(
            parse_connector_config(
                {
                    "name": name,
                    "connector.class": SOURCE,
                    "topic": create_topic(bootstrap),
                    "tasks.max": "2",
                    "records": str(10**9 if busy else 0),
                }
            )
        )
        while not all(h.status.state is State.RUNNING for h in runtime.worker.get(name).tasks):
            time.sleep(0.01)
        time.sleep(1.0)
        times: list[float] = []
        lock = threading.Lock()
        deadline = time.monotonic() + seconds

        def client() -> None:
            mine = []
            with httpx.Client(base_url=url, timeout=30) as http:
                while time.monotonic() < deadline:
                    began = time.perf_counter()
                    http.get(f"/connectors/{name}/status").raise_for_status()
                    mine.append((time.perf_counter() - began) * 1000)
            with lock:
                times.extend(mine)

        threads = [threading.Thread(target=client) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        times.sort()
        return statistics.median(times), times[int(len(times) * 0.99)]


def main(scale: float = 1.0, rounds: int = 3) -> None:
    tune_gc_for_throughput()
    work_records, fast_records = int(300_000 * scale), int(2_000_000 * scale)
    with EmbeddedBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        bootstrap, workdir = broker.bootstrap_servers, Path(tmp)
        work = scaling(bootstrap, workdir, work_records, rounds_for(20), rounds)
        fast = scaling(bootstrap, workdir, fast_records, 0, rounds)
        raw = {"1 raw producer process": [], "2 raw producer processes": []}  # type: dict[str, list[float]]
        for _ in range(rounds):
            raw["1 raw producer process"].append(raw_processes(bootstrap, fast_records, 1))
            raw["2 raw producer processes"].append(raw_processes(bootstrap, fast_records, 2))
        reported, running, task_rss, worker_rss = startup_and_rss(bootstrap, workdir)
        latency = {
            (label, busy): rest_latency(bootstrap, workdir / f"rest-{label}-{busy}", processes, busy)
            for label, processes in (("threads (before)", "0"), ("task processes", "2"))
            for busy in (False, True)
        }

    def ratios(results: dict[str, list[float]]) -> tuple[float, float, float]:
        median = {label: statistics.median(rates) for label, rates in results.items()}
        labels = list(VARIANTS)
        return (
            median[labels[2]] / median[labels[1]],
            median[labels[3]] / median[labels[1]],
            median[labels[1]] / median[labels[0]],
        )

    work_2, work_4, work_1 = ratios(work)
    fast_2, fast_4, fast_1 = ratios(fast)
    raw_2 = statistics.median(raw["2 raw producer processes"]) / statistics.median(raw["1 raw producer process"])
    before = next(iter(VARIANTS))
    work_table, _ = ratio_table("20 µs of work per record", work, before)
    fast_table, _ = ratio_table("fastest ordinary connector", fast, before)
    raw_table, _ = ratio_table("raw producers, same records", raw, "1 raw producer process")
    rows = ["| REST, 8 clients, GET status | p50 ms | p99 ms |", "|---|---:|---:|"]
    for (label, busy), (p50, p99) in latency.items():
        rows.append(f"| {label}, tasks {'at full speed' if busy else 'idle'} | {p50:.1f} | {p99:.1f} |")
    body = f"""{work_records:,} records (20 µs of work each) and {fast_records:,} (no work), split over the tasks,
{rounds} rounds alternating the variants; rates from connector created to every offset committed.

{work_table}

{fast_table}

{raw_table}

| target (issue 34) | figure | |
|---|---:|---|
| 2 tasks / 1 task, 20 µs of work per record, ≥ 1.8 | {work_2:.2f} | {verdict(work_2, 1.8)} |
| 2 tasks / 1 task, fastest connector, ≥ 1.0 | {fast_2:.2f} | {verdict(fast_2, 1.0)} |
| 1 task in a task process / 1 task as a thread, 20 µs, ≥ 0.95 | {work_1:.2f} | {verdict(work_1, 0.95)} |
| 1 task in a task process / 1 task as a thread, fastest, ≥ 0.95 | {fast_1:.2f} | {verdict(fast_1, 0.95)} |
| 4 tasks / 1 task (20 µs; fastest) | {work_4:.2f}; {fast_4:.2f} | |
| 2 raw producer processes / 1 (the machine's ceiling) | {raw_2:.2f} | |

A task process: first report {reported:.2f} s after the connector was created (spawned, imported, connected),
task RUNNING after {running:.2f} s; resident memory {task_rss / 1024:.0f} MB (a DataGen task running; this
benchmark's own process, which ran all the workers above, {worker_rss / 1024:.0f} MB).

{chr(10).join(rows)}

Command: `python -m bench.bench_task_processes {scale} {rounds}`"""
    write_section("Task processes: what tasks.max buys", body)


if __name__ == "__main__":
    main(*(float(a) if n == 0 else int(a) for n, a in enumerate(sys.argv[1:3])))
