"""MySQL / MariaDB change data capture: change events/s from the binlog into Kafka, the worker against a plain
binlog-reading loop that produces the same JSON, in the same run; and the end-to-end lag at a steady rate.

A throwaway MariaDB 10.11 server (tests/mariadb.py: row-based binlog, full row images, no row metadata)
holds, per round, a table `accounts_N (id BIGINT PRIMARY KEY, balance INT NOT NULL, note VARCHAR(64))` with one row.
Each worker variant's connector first takes its snapshot (that row), which writes the table's schema to its
schema history topic, and is stopped; then `changes` row changes are committed (inserts, then updates, in
transactions of 100), and each side reads that same backlog of the binlog:

- raw: mysql-replication's BinLogStreamReader from the backlog's first position, each row event made the
  Debezium JSON value (no schema) and key the worker writes (column names from the table's known schema,
  as the binlog carries none), produced with confluent-kafka, until every change is delivered;
- raw-planned: the same loop with the rows decoded by the connector's row decoder (its table maps primed
  from the table's parsed SHOW CREATE TABLE, as the connector primes them from its history): the worker's
  own cost next to the same decoding;
- worker: a standalone worker restarted on the connector (it resumes from its committed binlog position and
  recovers the table's schema from its history topic), JsonConverter without schemas, from connector start
  until every change's offset is committed; the task as a thread (`task.processes=0`) and in a task
  process of its own (the default).

Beside them, each round, the worker (task a thread) reads a DDL-heavy backlog of another table: the same
changes with an ALTER TABLE (adding a nullable column, then dropping it again) after every 1,000, each of
which the connector parses, applies to the held schema and records in its history topic (synchronously)
before the changes after it.

Lag: the worker streams while a writer commits 5,000 changes/s (50 transactions of 100 per second); a
consumer reads the topic, and each change's lag is its arrival at the consumer minus the moment its
transaction's COMMIT returned to the writer (the binlog's own timestamps are whole seconds).

Targets (issue 46, kept by issue 59): worker >= 0.9x raw; lag p99 <= 1 s.
Run: `python -m bench.bench_mysql_cdc [changes] [rounds]`.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, TopicPartition

from bench.cdc_worker import start_worker
from bench.raw_producer import open_producer, produce
from bench.results import verdict, write_section
from connectworker.api import TopicSettings
from connectworker.config.connector_config import parse_connector_config
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.clients.admin_client import open_topic_admin
from connectworker.runtime.clients.gc_tuning import tune_gc_for_throughput
from connectworker.runtime.status import State

PARTITIONS = 4
TARGET, LAG_TARGET_MS, LAG_RATE, LAG_SECONDS = 0.9, 1000, 5000, 20
ALTER_EVERY = 1000  # the DDL-heavy backlog: one ALTER TABLE per this many changes
DB = "bench"
KINDS = {"raw": None, "raw-planned": None, "thread": "0", "process": None}  # kind: task.processes (None: default)
REPLICA_IDS = iter(range(100, 10_000))  # database.server.id: one per binlog client


def create_table(server: Any, table: str) -> None:
    """The table, with one row below the changes' ids: a snapshot of an empty table sends no record, so it
    commits no offset, and the restarted connector would snapshot the backlog instead of streaming it."""
    server.execute(
        f"CREATE TABLE IF NOT EXISTS {DB}.{table} (id BIGINT PRIMARY KEY, balance INT NOT NULL, note VARCHAR(64))",
        f"INSERT IGNORE INTO {DB}.{table} VALUES (-1, 0, 'seed')",
    )


def binlog_position(server: Any) -> tuple[str, int]:
    file, pos, *_ = server.query("SHOW MASTER STATUS")[0]
    return str(file), int(pos)


def write_changes(server: Any, table: str, first_id: int, changes: int, alter_every: int = 0) -> None:
    """`changes` changes: half inserts of new ids, half updates of them, committed 100 at a time; with
    `alter_every`, an ALTER TABLE after every that many changes (adding a nullable column, then dropping it)."""
    inserts = changes // 2
    connection = server.connect(DB)
    connection.autocommit(False)
    done, added = 0, False

    def alter_when_due(cursor: Any) -> None:
        nonlocal done, added
        done += 100
        if alter_every and done % alter_every == 0:
            cursor.execute(f"ALTER TABLE {table} {'DROP COLUMN extra' if added else 'ADD COLUMN extra INT'}")
            added = not added

    with connection.cursor() as cursor:
        for i in range(inserts // 100):
            base = first_id + i * 100
            rows = f"SELECT {base} + seq, seq, CONCAT('note ', seq) FROM seq_0_to_99"
            cursor.execute(f"INSERT INTO {table} (id, balance, note) {rows}")
            connection.commit()
            alter_when_due(cursor)
        for i in range((changes - inserts) // 100):
            base = first_id + i * 100
            cursor.execute(f"UPDATE {table} SET balance = balance + 1 WHERE id >= {base} AND id < {base + 100}")
            connection.commit()
            alter_when_due(cursor)
    connection.close()


def run_raw(
    server: Any, bootstrap: str, start: tuple[str, int], prefix: str, table: str, changes: int, planned: bool
) -> float:
    """Changes/s of the plain loop, from opening the binlog until the producer delivered everything; with
    `planned`, the rows decoded by the connector's row decoder (its table maps primed as the connector
    primes them) instead of mysql-replication's."""
    from pymysqlreplication import BinLogStreamReader
    from pymysqlreplication.event import MariadbGtidEvent
    from pymysqlreplication.row_event import TableMapEvent, UpdateRowsEvent, WriteRowsEvent

    from connectworker.connectors.mysql_cdc.binlog import prime_columns
    from connectworker.connectors.mysql_cdc.database import connect
    from connectworker.connectors.mysql_cdc.row_decoder import decode_rows
    from connectworker.connectors.mysql_cdc.schema_snapshot import parsed_table

    catalog = connect(server.host, server.port, "root", "root-secret")
    known = [c.binlog_view for c in parsed_table(catalog, DB, table).catalog()]
    catalog.close()

    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    names = ("id", "balance", "note")
    topic = f"{prefix}.{DB}.{table}"
    begin = time.perf_counter()
    stream = BinLogStreamReader(
        connection_settings={"host": server.host, "port": server.port, "user": "root", "passwd": "root-secret"},
        server_id=next(REPLICA_IDS),
        log_file=start[0],
        log_pos=start[1],
        resume_stream=True,
        blocking=True,
        only_events=[MariadbGtidEvent, WriteRowsEvent, UpdateRowsEvent, *([TableMapEvent] if planned else [])],
        only_tables=[table],
        only_schemas=[DB],
    )
    producer = open_producer(bootstrap)
    gtid, transaction_pos, sent = None, start[1], 0
    for event in stream:
        if isinstance(event, MariadbGtidEvent):
            gtid, transaction_pos = event.gtid, stream.log_pos - event.event_size
            continue
        if isinstance(event, TableMapEvent):
            prime_columns(f"{DB}.{table}", event.columns, known)
            continue
        ts_ms = event.timestamp * 1000
        for row_number, row in enumerate(decode_rows(event) if planned else event.rows):
            values = row["after_values"] if "after_values" in row else row["values"]
            after = dict(zip(names, values.values(), strict=True))
            before = dict(zip(names, row["before_values"].values(), strict=True)) if "before_values" in row else None
            now_ns = time.time_ns()
            value = {
                "before": before,
                "after": after,
                "source": {
                    "version": "raw",
                    "connector": "mariadb",
                    "name": prefix,
                    "ts_ms": ts_ms,
                    "snapshot": "false",
                    "db": DB,
                    "sequence": None,
                    "ts_us": ts_ms * 1000,
                    "ts_ns": ts_ms * 1_000_000,
                    "table": table,
                    "server_id": event.packet.server_id,
                    "gtid": gtid,
                    "file": stream.log_file,
                    "pos": transaction_pos,
                    "row": row_number,
                    "thread": None,
                    "query": None,
                },
                "op": "u" if before is not None else "c",
                "ts_ms": now_ns // 1_000_000,
                "ts_us": now_ns // 1000,
                "ts_ns": now_ns,
                "transaction": None,
            }
            produce(producer, topic, dumps(value).encode(), dumps({"id": after["id"]}).encode())
            sent += 1
            if sent % 1000 == 0:
                producer.poll(0)
        if sent >= changes:
            break
    stream.close()
    if producer.flush(60):
        raise RuntimeError("raw producer did not deliver everything")
    return changes / (time.perf_counter() - begin)


