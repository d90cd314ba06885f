"""What a chain of three common transforms costs the worker, in the same run.

The ordinary connector (bench/ordinary_source.py, `format=json`: ~100-byte schemaless dict values, a
`list[SourceRecord]` per poll) runs through a standalone worker with JsonConverter
(`schemas.enable=false`), once without transforms and once with InsertField$Value (a static field),
ReplaceField$Value (one field excluded) and RegexRouter (the topic renamed). Each run times the
connector's start until the worker's graceful stop returned with every record committed; rounds
alternate the two so a drifting machine affects both alike, and the medians are compared.
Target (issue 10): with the chain ≥ 0.7x without (the chain costs at most 30%).
Run: `python -m bench.bench_transforms [records] [rounds]`.
"""

from __future__ import annotations

import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.results import ratio_table, verdict, write_section
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.clients.gc_tuning import tune_gc_for_throughput
from connectworker.runtime.herder.standalone import StandaloneRuntime

JSON = "org.apache.kafka.connect.json.JsonConverter"
STRING = "org.apache.kafka.connect.storage.StringConverter"
CHAIN = {
    "transforms": "insert,replace,route",
    "transforms.insert.type": "org.apache.kafka.connect.transforms.InsertField$Value",
    "transforms.insert.static.field": "origin",
    "transforms.insert.static.value": "bench",
    "transforms.replace.type": "org.apache.kafka.connect.transforms.ReplaceField$Value",
    "transforms.replace.exclude": "payload",
    "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.route.regex": "(.*)",
    "transforms.route.replacement": "$1-routed",
}
TARGET = 0.7


def run(bootstrap: str, workdir: Path, count: int, transforms: dict[str, str]) -> float:
    """Records per second of one worker run, connector start to graceful stop, every record committed."""
    run_id = uuid.uuid4().hex[:8]
    config = WorkerConfig.from_properties(
        {
            "bootstrap.servers": bootstrap,
            "offset.storage.file.filename": str(workdir / f"{run_id}.json"),
            "key.converter": STRING,
            "value.converter": JSON,
            "offset.flush.interval.ms": "1000",
        }
    )
    runtime = StandaloneRuntime(config).start()
    assert runtime.worker is not None
    connector = parse_connector_config(
        {
            "name": f"smt-{run_id}",
            "connector.class": "bench.ordinary_source.OrdinarySource",
            "topic": f"smt-{run_id}",
            "records": str(count),
            "format": "json",
            "value.converter.schemas.enable": "false",
            **transforms,
        }
    )
    start = time.perf_counter()
    runtime.worker.start_connector(connector)
    task = runtime.worker.get(connector.name).tasks[0]
    while task.stats().produced < count:
        time.sleep(0.01)
    runtime.stop()
    elapsed = time.perf_counter() - start
    if task.committed_records != count:
        raise RuntimeError(f"{connector.name} committed {task.committed_records} of {count} records")
    return count / elapsed


def main(count: int = 300_000, rounds: int = 3) -> None:
    tune_gc_for_throughput()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # bench.ordinary_source for the worker
    results: dict[str, list[float]] = {"without transforms": [], "InsertField + ReplaceField + RegexRouter": []}
    with EmbeddedBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):
            results["without transforms"].append(run(broker.bootstrap_servers, Path(tmp), count, {}))
            results["InsertField + ReplaceField + RegexRouter"].append(
                run(broker.bootstrap_servers, Path(tmp), count, CHAIN)
            )
    table, ratio = ratio_table("chain", results, "without transforms")
    body = (
        f"{count:,} ordinary records (schemaless JSON dicts, ~100 bytes) per run, {rounds} rounds, "
        f"JsonConverter without schemas, embedded Tansu broker.\n\n"
        + table
        + f"\n\nTarget with the chain ≥ {TARGET}x without: {verdict(ratio, TARGET)} ({ratio:.2f}x).\n"
        f"Command: `python -m bench.bench_transforms {count} {rounds}`"
    )
    write_section("Transform chain cost", body)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
