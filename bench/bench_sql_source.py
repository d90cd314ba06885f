"""SQL table source throughput: rows/s from a PostgreSQL table into Kafka, against a plain SQLAlchemy
`SELECT … ORDER BY id` loop producing the same rows with confluent-kafka, in the same run.

A throwaway PostgreSQL server (tests/postgres.py: a cluster of our own, or the one named by
CONNECTWORKER_TEST_POSTGRES_URL) holds one table of `rows` rows (bigint id, text, numeric(10,2),
timestamp). Both sides read every row through a server-side cursor and send JSON without schemas:

- raw: `stream_results` + `yield_per`, each row made the same JSON dict the worker writes (the numeric as
  exact text, the timestamp as epoch milliseconds) and produced with the id's JSON as key;
- worker: a standalone worker running SqlSource (`mode=incrementing`, `batch.max.rows=5000`,
  JsonConverter with `schemas.enable=false` for keys and values), from connector start until its graceful
  stop has committed the last row's offset.

Target (issue 27): worker ≥ 0.8x raw. Run: `python -m bench.bench_sql_source [rows] [rounds]`.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import sqlalchemy
from confluent_kafka import Producer
from sqlalchemy import text

from bench.results import verdict, write_section
from connectworker.api import TopicSettings
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.runtime.clients.admin_client import open_topic_admin
from connectworker.runtime.clients.gc_tuning import tune_gc_for_throughput
from connectworker.runtime.clients.producer_settings import PRODUCER_DEFAULTS
from connectworker.runtime.herder.standalone import StandaloneRuntime

JSON = "org.apache.kafka.connect.json.JsonConverter"
PARTITIONS = 4
BATCH_ROWS = 5000
TARGET = 0.8
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def fill(url: str, rows: int) -> None:
    engine = sqlalchemy.create_engine(url)
    with engine.begin() as connection:
        connection.execute(text("DROP TABLE IF EXISTS orders"))
        connection.execute(
            text(
                "CREATE TABLE orders (id bigint PRIMARY KEY, item text NOT NULL, "
                "amount numeric(10, 2), created timestamp NOT NULL)"
            )
        )
        connection.execute(
            text(
                f"INSERT INTO orders SELECT n, 'item-' || n, n % 100000 / 100.0, "
                f"timestamp '2026-01-01' + n * interval '1 millisecond' "
                f"FROM generate_series(1, {rows}) n"
            )
        )
        connection.execute(text("ANALYZE orders"))
    engine.dispose()


def _row_value(row: Any) -> dict[str, Any]:
    amount: Decimal | None = row.amount
    return {
        "id": row.id,
        "item": row.item,
        "amount": None if amount is None else format(amount, "f"),
        "created": (row.created.replace(tzinfo=UTC) - _EPOCH) // _MILLI,
    }


_MILLI = datetime(1970, 1, 1, 0, 0, 0, 1000, tzinfo=UTC) - _EPOCH


def run_raw(url: str, bootstrap: str, topic: str, rows: int) -> float:
    """Rows/s of the plain loop, from the query's start until the producer delivered everything."""
    dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
    engine = sqlalchemy.create_engine(url)
    start = time.perf_counter()
    producer = Producer({**PRODUCER_DEFAULTS, "bootstrap.servers": bootstrap})
    produce = producer.produce
    sent = 0
    with engine.connect() as connection:
        result = connection.execution_options(stream_results=True, yield_per=BATCH_ROWS).execute(
            text("SELECT id, item, amount, created FROM orders ORDER BY id")
        )
        for row in result:
            value = dumps(_row_value(row)).encode()
            key = dumps({"id": row.id}).encode()
            while True:
                try:
                    produce(topic, value, key)
                    break
                except BufferError:
                    producer.poll(0.05)
            sent += 1
            if sent % 1000 == 0:
                producer.poll(0)
    if producer.flush(60):
        raise RuntimeError("raw producer did not deliver everything")
    elapsed = time.perf_counter() - start
    engine.dispose()
    if sent != rows:
        raise RuntimeError(f"raw loop read {sent} of {rows} rows")
    return rows / elapsed