def connector_props(server: Any, bootstrap: str, prefix: str, table: str) -> dict[str, str]:
    return {
        "name": f"cdc-{prefix}",
        "connector.class": "io.debezium.connector.mysql.MySqlConnector",
        "database.hostname": server.host,
        "database.port": str(server.port),
        "database.user": "root",
        "database.password": "root-secret",
        "database.server.id": str(next(REPLICA_IDS)),
        "topic.prefix": prefix,
        "database.include.list": DB,
        "table.include.list": f"{DB}.{table}",
        "schema.history.internal.kafka.bootstrap.servers": bootstrap,
        "schema.history.internal.kafka.topic": f"history-{prefix}",
        "include.schema.changes": "false",
    }


def take_snapshot(props: dict[str, str], workdir: Path, bootstrap: str) -> None:
    """Run the connector until its (empty) snapshot is committed: its history then holds the table."""
    runtime = start_worker(workdir, bootstrap, props["topic.prefix"])
    assert runtime.worker is not None
    connector = parse_connector_config(props)
    runtime.worker.start_connector(connector)
    store = runtime.worker.offset_store
    deadline = time.monotonic() + 60
    while not any("snapshot_completed" in str(o) for o in store.offsets(connector.name).values()):
        if time.monotonic() > deadline:
            raise RuntimeError(f"the snapshot of {props['table.include.list']} was not committed")
        time.sleep(0.05)
    runtime.stop()


