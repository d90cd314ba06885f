"""Incremental snapshots (issue 57): a table of `rows` rows re-read on an `execute-snapshot` signal while its
changes keep streaming, in both CDC connectors: the snapshot's rows/s next to a plain chunked SELECT loop in
the same run, the stream's lag during the snapshot, and whether the topic ends up equal to the table.

For each database (a throwaway PostgreSQL 15 from tests/postgres.py, MariaDB 10.11 from tests/mariadb.py),
`accounts (id bigint primary key, balance int, note text)` holds ids 1..rows (balance 0) and the signal table
`debezium_signal (id, type, data)`. A writer thread commits WRITE_RATE changes/s in transactions of
PER_TRANSACTION (half updates of random existing rows, half inserts of new rows below id 1), each setting
`balance` to its transaction's number, so a consumer can tell which commit a record comes from. It never
updates the row of the greatest id, whose `op: r` record is then the snapshot's last one. A consumer in a
process of its own reads the topic (Debezium JSON without schemas, PARTITIONS partitions of the embedded
Tansu broker). Both sides run while the writer writes:

- raw: a keyset-paginated loop, `SELECT id, balance, note ... WHERE id > <last> AND id <= <greatest id>
  ORDER BY id LIMIT 1024`, each row made the same `op: r` value (and key) the connector writes, produced with
  confluent-kafka; from its first SELECT until the consumer has read the last row;
- worker: a standalone worker streaming the table (`snapshot.mode=no_data`, the task in a process of its
  own, the worker's default), `signal.data.collection` set, `incremental.snapshot.chunk.size=1024`; once
  the consumer sees the writer's changes stream (and WARMUP_S later) the signal row is inserted; from then
  until the consumer has read the last `op: r` record.

The rate is the rows read (the table's rows up to the greatest id, the writer's inserts meanwhile
included) over that time; the snapshot sends no `op: r` record of a row the stream changed while its chunk was
open. Lag: each change the writer commits, its arrival at the
consumer minus the moment its COMMIT returned to the writer; those committed during the snapshot (signal to
the last row read) are the figure, those before the signal the stream's own lag for comparison. After the
snapshot the writer stops, the consumer reads every change it committed, and each row's last state in the
topic is compared with the table.

Targets (issue 57): snapshot >= 0.7x the plain loop; lag p99 during the snapshot <= 2 s; no row differing.
Run: `python -m bench.bench_incremental_snapshot 1000000 both` (rows; postgres, mysql or both).
"""

from __future__ import annotations

import json
import multiprocessing
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, TopicPartition

from bench.bench_mysql_cdc import connector_props
from bench.bench_postgres_cdc import connect, setup, worker_props
from bench.cdc_worker import start_worker
from bench.raw_producer import open_producer, produce
from bench.results import verdict, write_section
from connectworker.api import TopicSettings
from connectworker.config.connector_config import parse_connector_config
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.clients.admin_client import open_topic_admin
from connectworker.runtime.clients.gc_tuning import tune_gc_for_throughput
from connectworker.runtime.status import State

PARTITIONS, CHUNK = 4, 1024
RATE_TARGET, LAG_TARGET_MS = 0.7, 2000
WRITE_RATE, PER_TRANSACTION, WARMUP_S = 1000, 10, 5
DB, TABLE, SIGNALS = "bench", "accounts", "debezium_signal"
TRANSACTIONS = iter(range(1, 1 << 62))  # the writer's transaction numbers, unique over the run


