"""How long reading a connector config takes: `parse_connector_config` (what `connectworker standalone`,
REST create and `plan` do) and the REST validate endpoint's reading, for a config with topic creation
groups, two transforms, a JsonConverter override and a producer override, checked against a worker.

Both run once per connector file at start-up and once per REST create or validate request, so they
bound how fast a worker with many connectors starts and how fast the REST API answers a validate.
Run: `python -m bench.bench_config_parse [repeats]`. To compare two trees, run it from one with
`PYTHONPATH=<other tree>`: the module checks which `connectworker` it imported and says so.
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

import connectworker
from bench.results import write_section
from connectworker.config.connector_config import parse_connector_config, validate_connector
from connectworker.config.worker_config import WorkerConfig

WORKER = {
    "bootstrap.servers": "127.0.0.1:1",
    "offset.storage.file.filename": "/tmp/bench-config-parse.json",
    "topic.creation.enable": "true",
}
CONNECTOR = {
    "name": "gen",
    "connector.class": "DataGen",
    "topic.pattern": "t-{n}",
    "topic.count": "3",
    "tasks.max": "2",
    "topic.creation.groups": "compacted,logs",
    "topic.creation.default.replication.factor": "1",
    "topic.creation.default.partitions": "3",
    "topic.creation.compacted.include": "t-0",
    "topic.creation.compacted.cleanup.policy": "compact",
    "topic.creation.logs.include": "t-.*",
    "topic.creation.logs.retention.ms": "60000",
    "transforms": "route,ts",
    "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
    "transforms.route.regex": "(.*)",
    "transforms.route.replacement": "copy-$1",
    "transforms.ts.type": "org.apache.kafka.connect.transforms.InsertField$Value",
    "transforms.ts.timestamp.field": "ts",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    "value.converter.schemas.enable": "false",
    "producer.override.linger.ms": "10",
}


def best_ms(action: object, number: int, repeats: int) -> float:
    """The fastest of `repeats` runs, per call (as `timeit` advises: the others measure the machine)."""
    return min(timeit.repeat(action, number=number, repeat=repeats)) / number * 1e3  # type: ignore[arg-type]


LARGE_KEYS = 200_000


def large_config() -> dict[str, str]:
    """The config with 200,000 keys of the connector's own (80-character values: a 20 MB file), undeclared,
    as a plugin that reads keys it does not declare would take them."""
    return {**CONNECTOR, **{f"custom.setting.number.{i}": "x" * 80 for i in range(LARGE_KEYS)}}


def main(repeats: int = 7) -> None:
    tree = Path(connectworker.__file__).resolve().parent.parent
    worker = WorkerConfig.from_properties(WORKER)
    parse = best_ms(lambda: parse_connector_config(CONNECTOR, worker=worker), 300, repeats)
    validate = best_ms(lambda: validate_connector(CONNECTOR, worker=worker), 300, repeats)
    large = large_config()
    large_s = best_ms(lambda: parse_connector_config(large, worker=worker), 1, min(repeats, 3)) / 1000
    body = (
        f"`python -m bench.bench_config_parse {repeats}` (connectworker from `{tree}`): one connector config "
        f"with {len(CONNECTOR)} keys (two topic creation groups, two transforms, a JsonConverter and a producer "
        f"override), checked against a worker; the fastest of {repeats} runs of 300 calls.\n\n"
        "| reading | ms per config |\n|---|---:|\n"
        f"| `parse_connector_config` (start-up, REST create, `plan`) | {parse:.3f} |\n"
        f"| `validate_connector` (REST validate) | {validate:.3f} |\n"
        f"\nThe same config with {LARGE_KEYS:,} more keys of the connector's own (undeclared, 80-character "
        f"values: a 20 MB file), the fastest of {min(repeats, 3)}: **{large_s:.2f} s** to parse (the search for "
        "misspelt keys looks at the first 1,000 undeclared keys; it used to compare every one, 0.24 ms each).\n"
    )
    write_section("Connector config reading", body)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