def run_worker(props: dict[str, str], workdir: Path, bootstrap: str, changes: int, processes: str | None) -> float:
    runtime = start_worker(workdir, bootstrap, props["topic.prefix"], processes)
    assert runtime.worker is not None
    connector = parse_connector_config(props)
    begin = time.perf_counter()
    runtime.worker.start_connector(connector)
    while not runtime.worker.get(connector.name).tasks:
        time.sleep(0.005)
    task = runtime.worker.get(connector.name).tasks[0]  # a thread's task, or a task process's handle
    while task.stats().committed_records < changes:
        if task.status.state is State.FAILED:
            raise RuntimeError(f"the task FAILED: {task.status.snapshot()[1]}")
        time.sleep(0.005)
    elapsed = time.perf_counter() - begin
    runtime.stop()
    return changes / elapsed


def measure_lag(server: Any, bootstrap: str, workdir: Path) -> list[float]:
    """Each change's lag (ms) at LAG_RATE changes/s for LAG_SECONDS, through the worker."""
    table, prefix = "accounts_lag", "lag"
    create_table(server, table)
    topic = f"{prefix}.{DB}.{table}"
    admin = open_topic_admin(bootstrap)
    admin.create([TopicSettings(topic, PARTITIONS, 1)])
    runtime = start_worker(workdir, bootstrap, prefix, None)
    assert runtime.worker is not None
    connector = parse_connector_config(connector_props(server, bootstrap, prefix, table))
    runtime.worker.start_connector(connector)
    while not runtime.worker.get(connector.name).tasks or (
        runtime.worker.get(connector.name).tasks[0].status.state is not State.RUNNING
    ):
        time.sleep(0.05)
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": "lag", "enable.auto.commit": False, "fetch.wait.max.ms": 10}
    )
    consumer.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    total = LAG_RATE * LAG_SECONDS
    committed_at: dict[int, float] = {}  # batch -> when its COMMIT returned (ms since the epoch)
    lags: list[float] = []

    def write() -> None:
        connection = server.connect(DB)
        connection.autocommit(False)
        with connection.cursor() as cursor:
            begin = time.perf_counter()
            for i in range(total // 100):
                cursor.execute(f"INSERT INTO {table} SELECT {i * 100} + seq, seq, 'lag' FROM seq_0_to_99")
                connection.commit()
                committed_at[i] = time.time() * 1000
                pause = begin + (i + 1) * 100 / LAG_RATE - time.perf_counter()
                if pause > 0:
                    time.sleep(pause)
        connection.close()

    writer = threading.Thread(target=write)
    writer.start()
    arrivals: list[tuple[int, float]] = []
    deadline = time.monotonic() + LAG_SECONDS + 60
    while len(arrivals) < total and time.monotonic() < deadline:
        for message in consumer.consume(1000, timeout=0.1):
            if message.error() is None and message.value() is not None:
                row_id = json.loads(message.value())["after"]["id"]
                if row_id >= 0:  # not the seed row of the snapshot
                    arrivals.append((row_id, time.time() * 1000))
    writer.join()
    consumer.close()
    runtime.stop()
    admin.delete([topic])
    if len(arrivals) < total:
        raise RuntimeError(f"lag run saw {len(arrivals)} of {total} changes")
    lags = [arrived - committed_at[row_id // 100] for row_id, arrived in arrivals]
    return lags


def main(changes: int = 200_000, rounds: int = 1) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.mariadb
    from tests.mariadb import running_mariadb

    tune_gc_for_throughput()  # as the connectworker command does; applies to the raw runs alike
    results: dict[str, list[float]] = {kind: [] for kind in KINDS}
    ddl_rates: list[float] = []
    with running_mariadb() as server, EmbeddedBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        bootstrap, workdir = broker.bootstrap_servers, Path(tmp)
        server.execute(f"CREATE DATABASE {DB}")
        admin = open_topic_admin(bootstrap)
        for n in range(rounds):
            table = f"accounts_{n}"
            create_table(server, table)
            props = {
                kind: connector_props(server, bootstrap, f"bench-{kind}-{n}", table)
                for kind in KINDS
                if not kind.startswith("raw")
            }
            ddl_table = f"altered_{n}"
            create_table(server, ddl_table)
            props["ddl"] = connector_props(server, bootstrap, f"bench-ddl-{n}", ddl_table)
            for kind_props in props.values():
                take_snapshot(kind_props, workdir, bootstrap)
            start = binlog_position(server)
            write_changes(server, table, 0, changes)
            write_changes(server, ddl_table, 0, changes, ALTER_EVERY)
            for kind, processes in KINDS.items():  # interleaved so drift on a noisy machine hits all alike
                prefix = f"bench-{kind}-{n}"
                topic = f"{prefix}.{DB}.{table}"
                admin.create([TopicSettings(topic, PARTITIONS, 1)])
                if kind.startswith("raw"):
                    rate = run_raw(server, bootstrap, start, prefix, table, changes, kind == "raw-planned")
                else:
                    rate = run_worker(props[kind], workdir, bootstrap, changes, processes)
                results[kind].append(rate)
                admin.delete([topic])  # Tansu keeps every byte in memory
                print(f"round {n} {kind}: {rate:,.0f} changes/s", flush=True)
            topic = f"bench-ddl-{n}.{DB}.{ddl_table}"  # beside them: the worker (thread) on the DDL-heavy backlog
            admin.create([TopicSettings(topic, PARTITIONS, 1)])
            ddl_rates.append(run_worker(props["ddl"], workdir, bootstrap, changes, "0"))
            admin.delete([topic])
            print(f"round {n} thread, DDL-heavy: {ddl_rates[-1]:,.0f} changes/s", flush=True)
        lags = sorted(measure_lag(server, bootstrap, workdir))
    raw, planned, worker, in_process = (results[k] for k in KINDS)
    # each round's sides run back to back: the median of the rounds' ratios is what drift on a noisy machine
    # disturbs least (a slow spell in one round moves that round's ratio, not the others')
    ratio = statistics.median(w / r for w, r in zip(worker, raw, strict=True))
    process_ratio = statistics.median(p / r for p, r in zip(in_process, raw, strict=True))
    planned_ratio = statistics.median(w / r for w, r in zip(worker, planned, strict=True))
    ddl_ratio = statistics.median(d / r for d, r in zip(ddl_rates, raw, strict=True))
    ddl_cost = statistics.median(d / w for d, w in zip(ddl_rates, worker, strict=True))
    p50, p99 = lags[len(lags) // 2], lags[int(len(lags) * 0.99)]
    body = "\n".join(
        [
            f"`python -m bench.bench_mysql_cdc {changes} {rounds}`: {changes:,} row changes (inserts, then updates, in "
            f"transactions of 100) of a MariaDB 10.11 table (BIGINT id, INT, VARCHAR) streamed from the row-based "
            f"binlog into a {PARTITIONS}-partition topic of the embedded Tansu broker, Debezium JSON without schemas, "
            f"{rounds} round(s); every side reads the same backlog of the binlog.",
            "",
            "| path | changes/s (median) | all rounds |",
            "|---|---:|---|",
            f"| raw: mysql-replication's binlog reader, same JSON → confluent-kafka | "
            f"{statistics.median(raw):,.0f} | {', '.join(f'{r:,.0f}' for r in raw)} |",
            f"| raw, the rows decoded by the connector's row decoder (`row_decoder.py`) | "
            f"{statistics.median(planned):,.0f} | {', '.join(f'{r:,.0f}' for r in planned)} |",
            f"| worker, the task a thread (`task.processes=0`): MySqlConnector → JsonConverter, offsets committed | "
            f"{statistics.median(worker):,.0f} | {', '.join(f'{r:,.0f}' for r in worker)} |",
            f"| worker, the task in a process of its own (the default) | {statistics.median(in_process):,.0f} | "
            f"{', '.join(f'{r:,.0f}' for r in in_process)} |",
            f"| worker (thread), DDL-heavy backlog: an ALTER TABLE (ADD / DROP COLUMN) every {ALTER_EVERY:,} changes, "
            f"each parsed, applied and recorded in the history | {statistics.median(ddl_rates):,.0f} | "
            f"{', '.join(f'{r:,.0f}' for r in ddl_rates)} |",
            "",
            f"worker / raw (the median of the rounds' ratios): **{ratio:.2f}** as a thread, "
            f"**{process_ratio:.2f}** in a task process; target ≥ {TARGET} "
            f"(thread: {verdict(ratio, TARGET)}; process: {verdict(process_ratio, TARGET)}). The worker decodes rows "
            f"with its own row decoder; against the plain loop given that decoder too, the worker (thread) makes "
            f"**{planned_ratio:.2f}**x its rate: what the worker's record path, converter and offsets cost. "
            f"On the DDL-heavy backlog the worker (thread) makes **{ddl_ratio:.2f}**x the plain loop's rate (on the "
            f"backlog without DDL) and **{ddl_cost:.2f}**x its own rate without DDL.",
            "",
            f"Lag at {LAG_RATE:,} changes/s for {LAG_SECONDS} s through the worker (COMMIT returned → read by a "
            f"consumer): p50 **{p50:.0f} ms**, p99 **{p99:.0f} ms**, max {lags[-1]:.0f} ms; target p99 ≤ "
            f"{LAG_TARGET_MS} ms ({'met' if p99 <= LAG_TARGET_MS else 'NOT met'})",
        ]
    )
    write_section("MySQL / MariaDB CDC throughput and lag", body)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