@dataclass
class Database:
    """What the bench needs of one database: connections, the connector's props, the `source` block of a
    snapshot row as the connector writes it."""

    kind: str  # postgres or mysql, as the command line names it
    label: str
    namespace: str  # the table's schema (PostgreSQL) or database (MySQL)
    columns: str  # the table's column types, as the results say them
    connect: Callable[[], Any]  # a DB-API connection in autocommit; `%s` parameters
    props: Callable[[str, str], dict[str, str]]  # (bootstrap, topic.prefix) -> the connector's props
    source: Callable[[str], dict[str, Any]]  # topic.prefix -> a snapshot row's `source` (its instant now)

    def execute(self, *statements: str) -> None:
        connection = self.connect()
        with connection.cursor() as cursor:
            for statement in statements:
                cursor.execute(statement)
        connection.close()

    def count(self) -> int:
        connection = self.connect()
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT count(*) FROM {self.namespace}.{TABLE}")
            (found,) = cursor.fetchone()
        connection.close()
        return int(found)

    def rows(self) -> dict[int, tuple[int, str]]:
        connection = self.connect()
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT id, balance, note FROM {self.namespace}.{TABLE}")
            found = {int(id_): (int(balance), str(note)) for id_, balance, note in cursor.fetchall()}
        connection.close()
        return found


def common_source(connector: str, prefix: str, db: str) -> dict[str, Any]:
    ts_us = time.time_ns() // 1000
    return {
        "version": "raw",
        "connector": connector,
        "name": prefix,
        "ts_ms": ts_us // 1000,
        "snapshot": "incremental",
        "db": db,
        "sequence": None,
        "ts_us": ts_us,
        "ts_ns": ts_us * 1000,
    }


def postgres(server: Any) -> Database:
    def props(bootstrap: str, prefix: str) -> dict[str, str]:
        return worker_props(server, prefix.replace("-", "_"), prefix, f"cdc-{prefix}")

    def source(prefix: str) -> dict[str, Any]:
        block = common_source("postgresql", prefix, DB)
        return {**block, "schema": "public", "table": TABLE, "txId": None, "lsn": None, "xmin": None}

    setup(server)  # the database, `accounts` and the publication `bench` of the PostgreSQL CDC bench
    database = Database(
        "postgres", "PostgreSQL 15", "public", "bigint id, int, text", lambda: connect(server), props, source
    )
    database.execute(
        f"CREATE TABLE {SIGNALS} (id varchar(64) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))",
        f"ALTER PUBLICATION bench ADD TABLE {SIGNALS}",
    )
    return database


def mariadb(server: Any) -> Database:
    def props(bootstrap: str, prefix: str) -> dict[str, str]:
        return connector_props(server, bootstrap, prefix, TABLE)

    def source(prefix: str) -> dict[str, Any]:
        return {
            **common_source("mariadb", prefix, DB),
            "table": TABLE,
            "server_id": 1,
            "gtid": None,
            "file": str(file),
            "pos": int(pos),
            "row": 0,
            "thread": None,
            "query": None,
        }

    file, pos, *_ = server.query("SHOW MASTER STATUS")[0]  # where the raw loop's rows say they were read
    server.execute(f"CREATE DATABASE {DB}")
    database = Database(
        "mysql", "MariaDB 10.11", DB, "BIGINT id, INT, VARCHAR(64)", lambda: server.connect(DB), props, source
    )
    database.execute(
        f"CREATE TABLE {TABLE} (id BIGINT PRIMARY KEY, balance INT NOT NULL, note VARCHAR(64))",
        f"CREATE TABLE {SIGNALS} (id VARCHAR(64) PRIMARY KEY, type VARCHAR(32) NOT NULL, data VARCHAR(2048))",
    )
    return database


def fill(database: Database, rows: int) -> None:
    """ids 1..rows, balance 0, in transactions of 100,000 rows."""
    step = 100_000
    for first in range(1, rows + 1, step):
        last = min(first + step - 1, rows)
        if database.kind == "postgres":
            select = f"SELECT n, 0, 'note ' || n FROM generate_series({first}, {last}) n"
        else:
            select = f"SELECT seq, 0, CONCAT('note ', seq) FROM seq_{first}_to_{last}"
        database.execute(f"INSERT INTO {database.namespace}.{TABLE} {select}")
    if database.kind == "postgres":
        database.execute(f"VACUUM ANALYZE {TABLE}")  # hint bits set now, not by whichever side reads first
    else:
        database.execute(f"ANALYZE TABLE {TABLE}")