def run_worker(url: str, bootstrap: str, prefix: str, rows: int, workdir: Path, n: int) -> float:
    """Rows/s of a standalone worker running SqlSource until every row's offset was committed."""
    config = WorkerConfig.from_properties(
        {
            # the record path in this process: its CPU measured, the task's counters read every millisecond
            "task.processes": "0",
            "bootstrap.servers": bootstrap,
            "offset.storage.file.filename": str(workdir / f"offsets-{n}.json"),
            "key.converter": JSON,
            "value.converter": JSON,
            "key.converter.schemas.enable": "false",
            "value.converter.schemas.enable": "false",
            "offset.flush.interval.ms": "1000",
        }
    )
    runtime = StandaloneRuntime(config).start()
    assert runtime.worker is not None
    connector = parse_connector_config(
        {
            "name": f"sql-{n}",
            "connector.class": "SqlSource",
            "connection.url": url,
            "mode": "incrementing",
            "incrementing.column.name": "id",
            "topic.prefix": prefix,
            "batch.max.rows": str(BATCH_ROWS),
            "poll.interval.ms": "1000",
            "table.poll.interval.ms": "60000",
        }
    )
    start = time.perf_counter()
    runtime.worker.start_connector(connector)
    task = runtime.worker.get(connector.name).tasks[0]
    while task.stats().produced < rows:
        time.sleep(0.01)
    runtime.stop()  # flushes, waits for every ack, commits offsets
    elapsed = time.perf_counter() - start
    if task.committed_records != rows:
        raise RuntimeError(f"worker committed {task.committed_records} of {rows}")
    return rows / elapsed


def main(rows: int = 1_000_000, rounds: int = 3) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests.postgres
    from tests.postgres import running_postgres

    tune_gc_for_throughput()  # as the connectworker command does; applies to the raw runs alike
    raw: list[float] = []
    worker: list[float] = []
    with running_postgres() as server, EmbeddedBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        url = server.sqlalchemy_url
        fill(url, rows)
        admin = open_topic_admin(broker.bootstrap_servers)
        for n in range(rounds):  # interleaved so drift on a noisy machine hits both alike
            for kind in ("raw", "worker"):
                prefix = f"bench-sql-{kind}-{n}-"
                topic = prefix + "orders"
                admin.create([TopicSettings(topic, PARTITIONS, 1)])
                if kind == "raw":
                    raw.append(run_raw(url, broker.bootstrap_servers, topic, rows))
                else:
                    worker.append(run_worker(url, broker.bootstrap_servers, prefix, rows, Path(tmp), n))
                admin.delete([topic])  # Tansu keeps every byte in memory
    ratio = statistics.median(worker) / statistics.median(raw)
    rounds_ratio = ", ".join(f"{w / r:.2f}" for w, r in zip(worker, raw, strict=True))
    body = "\n".join(
        [
            f"`python -m bench.bench_sql_source {rows} {rounds}`: a {rows:,}-row PostgreSQL 15 table (bigint id, text, "
            f"numeric(10,2), timestamp) into a {PARTITIONS}-partition topic of the embedded Tansu broker, JSON without "
            f"schemas, {rounds} interleaved rounds; both read through a server-side cursor in {BATCH_ROWS:,}-row "
            "slices.",
            "",
            "| path | rows/s (median) | all rounds |",
            "|---|---:|---|",
            f"| raw: SQLAlchemy `SELECT … ORDER BY id` loop → confluent-kafka | {statistics.median(raw):,.0f} | "
            f"{', '.join(f'{r:,.0f}' for r in raw)} |",
            f"| worker: SqlSource (incrementing) → JsonConverter | {statistics.median(worker):,.0f} | "
            f"{', '.join(f'{r:,.0f}' for r in worker)} |",
            "",
            f"worker / raw: **{ratio:.2f}** (rounds: {rounds_ratio}); target ≥ {TARGET} ({verdict(ratio, TARGET)})",
        ]
    )
    write_section("SQL source throughput", body)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
