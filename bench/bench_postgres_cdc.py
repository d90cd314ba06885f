"""PostgreSQL change data capture: change events/s from a replication slot into Kafka, the worker against a
plain loop over the same kind of stream, in the same run; and the end-to-end lag at a steady write rate.

A throwaway PostgreSQL 15 server (tests/postgres.py, wal_level=logical) holds `accounts (id bigint primary
key, balance int, note text)`. Throughput: for each round two slots are created (one per side), then
`changes` row changes are committed, inserts then updates in transactions of 100, so each side reads the
same backlog from its own slot:

- raw: psycopg2's replication stream read in a loop, pgoutput decoded (this repository's decoder), each
  change made the same Debezium JSON value (no schema) and key the worker writes, produced with
  confluent-kafka, until every change is delivered;
- worker: a standalone worker running the connector (`snapshot.mode=no_data`, JsonConverter without
  schemas), from connector start until every change's offset is committed; the task as a
  thread of the worker's process (`task.processes=0`), and in a task process of its own (the default).

Lag: the worker streams while a writer commits 5,000 changes/s (50 transactions of 100 per second); a
consumer reads the topic, and each change's lag is its arrival at the consumer minus its commit time in
PostgreSQL (`source.ts_ms`): an upper bound of commit -> acknowledged.

Targets (issue 38): worker >= 0.8x raw; lag p99 <= 1 s. Run: `python -m bench.bench_postgres_cdc [changes] [rounds]`.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import psycopg2
import psycopg2.extras
from confluent_kafka import Consumer, TopicPartition

from bench.cdc_worker import start_worker
from bench.raw_producer import open_producer, produce
from bench.results import verdict, write_section
from connectworker.api import TopicSettings
from connectworker.config.connector_config import parse_connector_config
from connectworker.connectors.postgres_cdc import pgoutput as pg
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.clients.admin_client import open_topic_admin
from connectworker.runtime.clients.gc_tuning import tune_gc_for_throughput
from connectworker.runtime.status import State

PARTITIONS = 4
TARGET, LAG_TARGET_MS, LAG_RATE, LAG_SECONDS = 0.8, 1000, 5000, 20
DB = "bench"
KINDS = {"raw": None, "thread": "0", "process": None}  # kind: task.processes (None: the worker's default)


def connect(server: Any, **kwargs: Any) -> Any:
    connection = psycopg2.connect(
        host=server.host, port=server.port, user=server.user, password=server.password, dbname=DB, **kwargs
    )
    if "connection_factory" not in kwargs:
        connection.autocommit = True
    return connection


def setup(server: Any) -> None:
    admin = psycopg2.connect(
        host=server.host, port=server.port, user=server.user, password=server.password, dbname="postgres"
    )
    admin.autocommit = True
    with admin.cursor() as cursor:
        cursor.execute(f"CREATE DATABASE {DB}")
    admin.close()
    connection = connect(server)
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE accounts (id bigint PRIMARY KEY, balance int NOT NULL, note text)")
        cursor.execute("CREATE PUBLICATION bench FOR TABLE accounts")
    connection.close()


def write_changes(server: Any, first_id: int, changes: int) -> None:
    """`changes` changes: half inserts of new ids, half updates of them, committed 100 at a time."""
    inserts = changes // 2
    connection = connect(server)
    with connection.cursor() as cursor:
        cursor.execute(f"""DO $$ BEGIN
            FOR i IN 0..{inserts // 100 - 1} LOOP
              INSERT INTO accounts SELECT {first_id} + i * 100 + n, n, 'note ' || n FROM generate_series(0, 99) n;
              COMMIT;
            END LOOP;
            FOR i IN 0..{(changes - inserts) // 100 - 1} LOOP
              UPDATE accounts SET balance = balance + 1
                WHERE id >= {first_id} + i * 100 AND id < {first_id} + i * 100 + 100;
              COMMIT;
            END LOOP; END $$""")
    connection.close()


def create_slot(server: Any, slot: str) -> None:
    connection = connect(server)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", (slot,))
    connection.close()


def drop_slots(server: Any) -> None:
    """Every replication slot dropped: a round's backlog read, its WAL is released."""
    connection = connect(server)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots")
    connection.close()


def run_raw(server: Any, bootstrap: str, slot: str, topic: str, changes: int) -> float:
    """Changes/s of the plain loop, from starting the stream until the producer delivered everything."""
    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    start = time.perf_counter()
    connection = connect(
        server,
        connection_factory=psycopg2.extras.LogicalReplicationConnection,
        options="-c DateStyle=ISO -c TimeZone=UTC",
    )
    cursor = connection.cursor()
    cursor.start_replication(slot_name=slot, decode=False, options={"proto_version": "1", "publication_names": "bench"})
    producer = open_producer(bootstrap)
    relations: dict[int, Any] = {}
    begin: pg.Begin | None = None
    last_end, sent = 0, 0
    while sent < changes:
        message = cursor.read_message()
        if message is None:
            producer.poll(0)
            time.sleep(0.001)
            continue
        decoded = pg.decode(message.payload)
        if isinstance(decoded, pg.Relation):
            relations[decoded.relid] = decoded
        elif isinstance(decoded, pg.Begin):
            begin = decoded
        elif isinstance(decoded, pg.Commit):
            last_end = decoded.end_lsn
        elif isinstance(decoded, pg.Insert | pg.Update) and begin is not None:
            relation = relations[decoded.relid]
            new = decoded.new
            after = {"id": int(new[0]), "balance": int(new[1]), "note": new[2]}
            ts_ms = int(begin.commit_time.timestamp() * 1000)
            value = {
                "before": None,
                "after": after,
                "source": {
                    "version": "raw",
                    "connector": "postgresql",
                    "name": "bench",
                    "ts_ms": ts_ms,
                    "snapshot": "false",
                    "db": DB,
                    "sequence": json.dumps([str(last_end), str(message.data_start)]),
                    "schema": relation.namespace,
                    "table": relation.name,
                    "txId": begin.xid,
                    "lsn": message.data_start,
                    "xmin": None,
                },
                "op": "c" if isinstance(decoded, pg.Insert) else "u",
                "ts_ms": int(time.time() * 1000),
                "transaction": None,
            }
            produce(producer, topic, dumps(value).encode(), dumps({"id": after["id"]}).encode())
            sent += 1
            if sent % 1000 == 0:
                producer.poll(0)
    if producer.flush(60):
        raise RuntimeError("raw producer did not deliver everything")
    cursor.send_feedback(flush_lsn=last_end, force=True)
    elapsed = time.perf_counter() - start
    connection.close()
    return changes / elapsed


def worker_props(server: Any, slot: str, prefix: str, name: str) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": server.host,
        "database.port": str(server.port),
        "database.user": server.user,
        "database.password": server.password,
        "database.dbname": DB,
        "database.sslmode": "disable",
        "topic.prefix": prefix,
        "slot.name": slot,
        "publication.name": "bench",
        "publication.autocreate.mode": "disabled",
        "snapshot.mode": "no_data",
        "max.batch.size": "2048",
    }


def run_worker(
    server: Any,
    bootstrap: str,
    slot: str,
    prefix: str,
    changes: int,
    workdir: Path,
    n: int,
    processes: str | None,
    extra: Mapping[str, str] | None = None,
) -> float:
    """Changes/s of the connector (its props and `extra`) from its start until every change is committed."""
    runtime = start_worker(workdir, bootstrap, n, processes)
    assert runtime.worker is not None
    connector = parse_connector_config({**worker_props(server, slot, prefix, f"cdc-{n}"), **(extra or {})})
    start = time.perf_counter()
    runtime.worker.start_connector(connector)
    while not runtime.worker.get(connector.name).tasks:
        time.sleep(0.005)
    task = runtime.worker.get(connector.name).tasks[0]  # a thread's task, or a task process's handle
    while task.stats().committed_records < changes:
        if task.status.state is State.FAILED:
            raise RuntimeError(f"the task FAILED: {task.status.snapshot()[1]}")
        time.sleep(0.005)
    elapsed = time.perf_counter() - start
    runtime.stop()
    return changes / elapsed


def measure_lag(server: Any, bootstrap: str, workdir: Path, first_id: int) -> list[float]:
    """Each change's lag (ms) at LAG_RATE changes/s for LAG_SECONDS, through the worker."""
    slot, prefix = "lag", "lag"
    create_slot(server, slot)
    topic = f"{prefix}.public.accounts"
    admin = open_topic_admin(bootstrap)
    admin.create([TopicSettings(topic, PARTITIONS, 1)])
    runtime = start_worker(workdir, bootstrap, 99)
    assert runtime.worker is not None
    runtime.worker.start_connector(parse_connector_config(worker_props(server, slot, prefix, "cdc-lag")))
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "lag", "enable.auto.commit": False, "fetch.wait.max.ms": 10}
    )
    consumer.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    total = LAG_RATE * LAG_SECONDS
    lags: list[float] = []

    def write() -> None:
        connection = connect(server)
        with connection.cursor() as cursor:
            begin = time.perf_counter()
            for i in range(total // 100):
                cursor.execute(
                    "INSERT INTO accounts SELECT %s + n, n, 'lag' FROM generate_series(0, 99) n", (first_id + i * 100,)
                )
                pause = begin + (i + 1) * 100 / LAG_RATE - time.perf_counter()
                if pause > 0:
                    time.sleep(pause)
        connection.close()

    writer = threading.Thread(target=write)
    writer.start()
    deadline = time.monotonic() + LAG_SECONDS + 60
    while len(lags) < total and time.monotonic() < deadline:
        for message in consumer.consume(1000, timeout=0.1):
            if message.error() is None:
                now_ms = time.time() * 1000
                lags.append(now_ms - json.loads(message.value())["source"]["ts_ms"])
    writer.join()
    consumer.close()
    runtime.stop()
    admin.delete([topic])
    if len(lags) < total:
        raise RuntimeError(f"lag run saw {len(lags)} of {total} changes")
    return lags


def main(changes: int = 1_000_000, rounds: int = 1) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.postgres
    from tests.postgres import running_postgres

    tune_gc_for_throughput()  # as the connectworker command does; applies to the raw runs alike
    results: dict[str, list[float]] = {kind: [] for kind in KINDS}
    with running_postgres() as server, EmbeddedBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        setup(server)
        admin = open_topic_admin(broker.bootstrap_servers)
        next_id = 0
        for n in range(rounds):
            for kind in KINDS:
                create_slot(server, f"{kind}_{n}")
            write_changes(server, next_id, changes)
            next_id += changes
            for kind, processes in KINDS.items():  # interleaved so drift on a noisy machine hits all alike
                prefix = f"bench-{kind}-{n}"
                topic = f"{prefix}.public.accounts"
                admin.create([TopicSettings(topic, PARTITIONS, 1)])
                if kind == "raw":
                    rate = run_raw(server, broker.bootstrap_servers, f"raw_{n}", topic, changes)
                else:
                    rate = run_worker(
                        server,
                        broker.bootstrap_servers,
                        f"{kind}_{n}",
                        prefix,
                        changes,
                        Path(tmp),
                        len(results[kind]) * 10 + n,
                        processes,
                    )
                results[kind].append(rate)
                admin.delete([topic])  # Tansu keeps every byte in memory
                print(f"round {n} {kind}: {rate:,.0f} changes/s", flush=True)
            drop_slots(server)
        lags = sorted(measure_lag(server, broker.bootstrap_servers, Path(tmp), next_id))
    raw, worker, in_process = results["raw"], results["thread"], results["process"]
    ratio = statistics.median(worker) / statistics.median(raw)
    process_ratio = statistics.median(in_process) / statistics.median(raw)
    p50, p99 = lags[len(lags) // 2], lags[int(len(lags) * 0.99)]
    body = "\n".join(
        [
            f"`python -m bench.bench_postgres_cdc {changes} {rounds}`: {changes:,} row changes (inserts, then updates, "
            f"in transactions of 100) of a PostgreSQL 15 table (bigint id, int, text) streamed from a logical "
            f"replication slot (pgoutput) into a {PARTITIONS}-partition topic of the embedded Tansu broker, Debezium "
            f"JSON without schemas, {rounds} round(s); each side reads the same backlog from its own slot.",
            "",
            "| path | changes/s (median) | all rounds |",
            "|---|---:|---|",
            f"| raw: psycopg2 replication loop, pgoutput decoded, same JSON → confluent-kafka | "
            f"{statistics.median(raw):,.0f} | {', '.join(f'{r:,.0f}' for r in raw)} |",
            f"| worker, the task a thread (`task.processes=0`): PostgresCdc → JsonConverter, offsets committed | "
            f"{statistics.median(worker):,.0f} | {', '.join(f'{r:,.0f}' for r in worker)} |",
            f"| worker, the task in a process of its own (the default) | {statistics.median(in_process):,.0f} | "
            f"{', '.join(f'{r:,.0f}' for r in in_process)} |",
            "",
            f"worker / raw: **{ratio:.2f}** as a thread, **{process_ratio:.2f}** in a task process; target ≥ {TARGET} "
            f"(thread: {verdict(ratio, TARGET)}; process: {verdict(process_ratio, TARGET)})",
            "",
            f"Lag at {LAG_RATE:,} changes/s for {LAG_SECONDS} s through the worker (commit in PostgreSQL → read by a "
            f"consumer, an upper bound of → acknowledged): p50 **{p50:.0f} ms**, p99 **{p99:.0f} ms**, max "
            f"{lags[-1]:.0f} ms; target p99 ≤ {LAG_TARGET_MS} ms ({'met' if p99 <= LAG_TARGET_MS else 'NOT met'})",
        ]
    )
    write_section("PostgreSQL CDC throughput and lag", body)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