class Writer(threading.Thread):
    """WRITE_RATE changes/s in transactions of PER_TRANSACTION until stopped: half updates of distinct
    random rows below the greatest id, half inserts of new ids counting down from 0; every change sets
    `balance` to its transaction's number. `committed_at` maps a transaction to when its COMMIT returned
    (ms since the epoch), `changes` to the rows it changed."""

    def __init__(self, database: Database, rows: int, first_insert: int) -> None:
        super().__init__(name="writer", daemon=True)
        self.database, self.rows, self.next_insert = database, rows, first_insert
        self.committed_at: dict[int, float] = {}
        self.changes: dict[int, int] = {}  # transaction -> the rows it changed
        self.stopping = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self._write()
        except BaseException as exc:  # reported by stop(): a writer that died would skew every figure
            self.error = exc

    def _write(self) -> None:
        rng = random.Random(57)
        connection = self.database.connect()
        table = f"{self.database.namespace}.{TABLE}"
        updates = PER_TRANSACTION // 2
        inserts = PER_TRANSACTION - updates
        in_list = ", ".join(["%s"] * updates)
        values = ", ".join(["(%s, %s, %s)"] * inserts)
        begin, done = time.perf_counter(), 0
        with connection.cursor() as cursor:
            while not self.stopping.is_set():
                txn = next(TRANSACTIONS)
                note = f"w{txn}"
                cursor.execute("BEGIN")
                cursor.execute(
                    f"UPDATE {table} SET balance = %s, note = %s WHERE id IN ({in_list})",
                    (txn, note, *rng.sample(range(1, self.rows), updates)),
                )
                changed = cursor.rowcount
                ids = range(self.next_insert, self.next_insert - inserts, -1)
                self.next_insert -= inserts
                cursor.execute(f"INSERT INTO {table} VALUES {values}", [v for id_ in ids for v in (id_, txn, note)])
                cursor.execute("COMMIT")
                self.committed_at[txn] = time.time() * 1000
                self.changes[txn] = changed + inserts
                done += 1
                pause = begin + done * PER_TRANSACTION / WRITE_RATE - time.perf_counter()
                if pause > 0:
                    time.sleep(pause)
        connection.close()

    def stop(self) -> None:
        self.stopping.set()
        self.join()
        if self.error is not None:
            raise RuntimeError(f"the writer failed: {self.error!r}")


# -- the consumer, in a process of its own (the task's and the raw loop's rivals for the GIL are the same) --
@dataclass
class Consumed:
    reads: int  # op: r records
    last_read_ms: float  # when the last of them arrived
    writes: list[tuple[int, float]]  # each streamed change: (its transaction, when it arrived)
    final: dict[int, tuple[int, str]]  # each row's last state in the topic


def consume(bootstrap: str, topic: str, last_id: int, streaming: Event, snapshot_done: Event, pipe: Connection) -> None:
    """Reads `topic` from its start; sets `streaming` at the first streamed change and `snapshot_done` at the
    `op: r` record of `last_id`. Once told the writer's transactions (number -> rows changed), it reads on
    until it has every change of the transactions from the first it saw on (those committed before the
    connector's stream began are in the table, not in the stream), and sends what it read (`Consumed`) back."""
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "bench", "enable.auto.commit": False, "fetch.wait.max.ms": 10}
    )
    consumer.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    loads = json.loads
    writes: list[tuple[int, float]] = []
    final: dict[int, tuple[int, str]] = {}
    reads, last_read_ms = 0, 0.0
    changes: dict[int, int] | None = None
    first = 1 << 62  # the first transaction streamed
    deadline = float("inf")
    while (
        changes is None
        or not snapshot_done.is_set()
        or len(writes) < sum(n for txn, n in changes.items() if txn >= first)
    ):
        if changes is None and pipe.poll():
            changes = pipe.recv()
            deadline = time.monotonic() + 120
        if time.monotonic() > deadline:
            break  # the parent sees the shortfall and says so
        for message in consumer.consume(1000, timeout=0.1):
            if message.error() is not None or message.value() is None:
                continue
            now = time.time() * 1000
            value = loads(message.value())
            after = value["after"]
            final[after["id"]] = (after["balance"], after["note"])
            if value["op"] == "r":
                reads += 1
                last_read_ms = now
                if after["id"] == last_id:
                    snapshot_done.set()
            else:
                writes.append((after["balance"], now))
                first = min(first, after["balance"])
                streaming.set()
    consumer.close()
    pipe.send(Consumed(reads, last_read_ms, writes, final))


