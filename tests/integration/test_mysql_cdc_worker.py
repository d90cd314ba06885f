"""MySQL / MariaDB change data capture through the worker's own machinery, against the real MariaDB server
and the test broker: a snapshot of several tables taken while a writer changes all of them in shared
transactions, then the stream, every row's final state rebuilt from the topics (the consistent snapshot's
cut and the binlog position it resumes from neither lose nor repeat a change); the task in a task process
(the worker's default); the worker SIGKILLed mid-stream under exactly-once delivery."""

from __future__ import annotations

import json
import random
import signal
import threading
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.cdc_helpers import decimal_json, read_all, read_until
from tests.integration.harness import running_worker, task_state, wait_until
from tests.integration.mysql_cdc_helpers import MySqlDatabase, json_worker, mysql_database
from tests.integration.test_repeated_sigkill import run_to_completion, start_worker
from tests.mariadb import MariaDb

MARKER = 10_000_000
TABLES = {  # table: (its key columns, how many rows it starts with)
    "accounts": (("id",), 4000),
    "items": (("sku",), 3000),
    "events": (("a", "b"), 3000),
}


@pytest.fixture
def db(mariadb: MariaDb) -> Iterator[MySqlDatabase]:
    with mysql_database(mariadb) as database:
        yield database


def fold(messages: list[Any]) -> dict[str, dict[str, Any]]:
    """Each row's last state as the change events tell it, by its key (a key's events keep their order)."""
    rows: dict[str, dict[str, Any]] = {}
    for key, value in messages:
        if value is None:
            continue  # a tombstone
        payload = value["payload"]
        if payload["op"] == "d":
            rows.pop(json.dumps(key, sort_keys=True), None)
        else:
            rows[json.dumps(key, sort_keys=True)] = payload["after"]
    return rows


def writer(db: MySqlDatabase, stop: threading.Event, seed: int) -> None:
    """Random inserts, updates and deletes of all three tables, several per transaction, until `stop`."""
    rng = random.Random(seed)
    connection = db.server.connect(db.name)
    connection.autocommit(False)
    next_id = 20_000
    try:
        with connection.cursor() as cursor:
            while not stop.is_set():
                for _ in range(rng.randint(1, 6)):
                    table, action, n = rng.choice(list(TABLES)), rng.random(), rng.randrange(0, next_id)
                    if action < 0.4:
                        statements = {
                            "accounts": f"INSERT INTO accounts VALUES ({next_id}, {n % 1000}, 'new')",
                            "items": f"INSERT INTO items VALUES ('sku-{next_id}', {n % 500}.25, {n % 7})",
                            "events": f"INSERT INTO events VALUES ({next_id}, {n % 3}, 'new')",
                        }
                        next_id += 1
                    elif action < 0.8:
                        statements = {
                            "accounts": f"UPDATE accounts SET balance = balance + 1, note = 'updated' WHERE id = {n}",
                            "items": f"UPDATE items SET price = price + 1, qty = qty + 1 WHERE sku = 'sku-{n}'",
                            "events": f"UPDATE events SET payload = CONCAT(payload, '+') WHERE a = {n}",
                        }
                    else:
                        statements = {
                            "accounts": f"DELETE FROM accounts WHERE id = {n}",
                            "items": f"DELETE FROM items WHERE sku = 'sku-{n}'",
                            "events": f"DELETE FROM events WHERE a = {n}",
                        }
                    cursor.execute(statements[table])
                connection.commit()
    finally:
        connection.close()


def in_the_database(db: MySqlDatabase, table: str) -> dict[str, dict[str, Any]]:
    """The table's rows now, keyed and valued as the connector's JSON writes them."""
    keys, _ = TABLES[table]
    rows = {
        "accounts": lambda r: {"id": r[0], "balance": r[1], "note": r[2]},
        "items": lambda r: {"sku": r[0], "price": decimal_json(int(Decimal(r[1]) * 100)), "qty": r[2]},
        "events": lambda r: {"a": r[0], "b": r[1], "payload": r[2]},
    }[table]
    out = {}
    for row in db.server.query(f"SELECT * FROM {table}", database=db.name):
        value = rows(row)
        out[json.dumps({k: value[k] for k in keys}, sort_keys=True)] = value
    return out


