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
from tests.integration.cdc_helpers import CdcDatabase, cdc_database
from tests.integration.harness import running_worker, task_state, wait_until, worker_config
from tests.integration.test_repeated_sigkill import run_to_completion, start_worker
from tests.integration.topic_checks import partition_count, topic_configs
from tests.postgres import Postgres

MARKER = 10_000_000


@pytest.fixture
def db(postgres: Postgres) -> Iterator[CdcDatabase]:
    with cdc_database(postgres) as database:
        yield database


def read_until(bootstrap: str, topic: str, done: Any, timeout: float = 90) -> list[Any]:
    """(key, value) of the topic's messages, JSON-decoded, from the beginning until `done(key, value)`."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"cdc-{topic}", "auto.offset.reset": "earliest",
                         "enable.auto.commit": False, "topic.metadata.refresh.interval.ms": 500})
    out: list[Any] = []
    try:
        assign_all(consumer, topic, timeout)
        def step() -> bool:
            for message in consumer.consume(500, timeout=0.5):
                if message.error():
                    continue
                key = json.loads(message.key()) if message.key() else None
                value = json.loads(message.value()) if message.value() is not None else None
                out.append((key, value))
                if done(key, value):
                    return True
            return False
        wait_until(step, timeout, lambda: f"the end of {topic} ({len(out)} messages read)")
    finally:
        consumer.close()
    return out


def assign_all(consumer: Consumer, topic: str, timeout: float) -> None:
    """Every partition of `topic` (once it exists) from its start: no consumer group to join."""
    from confluent_kafka import TopicPartition

    partitions: list[int] = []

    def exists() -> bool:
        metadata = consumer.list_topics(topic, timeout=5).topics.get(topic)
        partitions[:] = list(metadata.partitions) if metadata is not None and metadata.error is None else []
        return bool(partitions)
    wait_until(exists, timeout, f"the topic {topic}")
    consumer.assign([TopicPartition(topic, p, 0) for p in partitions])


def read_all(bootstrap: str, topic: str) -> list[Any]:
    """(key, value) of every message the topic holds now (to each partition's high watermark), JSON-decoded."""
    from confluent_kafka import TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"all-{topic}", "auto.offset.reset": "earliest",
                         "enable.auto.commit": False, "topic.metadata.refresh.interval.ms": 500})
    try:
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        ends = {p: consumer.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in partitions}
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        out: list[Any] = []
        seen = dict.fromkeys(partitions, 0)

        def step() -> bool:
            for message in consumer.consume(500, timeout=0.5):
                if message.error():
                    continue
                seen[message.partition()] = message.offset() + 1
                key = json.loads(message.key()) if message.key() else None
                out.append((key, json.loads(message.value()) if message.value() is not None else None))
            return all(seen[p] >= ends[p] for p in partitions)
        wait_until(step, 60, lambda: f"{topic} read to its end ({len(out)} messages)")
        return out
    finally:
        consumer.close()


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
                        cursor.execute("UPDATE accounts SET balance = balance + 1, note = 'updated' WHERE id = %s",
                                       (rng.randrange(0, next_id),))
                    else:
                        cursor.execute("DELETE FROM accounts WHERE id = %s", (rng.randrange(0, next_id),))
                connection.commit()
    finally:
        connection.close()