class Reader(AbstractContextManager["Reader"]):
    """The consumer process on `topic`, and what the parent waits on."""

    def __init__(self, bootstrap: str, topic: str, last_id: int) -> None:
        context = multiprocessing.get_context("spawn")  # not fork: this process runs librdkafka's threads
        self.streaming, self.snapshot_done = context.Event(), context.Event()
        self._pipe, child = context.Pipe()
        self._process = context.Process(
            target=consume, args=(bootstrap, topic, last_id, self.streaming, self.snapshot_done, child), daemon=True
        )
        self._process.start()

    def result(self, changes: dict[int, int]) -> Consumed:
        self._pipe.send(changes)
        consumed: Consumed = self._pipe.recv()
        self._process.join(30)
        return consumed

    def __exit__(self, *exc: object) -> None:
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(10)


def wait_for(event: Event, what: str, timeout: float, check: Callable[[], None] = lambda: None) -> None:
    deadline = time.monotonic() + timeout
    while not event.wait(0.1):
        check()
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what}: not within {timeout:.0f} s")


# -- the two sides ---------------------------------------------------------------------------------------
def run_raw(database: Database, bootstrap: str, prefix: str, rows: int, first_insert: int) -> tuple[float, int, int]:
    """The plain loop's rows/s (first SELECT -> last row read by the consumer) while the writer writes, the
    rows it read, and the id the writer's next insert takes."""
    topic = f"{prefix}.{database.namespace}.{TABLE}"
    open_topic_admin(bootstrap).create([TopicSettings(topic, PARTITIONS, 1)])
    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    table = f"{database.namespace}.{TABLE}"
    with Reader(bootstrap, topic, rows) as reader:
        writer = Writer(database, rows, first_insert)
        writer.start()
        start_ms = time.time() * 1000
        connection = database.connect()
        producer = open_producer(bootstrap)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT id FROM {table} ORDER BY id DESC LIMIT 1")
            (greatest,) = cursor.fetchone()
            last: int | None = None
            scanned = 0
            while True:
                if last is None:
                    cursor.execute(
                        f"SELECT id, balance, note FROM {table} WHERE id <= %s ORDER BY id LIMIT {CHUNK}", (greatest,)
                    )
                else:
                    cursor.execute(
                        f"SELECT id, balance, note FROM {table} WHERE id > %s AND id <= %s ORDER BY id LIMIT {CHUNK}",
                        (last, greatest),
                    )
                chunk = cursor.fetchall()
                if not chunk:
                    break
                source = database.source(prefix)
                now_ns = time.time_ns()
                for id_, balance, note in chunk:
                    value = {
                        "before": None,
                        "after": {"id": id_, "balance": balance, "note": note},
                        "source": source,
                        "op": "r",
                        "ts_ms": now_ns // 1_000_000,
                        "ts_us": now_ns // 1000,
                        "ts_ns": now_ns,
                        "transaction": None,
                    }
                    produce(producer, topic, dumps(value).encode(), dumps({"id": id_}).encode())
                producer.poll(0)
                last = chunk[-1][0]
                scanned += len(chunk)
        connection.close()
        if producer.flush(60):
            raise RuntimeError("raw producer did not deliver everything")
        wait_for(reader.snapshot_done, "the consumer reading the raw loop's last row", 60)
        writer.stop()
        consumed = reader.result({})
    open_topic_admin(bootstrap).delete([topic])  # Tansu keeps every byte in memory
    return scanned / ((consumed.last_read_ms - start_ms) / 1000), scanned, writer.next_insert


