"""How soon `connectworker spark` delivers its first record on `local[2]`, against Spark's own floor.

Two kinds of run, each in a fresh process (a new JVM, as `connectworker spark` has), alternated for
`--rounds` rounds so both see the same machine:

- `worker`: `spark_runtime` (exactly what `connectworker spark` runs) with the DataGen connector (2
  tasks, topic creation on, offsets in a file). Seconds from process start to: the session up, and the
  first record acknowledged by Kafka (a task's first offset commit: every record it covers was acked).
- `floor`: a bare PySpark process that opens a session the same way (`open_context`) and runs one
  trivial 2-task job (`sc.parallelize([0, 1], 2).map(...).collect()`): process start to that job done.
  What Spark itself costs before any task of ours can run.

Prints each run; writes the medians to the `spark first record` section of bench/results.md.

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
from pathlib import Path

from bench.bench_spark import STRING_CONVERTER, connector
from bench.results import write_section

STARTED_ENV = "CONNECTWORKER_BENCH_STARTED"  # the parent's time.time() just before it started the process


def session_properties(work: Path, bootstrap: str) -> dict[str, str]:
    return {
        "bootstrap.servers": bootstrap,
        "spark.master": "local[2]",
        "spark.conf.spark.ui.enabled": "false",
        "spark.conf.spark.driver.host": "127.0.0.1",
        "offset.storage.file.filename": str(work / "offsets"),
        "key.converter": STRING_CONVERTER,
        "value.converter": STRING_CONVERTER,
        "topic.creation.enable": "true",
        "offset.flush.interval.ms": "100",
    }


def since_start() -> float:
    return time.time() - float(os.environ[STARTED_ENV])


def run_floor(work: Path, bootstrap: str) -> dict[str, float]:
    from connectworker.config.worker_config import WorkerConfig
    from connectworker.spark.runner.session import open_context

    context, _ = open_context(WorkerConfig.from_properties(session_properties(work, bootstrap)), work)
    session = since_start()
    assert context.parallelize([0, 1], 2).map(lambda x: x + 1).collect() == [1, 2]
    result = {"session": session, "done": since_start()}
    context.stop()
    return result


def run_worker(work: Path, bootstrap: str) -> dict[str, float]:
    from connectworker.config.connector_config import parse_connector_config
    from connectworker.config.worker_config import WorkerConfig
    from connectworker.spark.runner.spark_runtime import spark_runtime

    props = connector("first", "first", 2, 10**9, 100)
    runtime = spark_runtime(WorkerConfig.from_properties(session_properties(work, bootstrap))).start()
    session = since_start()
    try:
        herder = runtime.start_herder([parse_connector_config(props)])
        deadline = time.monotonic() + 120
        while not any(t.stats().committed_records for t in list(herder.get("first").tasks)):
            if time.monotonic() > deadline:
                raise RuntimeError("no record acknowledged within 120 s")
            time.sleep(0.01)
        first = since_start()
    finally:
        runtime.stop()
    return {"session": session, "done": first}


def one(kind: str, bootstrap: str) -> None:
    with tempfile.TemporaryDirectory(prefix=f"first-{kind}-") as work:
        result = (run_floor if kind == "floor" else run_worker)(Path(work), bootstrap)
    print(json.dumps(result))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--one", choices=["floor", "worker"], help=argparse.SUPPRESS)
    parser.add_argument("--bootstrap", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        one(args.one, args.bootstrap)
        return
    from connectworker.embedded_broker import EmbeddedBroker

    results: dict[str, list[dict[str, float]]] = {"floor": [], "worker": []}
    with EmbeddedBroker() as broker:
        for _ in range(args.rounds):
            for kind in ("floor", "worker"):
                env = {**os.environ, STARTED_ENV: repr(time.time())}
                out = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "bench.spark_first_batch_timeline",
                        "--one",
                        kind,
                        "--bootstrap",
                        broker.bootstrap_servers,
                    ],
                    capture_output=True,
                    text=True,
                    env=env,
                    check=True,
                    timeout=300,
                )
                result = json.loads(out.stdout.strip().splitlines()[-1])
                results[kind].append(result)
                print(kind, result, flush=True)
    write_section("spark first record", report(results, args.rounds))


def report(results: dict[str, list[dict[str, float]]], rounds: int) -> str:
    def median(kind: str, key: str) -> float:
        return statistics.median(r[key] for r in results[kind])

    def every(kind: str) -> str:
        return ", ".join(f"{r['done']:.1f}" for r in results[kind])

    gap = median("worker", "done") - median("floor", "done")
    after_floor = statistics.median(r["done"] - r["session"] for r in results["floor"])
    after_worker = statistics.median(r["done"] - r["session"] for r in results["worker"])
    return "\n".join(
        [
            f"`python -m bench.spark_first_batch_timeline --rounds {rounds}`: seconds from process start, "
            f"`local[2]`, fresh process each, alternated. `floor`: a bare PySpark process, session opened as "
            f"`connectworker spark` opens it, then one trivial 2-task job done. `worker`: `spark_runtime` with "
            f"DataGen (2 tasks, topic creation on), its first record acknowledged by Kafka.",
            "",
            "| run | session up (median) | done / first record (median) | every run |",
            "|---|---:|---:|---|",
            f"| floor (Spark alone) | {median('floor', 'session'):.1f} s | {median('floor', 'done'):.1f} s "
            f"| {every('floor')} |",
            f"| connectworker spark | {median('worker', 'session'):.1f} s | {median('worker', 'done'):.1f} s "
            f"| {every('worker')} |",
            "",
            f"First record after Spark's floor: **{gap:+.1f} s** (median against median; target ≤ 1 s). "
            f"From the session up, which varies most between runs: the floor's job is done after "
            f"{after_floor:.1f} s, the worker's first record acknowledged after {after_worker:.1f} s (medians): "
            f"**{after_worker - after_floor:+.1f} s**.",
        ]
    )


if __name__ == "__main__":
    main()