@pytest.mark.long(seconds=20)
def test_snapshot_under_writes_then_stream_rebuilds_every_row_and_topics_follow_the_rules(
        broker: Broker, admin: AdminClient, db: CdcDatabase, tmp_path: Path) -> None:
    db.execute("CREATE TABLE accounts (id bigint PRIMARY KEY, balance int NOT NULL, note text)",
               "INSERT INTO accounts SELECT n, n % 1000, 'row ' || n FROM generate_series(0, 9999) n")
    topic, refunds = f"{db.name}.public.accounts", f"{db.name}.public.refunds"
    config = worker_config(broker.bootstrap_servers, tmp_path, **{
        "key.converter": "org.apache.kafka.connect.json.JsonConverter", "key.converter.schemas.enable": "false",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "true",
        "topic.creation.enable": "true"})
    props = db.props(**{
        "topic.creation.default.partitions": "2", "topic.creation.default.replication.factor": "1",
        "topic.creation.groups": "money", "topic.creation.money.include": rf"{db.name}\.public\.refunds",
        "topic.creation.money.partitions": "3", "compact.keyed.table.topics": "true", "max.batch.size": "500"})
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
            wait_until(lambda: db.confirmed_flush_lsn() > marker_lsn, 30,  # record before it is in Kafka
                       lambda: f"the slot confirmed past {marker_lsn} (at {db.confirmed_flush_lsn()})")
            messages = read_all(broker.bootstrap_servers, topic)
            expected = {row[0]: {"id": row[0], "balance": row[1], "note": row[2]}
                        for row in db.query("SELECT id, balance, note FROM accounts")}
            assert fold(messages) == expected
            ops = {v["payload"]["op"] for _, v in messages if v is not None}
            assert ops == {"r", "c", "u", "d"}
            snapshot_ids = [k["id"] for k, v in messages if v is not None and v["payload"]["op"] == "r"]
            assert len(snapshot_ids) == len(set(snapshot_ids)) >= 9_000  # each row of the cut once

            _, first = messages[0]
            assert first["schema"]["name"] == f"{topic}.Envelope"
            assert [f["field"] for f in first["schema"]["fields"]] == [
                "before", "after", "source", "op", "ts_ms", "transaction"]

            db.execute("CREATE TABLE refunds (id int PRIMARY KEY, amount numeric(8, 2))",
                       "INSERT INTO refunds SELECT n, n * 1.5 FROM generate_series(1, 5) n")
            made: dict[int, Any] = {}
            read_until(broker.bootstrap_servers, refunds,  # 3 partitions: read until every row is seen
                       lambda k, v: made.update({k["id"]: v["payload"]}) or len(made) == 5)
            assert {i: p["after"]["amount"] for i, p in made.items()} == {
                1: "1.50", 2: "3.00", 3: "4.50", 4: "6.00", 5: "7.50"}
            last_lsn = max(p["source"]["lsn"] for p in made.values())
            wait_until(lambda: db.confirmed_flush_lsn() > last_lsn, 30,
                       lambda: f"the slot confirmed past {last_lsn} (at {db.confirmed_flush_lsn()})")

            db.execute("CREATE TABLE shapes (id int PRIMARY KEY, area circle)",
                       "INSERT INTO shapes VALUES (1, '<(0,0),1>')")
            wait_until(lambda: task_state(runtime.worker, props["name"])[0] is State.FAILED, 30, "the task to fail")
            trace = task_state(runtime.worker, props["name"])[1] or ""
            assert "Column 'area' of table public.shapes has the type circle" in trace
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
    worker.write_text(f"bootstrap.servers={broker.bootstrap_servers}\noffset.storage.file.filename={offsets}\n"
                      "offset.flush.interval.ms=200\nlisteners=\n"
                      "key.converter=org.apache.kafka.connect.json.JsonConverter\nkey.converter.schemas.enable=false\n"
                      "value.converter=org.apache.kafka.connect.json.JsonConverter\n")
    connector = tmp_path / "cdc.properties"
    connector.write_text("".join(f"{k}={v}\n" for k, v in db.props(**{"max.batch.size": "100"}).items()))
    topic, log = f"{db.name}.public.events", tmp_path / "worker.log"
    stop, written = threading.Event(), [0]

    def insert() -> None:
        connection = db.connect()
        try:
            with connection.cursor() as cursor:
                while not stop.is_set() and written[0] < 30_000:
                    cursor.execute("INSERT INTO events SELECT n, 'event' FROM generate_series(%s, %s) n",
                                   (written[0], written[0] + 9))
                    written[0] += 10
                    stop.wait(0.002)  # paced: the kill must land while changes are being streamed
        finally:
            connection.close()

    thread = threading.Thread(target=insert)
    proc = start_worker(worker, connector, log)
    try:
        wait_until(lambda: db.query(f"SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{db.slot}'")
                   == [(1,)] or proc.poll() is not None, 60, "the slot")
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
        self._consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"watch-{topic}",
                                   "auto.offset.reset": "earliest", "enable.auto.commit": False,
                                   "topic.metadata.refresh.interval.ms": 500})
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


def read_ids(bootstrap: str, topic: str, ids: range, timeout: float = 60) -> set[int]:
    """The row ids of the topic's change events, read until every one of `ids` was seen."""
    seen: set[int] = set()

    def done(key: Any, value: Any) -> bool:
        if value is not None:
            seen.add(key["id"])
        return seen >= set(ids)
    read_until(bootstrap, topic, done, timeout)
    return seen