@dataclass
class WorkerRun:
    rate: float  # rows/s
    scanned: int  # rows in the table at the signal
    reads: int  # op: r records read
    snapshot_s: float
    lags: list[float]  # ms, of the changes committed during the snapshot
    before: list[float]  # ms, of those committed between the stream's first change seen and the signal
    missing: int  # rows of the table absent from the topic
    extra: int  # rows in the topic absent from the table
    differing: int  # rows whose last state in the topic is not the table's


def run_worker(database: Database, bootstrap: str, workdir: Path, rows: int, first_insert: int) -> WorkerRun:
    prefix = f"inc-{database.namespace}"
    topic = f"{prefix}.{database.namespace}.{TABLE}"
    admin = open_topic_admin(bootstrap)
    admin.create([TopicSettings(topic, PARTITIONS, 1), TopicSettings(f"{prefix}.{database.namespace}.{SIGNALS}", 1, 1)])
    props = {
        **database.props(bootstrap, prefix),
        "snapshot.mode": "no_data",
        "signal.data.collection": f"{database.namespace}.{SIGNALS}",
        "incremental.snapshot.chunk.size": str(CHUNK),
    }
    runtime = start_worker(workdir, bootstrap, prefix, None)  # the task in a process of its own (the default)
    assert runtime.worker is not None
    connector = parse_connector_config(props)
    runtime.worker.start_connector(connector)

    def task_failed() -> None:
        tasks = runtime.worker.get(connector.name).tasks if runtime.worker else []
        if tasks and tasks[0].status.state is State.FAILED:
            raise RuntimeError(f"the task FAILED: {tasks[0].status.snapshot()[1]}")

    with Reader(bootstrap, topic, rows) as reader:
        writer = Writer(database, rows, first_insert)
        writer.start()
        wait_for(reader.streaming, "the writer's changes streaming through the worker", 120, task_failed)
        streaming_ms = time.time() * 1000
        time.sleep(WARMUP_S)
        scanned = database.count()  # what the snapshot reads: the rows up to the greatest id, once it starts
        signal_ms = time.time() * 1000
        database.execute(
            f"INSERT INTO {database.namespace}.{SIGNALS} VALUES ('bench', 'execute-snapshot', "
            f'\'{{"data-collections": ["{database.namespace}.{TABLE}"]}}\')'
        )
        wait_for(reader.snapshot_done, "the snapshot's last row read", 600 + rows / 1000, task_failed)
        writer.stop()
        consumed = reader.result(writer.changes)
    runtime.stop()
    admin.delete([topic])
    first = min((txn for txn, _ in consumed.writes), default=0)
    expected = sum(n for txn, n in writer.changes.items() if txn >= first)
    if not consumed.writes or len(consumed.writes) < expected:
        raise RuntimeError(f"the consumer read {len(consumed.writes)} of the {expected} changes streamed")
    end_ms = consumed.last_read_ms
    lags = [arrived - writer.committed_at[txn] for txn, arrived in consumed.writes]
    committed = [writer.committed_at[txn] for txn, _ in consumed.writes]
    table = database.rows()
    final = consumed.final
    return WorkerRun(
        rate=scanned / ((end_ms - signal_ms) / 1000),
        scanned=scanned,
        reads=consumed.reads,
        snapshot_s=(end_ms - signal_ms) / 1000,
        lags=sorted(lag for lag, at in zip(lags, committed, strict=True) if signal_ms <= at <= end_ms),
        before=sorted(lag for lag, at in zip(lags, committed, strict=True) if streaming_ms <= at < signal_ms),
        missing=sum(1 for id_ in table if id_ not in final),
        extra=sum(1 for id_ in final if id_ not in table),
        differing=sum(1 for id_, row in table.items() if id_ in final and final[id_] != row),
    )


