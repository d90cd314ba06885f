"""What Debezium's ExtractNewRecordState ("unwrap") costs: per record in the transform chain, and on the
PostgreSQL CDC worker's throughput.

Per record: 100,000 update events of the PostgreSQL connector's shape (`accounts (id bigint, balance int,
note text)`, its Debezium `source`) through the task's transform chain (`TransformationChain.apply_poll`,
as the task runs it), the best of 5 runs, without transforms and with unwrap in its default mode and in
`rewrite` mode with `add.fields=op,source.ts_ms` and `add.headers=op`; the cost is the difference.

Throughput: bench_postgres_cdc's setup (a throwaway PostgreSQL 15, `changes` row changes, inserts then
updates in transactions of 100, each run reading the same backlog from a slot of its own) through a
standalone worker (the task a thread, JsonConverter without schemas, the embedded Tansu broker), from the
connector's start until every change's offset is committed, without transforms and with `transforms=unwrap`;
rounds alternate the two and the medians are compared. Unwrap writes the row instead of the envelope, so
less is converted and produced.
Target (issue 58): with unwrap ≥ 0.9x without. Run: `python -m bench.bench_unwrap [changes] [rounds]`.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

from bench.bench_postgres_cdc import PARTITIONS, create_slot, drop_slots, run_worker, setup, write_changes
from bench.results import ratio_table, verdict, write_section
from connectworker.api import TopicSettings
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Schema, SchemaType
from connectworker.config.error_handling import ErrorHandling
from connectworker.config.transforms import read_transforms
from connectworker.connectors.debezium.envelope import envelope, envelope_schema
from connectworker.connectors.postgres_cdc.source import SOURCE_SCHEMA
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.clients.admin_client import open_topic_admin
from connectworker.runtime.clients.gc_tuning import tune_gc_for_throughput
from connectworker.runtime.tasks.error_tolerance import ToleranceOperator
from connectworker.runtime.tasks.transform_chain import TransformationChain

TARGET = 0.9
UNWRAP = {"transforms": "unwrap", "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState"}
REWRITE = {
    **UNWRAP,
    "transforms.unwrap.delete.tombstone.handling.mode": "rewrite",
    "transforms.unwrap.add.fields": "op,source.ts_ms",
    "transforms.unwrap.add.headers": "op",
}
CHAINS = {
    "without transforms": {},
    "unwrap": UNWRAP,
    "unwrap, rewrite + add.fields=op,source.ts_ms + add.headers=op": REWRITE,
}
RECORDS = 100_000


def update_events(count: int) -> list[SourceRecord]:
    """Update events as the PostgreSQL connector makes them for `accounts`, one schema object shared."""
    topic = "bench.public.accounts"
    row = Schema.struct(
        f"{topic}.Value",
        ("id", Schema(SchemaType.INT64)),
        ("balance", Schema(SchemaType.INT32)),
        ("note", Schema(SchemaType.STRING, optional=True)),
        optional=True,
    )
    value_schema = envelope_schema(topic, row, SOURCE_SCHEMA)
    key_schema = Schema.struct(f"{topic}.Key", ("id", Schema(SchemaType.INT64)))
    partition = {"server": "bench"}
    records = []
    for i in range(count):
        source = {
            "version": "bench",
            "connector": "postgresql",
            "name": "bench",
            "ts_ms": 1_700_000_000_000 + i,
            "snapshot": "false",
            "db": "bench",
            "sequence": None,
            "ts_us": None,
            "ts_ns": None,
            "schema": "public",
            "table": "accounts",
            "txId": 1000 + i // 100,
            "lsn": 10_000 + i,
            "xmin": None,
        }
        after = {"id": i, "balance": i % 1000 + 1, "note": f"note {i}"}
        value = envelope(None, after, source, "u", 1_700_000_000_000_000_000 + i)
        records.append(
            SourceRecord(partition, {"lsn": 10_000 + i}, topic, value, {"id": i}, None, value_schema, key_schema)
        )
    return records


def chain_seconds(props: dict[str, str], records: list[SourceRecord], runs: int = 5) -> float:
    """The best of `runs` times to put `records` through the chain `props` configures."""
    report = read_transforms(props)
    assert report.config is not None, report.problems
    chain = TransformationChain.build(report.config)
    tolerance = ToleranceOperator(ErrorHandling(), "bench-0", threading.Event())
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        for first in range(0, len(records), 2048):  # polls of max.batch.size records
            chain.apply_poll(records[first : first + 2048], tolerance)
        best = min(best, time.perf_counter() - start)
    chain.close()
    return best


def per_record() -> dict[str, float]:
    """Each chain's µs per record, without transforms included."""
    records = update_events(RECORDS)
    return {label: chain_seconds(props, records) / RECORDS * 1e6 for label, props in CHAINS.items()}


def throughput(changes: int, rounds: int) -> dict[str, list[float]]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.postgres
    from tests.postgres import running_postgres

    variants = {"without transforms": {}, "unwrap": UNWRAP}
    results: dict[str, list[float]] = {label: [] for label in variants}
    with running_postgres() as server, EmbeddedBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        setup(server)
        admin = open_topic_admin(broker.bootstrap_servers)
        for n in range(rounds):
            slots = {label: f"s{i}_{n}" for i, label in enumerate(variants)}
            for slot in slots.values():
                create_slot(server, slot)
            write_changes(server, n * changes, changes)
            for i, (label, extra) in enumerate(variants.items()):  # interleaved: drift hits both alike
                prefix = f"bench-{i}-{n}"
                topic = f"{prefix}.public.accounts"
                admin.create([TopicSettings(topic, PARTITIONS, 1)])
                rate = run_worker(
                    server, broker.bootstrap_servers, slots[label], prefix, changes, Path(tmp), n * 10 + i, "0", extra
                )
                results[label].append(rate)
                admin.delete([topic])  # Tansu keeps every byte in memory
                print(f"round {n} {label}: {rate:,.0f} changes/s", flush=True)
            drop_slots(server)
    return results


def main(changes: int = 200_000, rounds: int = 3) -> None:
    tune_gc_for_throughput()  # as the connectworker command does
    costs = per_record()
    results = throughput(changes, rounds)
    table, ratio = ratio_table("PostgreSQL CDC worker", results, "without transforms")
    base = costs["without transforms"]
    body = "\n".join(
        [
            f"Per record: {RECORDS:,} update events of the PostgreSQL connector's shape through the task's "
            "transform chain (`apply_poll`, polls of 2,048), the best of 5 runs.",
            "",
            "| chain | µs per record | unwrap's cost |",
            "|---|---:|---:|",
            *(
                f"| {label} | {cost:.2f} | {'—' if label == 'without transforms' else f'{cost - base:.2f} µs'} |"
                for label, cost in costs.items()
            ),
            "",
            f"Throughput: {changes:,} row changes (inserts, then updates, in transactions of 100) of a PostgreSQL 15 "
            f"table (bigint id, int, text) from a logical replication slot into a {PARTITIONS}-partition topic of "
            f"the embedded Tansu broker, the task a thread, JsonConverter without schemas, {rounds} round(s).",
            "",
            table,
            "",
            f"Target with unwrap ≥ {TARGET}x without: {verdict(ratio, TARGET)} ({ratio:.2f}x).",
            f"Command: `python -m bench.bench_unwrap {changes} {rounds}`",
        ]
    )
    write_section("Debezium unwrap cost", body)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
