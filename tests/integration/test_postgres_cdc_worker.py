"""PostgreSQL change data capture through the worker, against the real server and the test broker: a
10,000-row snapshot taken while a writer inserts, updates and deletes, every row's final state rebuilt from
the topic; topics created by the connector's topic.creation rules (a table created mid-run included); the
slot confirmed once offsets are committed; an unmappable column failing the task; the worker SIGKILLed
mid-stream losing no change."""

from __future__ import annotations

import json
import random
import signal
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer
from confluent_kafka.admin import AdminClient

from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.cdc_helpers import (
    ENVELOPE_FIELDS,
    CdcDatabase,
    assign_all,
    cdc_database,
    decimal_json,
    read_all,
    read_until,
)
from tests.integration.harness import running_worker, task_state, wait_until, worker_config
from tests.integration.test_repeated_sigkill import run_to_completion, start_worker
from tests.integration.topic_checks import partition_count, topic_configs
from tests.postgres import Postgres

MARKER = 10_000_000


@pytest.fixture
def db(postgres: Postgres) -> Iterator[CdcDatabase]:
    with cdc_database(postgres) as database:
        yield database


def fold(messages: list[Any]) -> dict[int, dict[str, Any]]:
    """Each row's last state as the change events tell it (a keyed table: a key's events keep their order)."""
    rows: dict[int, dict[str, Any]] = {}
    for key, value in messages:
        if value is None:
            continue  # a tombstone
        payload = value["payload"]
        if payload["op"] == "d":
            rows.pop(key["id"], None)
        else:
            rows[key["id"]] = payload["after"]
    return rows


def writer(db: CdcDatabase, stop: threading.Event, seed: int) -> None:
    """Random inserts, updates and deletes, a few per transaction, until `stop`."""
    rng = random.Random(seed)
    connection = db.connect()
    connection.autocommit = False
    next_id = 20_000
    try:
        with connection.cursor() as cursor:
            while not stop.is_set():
                for _ in range(rng.randint(1, 5)):
                    action = rng.random()
                    if action < 0.4:
                        cursor.execute("INSERT INTO accounts VALUES (%s, %s, 'new')", (next_id, rng.randint(0, 999)))
                        next_id += 1
                    elif action < 0.8:
                        cursor.execute(
                            "UPDATE accounts SET balance = balance + 1, note = 'updated' WHERE id = %s",
                            (rng.randrange(0, next_id),),
                        )
                    else:
                        cursor.execute("DELETE FROM accounts WHERE id = %s", (rng.randrange(0, next_id),))
                connection.commit()
    finally:
        connection.close()


@pytest.mark.long(seconds=20)
def test_snapshot_under_writes_then_stream_rebuilds_every_row_and_topics_follow_the_rules(
    broker: Broker, admin: AdminClient, db: CdcDatabase, tmp_path: Path
) -> None:
    db.execute(
        "CREATE TABLE accounts (id bigint PRIMARY KEY, balance int NOT NULL, note text)",
        "INSERT INTO accounts SELECT n, n % 1000, 'row ' || n FROM generate_series(0, 9999) n",
    )
    topic, refunds = f"{db.name}.public.accounts", f"{db.name}.public.refunds"
    config = worker_config(
        broker.bootstrap_servers,
        tmp_path,
        **{
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "false",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "true",
            "topic.creation.enable": "true",
        },
    )
    props = db.props(
        **{
            "topic.creation.default.partitions": "2",
            "topic.creation.default.replication.factor": "1",
            "topic.creation.groups": "money",
            "topic.creation.money.include": rf"{db.name}\.public\.refunds",
            "topic.creation.money.partitions": "3",
            "compact.keyed.table.topics": "true",
            "max.batch.size": "500",
        }
    )
    stop = threading.Event()
    thread = threading.Thread(target=writer, args=(db, stop, 38))
    thread.start()
    try:
        with running_worker(config, props) as runtime:
            assert runtime.worker is not None
            wait_until(lambda: task_state(runtime.worker, props["name"])[0] is State.RUNNING, 30, "the task to run")
            read_until(broker.bootstrap_servers, topic, lambda k, v: v is not None and v["payload"]["op"] != "r")
            stop.set()
            thread.join()
            db.execute(f"INSERT INTO accounts VALUES ({MARKER}, 0, 'marker')")
            [(_, marker)] = read_until(broker.bootstrap_servers, topic, lambda k, v: k == {"id": MARKER})[-1:]
            marker_lsn = marker["payload"]["source"]["lsn"]  # once the slot is confirmed past the marker, every
            wait_until(
                lambda: db.confirmed_flush_lsn() > marker_lsn,
                30,  # record before it is in Kafka
                lambda: f"the slot confirmed past {marker_lsn} (at {db.confirmed_flush_lsn()})",
            )
            messages = read_all(broker.bootstrap_servers, topic)
            expected = {
                row[0]: {"id": row[0], "balance": row[1], "note": row[2]}
                for row in db.query("SELECT id, balance, note FROM accounts")
            }
            assert fold(messages) == expected
            ops = {v["payload"]["op"] for _, v in messages if v is not None}
            assert ops == {"r", "c", "u", "d"}
            snapshot_ids = [k["id"] for k, v in messages if v is not None and v["payload"]["op"] == "r"]
            assert len(snapshot_ids) == len(set(snapshot_ids)) >= 9_000  # each row of the cut once

            _, first = messages[0]
            assert first["schema"]["name"] == f"{topic}.Envelope"
            assert [f["field"] for f in first["schema"]["fields"]] == ENVELOPE_FIELDS

            db.execute(
                "CREATE TABLE refunds (id int PRIMARY KEY, amount numeric(8, 2))",
                "INSERT INTO refunds SELECT n, n * 1.5 FROM generate_series(1, 5) n",
            )
            made: dict[int, Any] = {}
            read_until(
                broker.bootstrap_servers,
                refunds,  # 3 partitions: read until every row is seen
                lambda k, v: made.update({k["id"]: v["payload"]}) or len(made) == 5,
            )
            # numeric(8, 2): Connect's Decimal at scale 2, as Debezium's precise mode (1.50 is 150)
            assert {i: p["after"]["amount"] for i, p in made.items()} == {i: decimal_json(i * 150) for i in range(1, 6)}
            last_lsn = max(p["source"]["lsn"] for p in made.values())
            wait_until(
                lambda: db.confirmed_flush_lsn() > last_lsn,
                30,
                lambda: f"the slot confirmed past {last_lsn} (at {db.confirmed_flush_lsn()})",
            )

            db.execute(
                "CREATE TABLE shapes (id int PRIMARY KEY, area point[])", "INSERT INTO shapes VALUES (1, '{\"(0,0)\"}')"
            )
            wait_until(lambda: task_state(runtime.worker, props["name"])[0] is State.FAILED, 30, "the task to fail")
            trace = task_state(runtime.worker, props["name"])[1] or ""
            assert "Column 'area' of table public.shapes has the type point[]" in trace
    finally:
        stop.set()
        thread.join()
    assert partition_count(admin, topic) == 2
    assert partition_count(admin, refunds) == 3
    assert topic_configs(admin, refunds).get("cleanup.policy") == "compact"