def _numbered(db: CdcDatabase, first: int, last: int) -> None:
    db.execute(f"INSERT INTO events SELECT n, 'event' FROM generate_series({first}, {last}) n")


def test_the_slot_held_by_another_client_is_retried_with_backoff_until_it_is_free(
        broker: Broker, db: CdcDatabase, tmp_path: Path) -> None:
    import psycopg2.extras

    db.execute("CREATE TABLE events (id bigint PRIMARY KEY, note text)")
    db.query(f"SELECT pg_create_logical_replication_slot('{db.slot}', 'pgoutput')")
    db.execute("CREATE PUBLICATION dbz_publication FOR ALL TABLES")
    holder = psycopg2.connect(host=db.server.host, port=db.server.port, dbname=db.name, user=db.server.user,
                              password=db.server.password,
                              connection_factory=psycopg2.extras.LogicalReplicationConnection)
    holder.cursor().start_replication(slot_name=db.slot, decode=False,
                                      options={"proto_version": "1", "publication_names": "dbz_publication"})
    props = db.props(**{"snapshot.mode": "no_data", "errors.retry.delay.max.ms": "500",
                        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
                        "key.converter.schemas.enable": "false",
                        "value.converter": "org.apache.kafka.connect.json.JsonConverter"})
    topic = f"{db.name}.public.events"
    try:
        with running_worker(worker_config(broker.bootstrap_servers, tmp_path), props) as runtime:
            assert runtime.worker is not None
            wait_until(lambda: "is active for PID" in (task_state(runtime.worker, props["name"])[1] or ""), 30,
                       lambda: f"the status to name the slot in use ({task_state(runtime.worker, props['name'])})")
            state, note = task_state(runtime.worker, props["name"])
            assert state is State.RUNNING and db.slot in (note or "")
            _numbered(db, 0, 9)
            holder.close()
            assert read_ids(broker.bootstrap_servers, topic, range(10)) == set(range(10))
    finally:
        holder.close()


def test_the_database_restarted_mid_stream_is_waited_out_and_nothing_is_lost(
        broker: Broker, db: CdcDatabase, tmp_path: Path) -> None:
    if db.server.data_dir is None:
        pytest.skip("the server was not started by the tests, so they cannot restart it")
    db.execute("CREATE TABLE events (id bigint PRIMARY KEY, note text)")
    _numbered(db, 0, 99)
    props = db.props(**{"errors.retry.delay.max.ms": "1000",
                        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
                        "key.converter.schemas.enable": "false",
                        "value.converter": "org.apache.kafka.connect.json.JsonConverter"})
    topic = f"{db.name}.public.events"
    with running_worker(worker_config(broker.bootstrap_servers, tmp_path), props) as runtime:
        assert runtime.worker is not None
        read_ids(broker.bootstrap_servers, topic, range(100))
        _numbered(db, 100, 199)
        read_ids(broker.bootstrap_servers, topic, range(200))
        db.server.pg_ctl("stop", "-m", "fast")
        try:
            wait_until(lambda: "retrying with backoff" in (task_state(runtime.worker, props["name"])[1] or ""), 30,
                       "the task's status to say it is retrying")
            assert task_state(runtime.worker, props["name"])[0] is State.RUNNING
        finally:
            db.server.pg_ctl("start")
        _numbered(db, 200, 299)
        assert read_ids(broker.bootstrap_servers, topic, range(300)) == set(range(300))
        wait_until(lambda: task_state(runtime.worker, props["name"]) == (State.RUNNING, None), 30,
                   "the retry note to leave the task's status")


def test_through_rest_a_user_without_replication_is_a_400_naming_the_user_and_the_privilege(
        broker: Broker, db: CdcDatabase, tmp_path: Path) -> None:
    from tests.integration.test_rest_harness import rest_worker, rest_worker_config

    db.execute("DROP ROLE IF EXISTS plain_reader", "CREATE ROLE plain_reader LOGIN PASSWORD 'reader-secret'")
    config = {k: v for k, v in db.props(**{"database.user": "plain_reader",
                                           "database.password": "reader-secret"}).items() if k != "name"}
    try:
        with rest_worker(rest_worker_config(broker.bootstrap_servers, tmp_path)) as api:
            refused = api.client.post("/connectors", json={"name": "cdc", "config": config})
    finally:
        db.execute("DROP ROLE plain_reader")
    assert refused.status_code == 400
    message = refused.json()["message"]
    assert "database.user" in message and "'plain_reader'" in message and "REPLICATION" in message
    assert "reader-secret" not in message