@pytest.mark.long(seconds=25)
def test_a_snapshot_of_several_tables_under_writes_then_the_stream_rebuild_every_row(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    db.execute(
        "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance INT NOT NULL, note VARCHAR(40))",
        "CREATE TABLE items (sku VARCHAR(20) PRIMARY KEY, price DECIMAL(8,2), qty INT UNSIGNED NOT NULL)",
        "CREATE TABLE events (a INT, b INT, payload TEXT, PRIMARY KEY (a, b))",
        "INSERT INTO accounts SELECT seq, seq % 1000, CONCAT('row ', seq) FROM seq_0_to_3999",
        "INSERT INTO items SELECT CONCAT('sku-', seq), seq + 0.5, seq % 9 FROM seq_0_to_2999",
        "INSERT INTO events SELECT seq, seq % 3, CONCAT('event ', seq) FROM seq_0_to_2999",
    )
    bootstrap = broker.bootstrap_servers
    topics = {table: f"{db.name}.{db.name}.{table}" for table in TABLES}
    props = db.props(
        bootstrap, **{"topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "1"}
    )
    stop = threading.Event()
    thread = threading.Thread(target=writer, args=(db, stop, 46))
    thread.start()  # before the snapshot: it cuts through running transactions
    try:
        with running_worker(json_worker(bootstrap, tmp_path), props) as runtime:
            assert runtime.worker is not None
            wait_until(lambda: task_state(runtime.worker, props["name"])[0] is State.RUNNING, 60, "the task to run")
            for topic in topics.values():  # the stream has begun on every table
                read_until(bootstrap, topic, lambda k, v: v is not None and v["payload"]["op"] != "r")
            stop.set()
            thread.join()
            db.execute(
                f"INSERT INTO accounts VALUES ({MARKER}, 0, 'marker')",
                "INSERT INTO items VALUES ('marker', 0, 0)",
                f"INSERT INTO events VALUES ({MARKER}, 0, 'marker')",
            )
            markers = {"accounts": {"id": MARKER}, "items": {"sku": "marker"}, "events": {"a": MARKER, "b": 0}}
            for table, topic in topics.items():  # one partition each: the marker comes after every change
                read_until(bootstrap, topic, lambda k, v, key=markers[table]: k == key)
            for table, topic in topics.items():
                messages = read_all(bootstrap, topic)
                assert fold(messages) == in_the_database(db, table), f"{table}'s rows rebuilt from {topic}"
                ops = {v["payload"]["op"] for _, v in messages if v is not None}
                assert ops == {"r", "c", "u", "d"}, table
                snapshot = [json.dumps(k, sort_keys=True) for k, v in messages if v and v["payload"]["op"] == "r"]
                assert len(snapshot) == len(set(snapshot)) >= TABLES[table][1] // 2, table  # each row of the cut once
            assert task_state(runtime.worker, props["name"])[0] is State.RUNNING
    finally:
        stop.set()
        thread.join()


def _kill_mid_stream_with_exactly_once(broker: Broker, db: MySqlDatabase, tmp_path: Path) -> tuple[list[int], int]:
    """Stream inserts with exactly-once delivery (`snapshot.mode=no_data`, the mode that supports it), SIGKILL
    the worker mid-stream, run it again until the last change is committed; the ids a read_committed reader
    sees, and how many rows were written."""
    from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore

    db.execute("CREATE TABLE ledger (id BIGINT PRIMARY KEY, note VARCHAR(10))")
    offsets_topic = f"{db.name}-offsets"
    worker = tmp_path / "worker.properties"
    worker.write_text(
        f"bootstrap.servers={broker.bootstrap_servers}\n"
        f"offset.storage.file.filename={tmp_path / 'offsets.json'}\n"
        f"offset.storage.topic={offsets_topic}\noffset.storage.partitions=1\n"
        "offset.storage.replication.factor=1\nexactly.once.source.support=enabled\nlisteners=\n"
        "key.converter=org.apache.kafka.connect.json.JsonConverter\nkey.converter.schemas.enable=false\n"
        "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
    )
    connector = tmp_path / "ledger.properties"
    props = db.props(broker.bootstrap_servers, **{"snapshot.mode": "no_data", "exactly.once.support": "required"})
    connector.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    store = KafkaOffsetStore(
        offsets_topic, {"bootstrap.servers": broker.bootstrap_servers}, partitions=1, replication_factor=1
    )

    def committed() -> tuple[str, int]:
        store.refresh()
        offset = store.offset(props["name"], {"server": db.name})
        return (str(offset["file"]), int(offset["pos"])) if offset and "file" in offset else ("", 0)

    rows, log, topic = 3_000, tmp_path / "worker.log", f"{db.name}.{db.name}.ledger"
    try:
        proc = start_worker(worker, connector, log)
        try:
            streaming = b"Streaming the binlog of"  # no_data: from the binlog's end as the task starts
            wait_until(lambda: streaming in log.read_bytes() or proc.poll() is not None, 60, "the stream to start")
            for first in range(0, rows - 1, 50):  # transactions of 50 rows, so commits land mid-transaction too
                last = min(first + 49, rows - 2)
                db.execute(f"INSERT INTO ledger SELECT seq, 'x' FROM seq_{first}_to_{last}")
                if first == 1000:  # the kill comes after a commit, mid-stream
                    wait_until(lambda: committed() != ("", 0) or proc.poll() is not None, 60, "a committed change")
            file, pos, *_ = db.server.query("SHOW MASTER STATUS")[0]
            db.execute(f"INSERT INTO ledger VALUES ({rows - 1}, 'last')")  # the only change after (file, pos)
            assert proc.poll() is None, log.read_text()[-3000:]
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        run_to_completion(worker, connector, log, lambda: committed() >= (str(file), int(pos)), 90)
        consumer = Consumer(
            {
                "bootstrap.servers": broker.bootstrap_servers,
                "group.id": f"eos-{topic}",
                "isolation.level": "read_committed",
                "enable.auto.commit": False,
            }
        )
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        seen: list[int] = []
        wait_until(
            lambda: (
                seen.extend(
                    json.loads(m.key())["id"] for m in consumer.consume(1000, timeout=0.5) if not m.error() and m.key()
                )
                or len(set(seen)) >= rows
            ),
            60,
            "every row",
        )
        consumer.close()
    finally:
        store.close()
    return seen, rows


@pytest.mark.long(seconds=30)
def test_exactly_once_killed_mid_stream_loses_no_change(broker: Broker, db: MySqlDatabase, tmp_path: Path) -> None:
    seen, rows = _kill_mid_stream_with_exactly_once(broker, db, tmp_path)
    assert set(seen) == set(range(rows)), f"lost: {sorted(set(range(rows)) - set(seen))[:20]}"


@pytest.mark.requires_apache_kafka("Tansu shows aborted transactions to read_committed readers")
def test_exactly_once_killed_mid_stream_duplicates_no_change(broker: Broker, db: MySqlDatabase, tmp_path: Path) -> None:
    seen, rows = _kill_mid_stream_with_exactly_once(broker, db, tmp_path)
    assert sorted(seen) == list(range(rows))


@pytest.mark.long(seconds=15)
def test_through_the_rest_api_with_a_transform_metrics_and_the_status_page(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    """The connector created with `PUT /connectors/NAME/config` (a bad config first: 400 naming the key), its
    records rerouted by Debezium's usual RegexRouter, counted in `/metrics`, and shown RUNNING on `/ui`."""
    from prometheus_client.parser import text_string_to_metric_families

    from tests.integration.test_rest_harness import rest_worker, rest_worker_config, wait_for_states

    db.execute("CREATE TABLE parts (id INT PRIMARY KEY, name VARCHAR(20))", "INSERT INTO parts VALUES (1, 'bolt')")
    bootstrap = broker.bootstrap_servers
    props = db.props(
        bootstrap,
        **{
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "false",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "transforms": "route",
            "transforms.route.type": "org.apache.kafka.connect.transforms.RegexRouter",
            "transforms.route.regex": r"([^.]+)\.([^.]+)\.([^.]+)",
            "transforms.route.replacement": "$1-cdc-$3",
            "include.schema.changes": "false",
        },
    )
    name, routed = props["name"], f"{db.name}-cdc-parts"
    with rest_worker(rest_worker_config(bootstrap, tmp_path)) as api:
        refused = api.client.put(f"/connectors/{name}/config", json={**props, "snapshot.mode": "sometimes"})
        assert refused.status_code == 400, refused.text
        assert "snapshot.mode" in refused.json()["message"]
        assert api.client.put(f"/connectors/{name}/config", json=props).status_code == 201
        wait_for_states(api, name, "RUNNING", ["RUNNING"], timeout=60)
        db.execute("INSERT INTO parts VALUES (2, 'nut')")
        events = read_until(bootstrap, routed, lambda k, v: k == {"id": 2})
        assert [(v["payload"]["op"], v["payload"]["after"]["name"]) for _, v in events] == [("r", "bolt"), ("c", "nut")]
        wait_until(lambda: api.worker.get(name).tasks[0].committed_records >= 2, 30, "both records' offsets committed")
        metrics = {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(api.client.get("/metrics").text)
            for s in family.samples
        }
        task = (("connector", name), ("task", "0"))
        assert metrics[("connectworker_source_record_write_total", task)] >= 2
        page = api.client.get("/ui")
        assert page.status_code == 200 and name in page.text and "RUNNING" in page.text


@pytest.mark.parametrize("history_servers", ["embedded", None], ids=["embedded", "absent"])
def test_the_history_on_the_worker_s_embedded_broker_needs_no_address(
    db: MySqlDatabase, tmp_path: Path, history_servers: str | None
) -> None:
    """The README's own setup: `bootstrap.servers=embedded` (a new port at every run), and the connector's
    schema history on it, by `embedded` or by leaving the key out."""
    db.execute("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20))", "INSERT INTO items VALUES (1, 'a')")
    props = db.props(
        "unused", **{"topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1"}
    )
    del props["schema.history.internal.kafka.bootstrap.servers"]
    if history_servers is not None:
        props["schema.history.internal.kafka.bootstrap.servers"] = history_servers
    config = WorkerConfig.from_properties(
        {
            "bootstrap.servers": "embedded",
            "offset.storage.file.filename": str(tmp_path / "connect.offsets"),
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "false",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "topic.creation.enable": "true",
        }
    )
    with running_worker(config, props) as runtime:
        bootstrap = runtime.config.bootstrap_servers  # the embedded broker's address, this run's
        read_until(bootstrap, f"{db.name}.{db.name}.items", lambda key, value: key == {"id": 1})
        db.execute("INSERT INTO items VALUES (2, 'b')")
        read_until(bootstrap, f"{db.name}.{db.name}.items", lambda key, value: key == {"id": 2})
        assert runtime.worker is not None
        assert task_state(runtime.worker, props["name"])[0] is State.RUNNING
        history = read_all(bootstrap, db.history)  # on the embedded broker, where the task wrote it
        assert any(value["ddl"].startswith("CREATE TABLE") for _, value in history)
        kept = runtime.worker.get(props["name"]).config.props  # the config as written, kept and shown
        assert kept.get("schema.history.internal.kafka.bootstrap.servers") == history_servers