def percentiles(lags: list[float]) -> str:
    if not lags:
        return "no changes"
    return f"p50 {lags[len(lags) // 2]:.0f} ms, p99 {lags[int(len(lags) * 0.99)]:.0f} ms, max {lags[-1]:.0f} ms"


def report(database: Database, rows: int, raw: float, raw_rows: int, run: WorkerRun) -> None:
    ratio = run.rate / raw
    p99 = run.lags[int(len(run.lags) * 0.99)] if run.lags else float("inf")
    mismatches = run.missing + run.extra + run.differing
    body = "\n".join(
        [
            f"`python -m bench.bench_incremental_snapshot {rows} {database.kind}`: "
            f"a {database.label} table of {rows:,} rows ({database.columns}) snapshotted in chunks of {CHUNK} "
            f"into a {PARTITIONS}-partition topic of the embedded Tansu broker (Debezium JSON without schemas), "
            f"while a writer commits {WRITE_RATE:,} changes/s (updates and inserts, {PER_TRANSACTION} per "
            "transaction) on both sides; the end is the consumer reading the last row.",
            "",
            "| path | rows/s | rows read, time |",
            "|---|---:|---|",
            f"| raw: keyset-paginated `SELECT ... WHERE id > last ORDER BY id LIMIT {CHUNK}`, same JSON → "
            f"confluent-kafka | {raw:,.0f} | {raw_rows:,}, {raw_rows / raw:.1f} s |",
            f"| worker: `execute-snapshot` signal → incremental snapshot (task process), streaming on | "
            f"{run.rate:,.0f} | {run.scanned:,}, {run.snapshot_s:.1f} s ({run.reads:,} `op: r` records) |",
            "",
            f"snapshot / raw: **{ratio:.2f}**; target ≥ {RATE_TARGET} ({verdict(ratio, RATE_TARGET)})",
            "",
            f"Stream lag during the snapshot ({len(run.lags):,} changes, COMMIT returned → read by the consumer): "
            f"**{percentiles(run.lags)}**; target p99 ≤ {LAG_TARGET_MS} ms "
            f"({'met' if p99 <= LAG_TARGET_MS else 'NOT met'}). Before the signal ({len(run.before):,} changes): "
            f"{percentiles(run.before)}.",
            "",
            f"Final state of every row in the topic against the table: **{mismatches} mismatches** ({run.missing} "
            f"rows missing, {run.extra} not in the table, {run.differing} differing).",
        ]
    )
    write_section(f"Incremental snapshot, {database.label.split()[0]}", body)


def servers(which: str) -> Iterator[tuple[str, Any]]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.postgres, tests.mariadb
    if which in ("postgres", "both"):
        from tests.postgres import running_postgres

        with running_postgres() as server:
            yield "postgres", server
    if which in ("mysql", "both"):
        from tests.mariadb import running_mariadb

        with running_mariadb() as server:
            yield "mysql", server


def main(rows: int = 1_000_000, which: str = "both") -> None:
    if which not in ("postgres", "mysql", "both"):
        raise SystemExit(f"the database is postgres, mysql or both, not {which!r}")
    tune_gc_for_throughput()  # as the connectworker command does; applies to the raw loop alike
    for kind, server in servers(which):
        with EmbeddedBroker() as broker, tempfile.TemporaryDirectory() as tmp:
            database = postgres(server) if kind == "postgres" else mariadb(server)
            print(f"{database.label}: filling {rows:,} rows", flush=True)
            fill(database, rows)
            raw, raw_rows, next_insert = run_raw(database, broker.bootstrap_servers, f"raw-{kind}", rows, 0)
            print(f"{database.label} raw: {raw:,.0f} rows/s", flush=True)
            run = run_worker(database, broker.bootstrap_servers, Path(tmp), rows, next_insert)
            print(f"{database.label} worker: {run.rate:,.0f} rows/s", flush=True)
            report(database, rows, raw, raw_rows, run)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000, sys.argv[2] if len(sys.argv) > 2 else "both")