def _kill_mid_stream_with_exactly_once(broker: Broker, db: CdcDatabase, tmp_path: Path) -> tuple[list[int], int]:
    """Stream inserts with exactly-once delivery, SIGKILL the worker mid-stream, run it again until the last
    change is committed; the ids a read_committed reader sees, and how many rows were written."""
    from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore

    db.execute("CREATE TABLE ledger (id bigint PRIMARY KEY, note text)")
    offsets_topic = f"{db.name}-offsets"
    worker = tmp_path / "worker.properties"
    worker.write_text(f"bootstrap.servers={broker.bootstrap_servers}\n"
                      f"offset.storage.file.filename={tmp_path / 'offsets.json'}\n"
                      f"offset.storage.topic={offsets_topic}\noffset.storage.partitions=1\n"
                      "offset.storage.replication.factor=1\nexactly.once.source.support=enabled\nlisteners=\n"
                      "key.converter=org.apache.kafka.connect.json.JsonConverter\nkey.converter.schemas.enable=false\n"
                      "value.converter=org.apache.kafka.connect.json.JsonConverter\n")
    connector = tmp_path / "ledger.properties"
    connector.write_text("".join(f"{k}={v}\n" for k, v in db.props(**{
        "snapshot.mode": "no_data", "exactly.once.support": "required", "max.batch.size": "100"}).items()))
    store = KafkaOffsetStore(offsets_topic, {"bootstrap.servers": broker.bootstrap_servers}, partitions=1,
                             replication_factor=1)

    def committed_proc() -> int:
        store.refresh()
        offset = store.offset(f"cdc-{db.name}", {"server": db.name})
        return int(offset.get("lsn_proc") or 0) if offset else 0

    rows, log, topic = 5_000, tmp_path / "worker.log", f"{db.name}.public.ledger"
    try:
        proc = start_worker(worker, connector, log)
        try:
            wait_until(lambda: db.query(f"SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{db.slot}'")
                       == [(1,)] or proc.poll() is not None, 60, "the slot")
            for first in range(0, rows - 1, 50):  # transactions of 50 rows, so commits land mid-transaction too
                db.execute(f"INSERT INTO ledger SELECT n, 'x' FROM generate_series({first}, "
                           f"{min(first + 49, rows - 2)}) n")
                if first == 1000:
                    wait_until(lambda: committed_proc() > 0 or proc.poll() is not None, 60, "a committed change")
            [(before_last,)] = db.query("SELECT pg_current_wal_insert_lsn() - '0/0'")
            db.execute(f"INSERT INTO ledger VALUES ({rows - 1}, 'last')")  # the only change after before_last
            assert proc.poll() is None, log.read_text()[-3000:]
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        # the last row's change starts at the insert position read before it
        run_to_completion(worker, connector, log, lambda: committed_proc() >= int(before_last), 90)
        from confluent_kafka import TopicPartition
        consumer = Consumer({"bootstrap.servers": broker.bootstrap_servers, "group.id": f"eos-{topic}",
                             "isolation.level": "read_committed", "enable.auto.commit": False})
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        seen: list[int] = []
        wait_until(lambda: seen.extend(json.loads(m.key())["id"] for m in consumer.consume(1000, timeout=0.5)
                                       if not m.error()) or len(set(seen)) >= rows, 60, "every row")
        consumer.close()
    finally:
        store.close()
    return seen, rows


@pytest.mark.long(seconds=30)
def test_exactly_once_killed_mid_stream_loses_no_change(broker: Broker, db: CdcDatabase, tmp_path: Path) -> None:
    seen, rows = _kill_mid_stream_with_exactly_once(broker, db, tmp_path)
    assert set(seen) == set(range(rows)), f"lost: {sorted(set(range(rows)) - set(seen))[:20]}"


@pytest.mark.requires_apache_kafka("Tansu shows aborted transactions to read_committed readers")
def test_exactly_once_killed_mid_stream_duplicates_no_change(broker: Broker, db: CdcDatabase, tmp_path: Path) -> None:
    seen, rows = _kill_mid_stream_with_exactly_once(broker, db, tmp_path)
    assert sorted(seen) == list(range(rows))