@pytest.mark.long(seconds=15)
def test_the_worker_killed_mid_stream_loses_no_change(broker: Broker, db: CdcDatabase, tmp_path: Path) -> None:
    db.execute("CREATE TABLE events (id bigint PRIMARY KEY, note text)")
    offsets = tmp_path / "offsets.json"
    worker = tmp_path / "worker.properties"
    worker.write_text(
        f"bootstrap.servers={broker.bootstrap_servers}\noffset.storage.file.filename={offsets}\n"
        "offset.flush.interval.ms=200\nlisteners=\n"
        "key.converter=org.apache.kafka.connect.json.JsonConverter\nkey.converter.schemas.enable=false\n"
        "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
    )
    connector = tmp_path / "cdc.properties"
    connector.write_text("".join(f"{k}={v}\n" for k, v in db.props(**{"max.batch.size": "100"}).items()))
    topic, log = f"{db.name}.public.events", tmp_path / "worker.log"
    stop, written = threading.Event(), [0]

    def insert() -> None:
        connection = db.connect()
        try:
            with connection.cursor() as cursor:
                while not stop.is_set() and written[0] < 30_000:
                    cursor.execute(
                        "INSERT INTO events SELECT n, 'event' FROM generate_series(%s, %s) n",
                        (written[0], written[0] + 9),
                    )
                    written[0] += 10
                    stop.wait(0.002)  # paced: the kill must land while changes are being streamed
        finally:
            connection.close()

    thread = threading.Thread(target=insert)
    proc = start_worker(worker, connector, log)
    try:
        wait_until(
            lambda: (
                db.query(f"SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{db.slot}'") == [(1,)]
                or proc.poll() is not None
            ),
            60,
            "the slot",
        )
        thread.start()
        wait_until(lambda: _streamed_lsn(offsets) is not None or proc.poll() is not None, 60, "a streamed commit")
        assert proc.poll() is None, log.read_text()[-3000:]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        at_kill = written[0]
        stop.set()
        thread.join()
    assert 0 < at_kill < 30_000, "the kill should land while rows are written"
    last = written[0] - 1
    with KeyWatch(broker.bootstrap_servers, topic) as watch:
        run_to_completion(worker, connector, log, lambda: watch.seen(last), 120)
    seen = {k["id"] for k, v in read_all(broker.bootstrap_servers, topic) if v is not None}
    assert seen == set(range(written[0])), f"lost: {sorted(set(range(written[0])) - seen)[:20]}"


def _streamed_lsn(offsets: Path) -> int | None:
    """The committed `lsn` of a streamed change (not a snapshot offset), or None."""
    try:
        stored = json.loads(offsets.read_text() or "{}") if offsets.exists() else {}
    except json.JSONDecodeError:
        return None
    for value in _dicts(stored):
        if "lsn_proc" in value:
            return int(value["lsn"])
    return None


def _dicts(stored: Any) -> Iterator[dict[str, Any]]:
    if isinstance(stored, dict):
        yield stored
        for value in stored.values():
            yield from _dicts(value)
    elif isinstance(stored, list):
        for value in stored:
            yield from _dicts(value)


class KeyWatch:
    """Reads a topic's keys as they arrive, a little at each `seen` call."""

    def __init__(self, bootstrap: str, topic: str) -> None:
        self._consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"watch-{topic}",
                "auto.offset.reset": "earliest",
                "enable.auto.commit": False,
                "topic.metadata.refresh.interval.ms": 500,
            }
        )
        assign_all(self._consumer, topic, 60)
        self._keys: set[int] = set()

    def seen(self, key: int) -> bool:
        for message in self._consumer.consume(2000, timeout=0.5):
            if not message.error() and message.key():
                self._keys.add(json.loads(message.key())["id"])
        return key in self._keys

    def __enter__(self) -> KeyWatch:
        return self

    def __exit__(self, *exc: object) -> None:
        self._consumer.close()
