"""MySQL / MariaDB change data capture's modes and keys end to end, as Debezium's MySQL connector behaves,
against the real MariaDB server and the test broker: each snapshot.mode, skipped.operations,
tombstones.on.delete, message.key.columns, heartbeat.interval.ms, a primary-key update (a delete and
tombstone under the old key, a create under the new, with Debezium's __debezium.newkey / oldkey headers) and
TRUNCATE (op t only when skipped.operations leaves it out)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.cdc_helpers import read_all, read_until
from tests.integration.harness import committed_offset, running_worker, task_state, wait_until
from tests.integration.mysql_cdc_helpers import MySqlDatabase, json_worker, mysql_database, payloads
from tests.mariadb import MariaDb

ONE_PARTITION = {"topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "1"}
"""Each table's changes in one partition, in order (Debezium's usual setup)."""
QUIET_S = 2.0
"""How long a test waits to show that nothing more comes (short: the stream hands on a change within 0.5 s)."""


@pytest.fixture
def db(mariadb: MariaDb) -> Iterator[MySqlDatabase]:
    with mysql_database(mariadb) as database:
        yield database


def _items(db: MySqlDatabase, *rows: str) -> str:
    db.execute("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20))", *rows)
    return f"{db.name}.{db.name}.items"


def _events(messages: list[Any]) -> list[tuple[str, Any]]:
    """(op, row id) of each message; tombstones as ("tombstone", key id)."""
    return [
        ("tombstone", key.get("id"))
        if value is None
        else (value["payload"]["op"], (value["payload"]["after"] or value["payload"]["before"] or {}).get("id"))
        for key, value in messages
    ]


def _streaming_started(bootstrap: str, db: MySqlDatabase) -> None:
    """The task recorded the tables' schemas in the history at its start position: changes from now on are
    streamed."""
    read_until(bootstrap, db.history, lambda k, v: True)


# -- snapshot.mode ---------------------------------------------------------------------------------
def test_initial_only_snapshots_then_streams_nothing_and_stays_running(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    topic = _items(db, "INSERT INTO items VALUES (1, 'a'), (2, 'b')")
    bootstrap = broker.bootstrap_servers
    props = db.props(bootstrap, **ONE_PARTITION, **{"snapshot.mode": "initial_only"})
    with running_worker(json_worker(bootstrap, tmp_path), props) as runtime:
        read_until(bootstrap, topic, lambda k, v: v is not None and v["payload"]["source"]["snapshot"] == "last")
        db.execute("INSERT INTO items VALUES (3, 'c')", "UPDATE items SET name = 'z' WHERE id = 1")
        time.sleep(QUIET_S)
        assert task_state(runtime.worker, props["name"]) == (State.RUNNING, None)  # idle, not failed
    assert _events(read_all(bootstrap, topic)) == [("r", 1), ("r", 2)]  # the snapshot only


@pytest.mark.parametrize("mode", ["no_data", "never"])
def test_no_data_and_never_send_no_snapshot_rows_and_stream_the_changes_after_the_start(
    broker: Broker, db: MySqlDatabase, tmp_path: Path, mode: str
) -> None:
    topic = _items(db, "INSERT INTO items VALUES (1, 'a')")
    bootstrap = broker.bootstrap_servers
    props = db.props(bootstrap, **ONE_PARTITION, **{"snapshot.mode": mode})
    with running_worker(json_worker(bootstrap, tmp_path), props):
        _streaming_started(bootstrap, db)
        db.execute("INSERT INTO items VALUES (2, 'b')", "UPDATE items SET name = 'y' WHERE id = 1")
        messages = read_until(bootstrap, topic, lambda k, v: v is not None and v["payload"]["op"] == "u")
    assert _events(messages) == [("c", 2), ("u", 1)]  # no `op: r`
    assert payloads(messages)[1]["before"] == {"id": 1, "name": "a"}


def test_when_needed_without_a_problem_behaves_as_initial(broker: Broker, db: MySqlDatabase, tmp_path: Path) -> None:
    topic = _items(db, "INSERT INTO items VALUES (1, 'a')")
    bootstrap = broker.bootstrap_servers
    props = db.props(bootstrap, **ONE_PARTITION, **{"snapshot.mode": "when_needed"})
    config = json_worker(bootstrap, tmp_path)
    with running_worker(config, props):
        read_until(bootstrap, topic, lambda k, v: k == {"id": 1})
        db.execute("INSERT INTO items VALUES (2, 'b')")
        read_until(bootstrap, topic, lambda k, v: k == {"id": 2})
    db.execute("INSERT INTO items VALUES (3, 'c')")
    with running_worker(config, props):  # the position is still there: resumed, no new snapshot
        read_until(bootstrap, topic, lambda k, v: k == {"id": 3})
    assert _events(read_all(bootstrap, topic)) == [("r", 1), ("c", 2), ("c", 3)]


# -- keys ------------------------------------------------------------------------------------------
def test_skipped_operations_u_d_sends_no_update_delete_or_tombstone(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    topic = _items(db)
    bootstrap = broker.bootstrap_servers
    props = db.props(bootstrap, **ONE_PARTITION, **{"skipped.operations": "u,d"})
    with running_worker(json_worker(bootstrap, tmp_path), props):
        _streaming_started(bootstrap, db)
        db.execute(
            "INSERT INTO items VALUES (1, 'a')",
            "UPDATE items SET name = 'b' WHERE id = 1",
            "DELETE FROM items WHERE id = 1",
            "INSERT INTO items VALUES (2, 'c')",
        )
        read_until(bootstrap, topic, lambda k, v: k == {"id": 2})
    assert _events(read_all(bootstrap, topic)) == [("c", 1), ("c", 2)]


def test_tombstones_on_delete_false_sends_the_delete_without_a_tombstone(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    topic = _items(db)
    bootstrap = broker.bootstrap_servers
    props = db.props(bootstrap, **ONE_PARTITION, **{"tombstones.on.delete": "false"})
    with running_worker(json_worker(bootstrap, tmp_path), props):
        _streaming_started(bootstrap, db)
        db.execute(
            "INSERT INTO items VALUES (1, 'a')", "DELETE FROM items WHERE id = 1", "INSERT INTO items VALUES (2, 'c')"
        )
        read_until(bootstrap, topic, lambda k, v: k == {"id": 2})
    messages = read_all(bootstrap, topic)
    assert _events(messages) == [("c", 1), ("d", 1), ("c", 2)]
    assert payloads(messages)[1]["before"] == {"id": 1, "name": "a"}


def test_message_key_columns_key_the_records_by_the_named_columns(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    db.execute(
        "CREATE TABLE accounts (id INT PRIMARY KEY, region CHAR(2) NOT NULL, code VARCHAR(10) NOT NULL, note TEXT)",
        "INSERT INTO accounts VALUES (1, 'eu', 'a1', 'x')",
    )
    bootstrap, topic = broker.bootstrap_servers, f"{db.name}.{db.name}.accounts"
    props = db.props(bootstrap, **ONE_PARTITION, **{"message.key.columns": rf"{db.name}\.accounts:region,code"})
    with running_worker(json_worker(bootstrap, tmp_path), props):
        read_until(bootstrap, topic, lambda k, v: True)
        db.execute("INSERT INTO accounts VALUES (2, 'us', 'b2', 'y')", "DELETE FROM accounts WHERE id = 1")
        messages = read_until(bootstrap, topic, lambda k, v: v is None)
    assert [key for key, _ in messages] == [
        {"region": "eu", "code": "a1"},  # the snapshot's
        {"region": "us", "code": "b2"},
        {"region": "eu", "code": "a1"},  # the delete
        {"region": "eu", "code": "a1"},  # its tombstone
    ]
    assert [v["payload"]["op"] if v is not None else None for _, v in messages] == ["r", "c", "d", None]


def test_heartbeats_carry_the_binlog_position_while_no_captured_table_changes(
    broker: Broker, db: MySqlDatabase, mariadb: MariaDb, tmp_path: Path
) -> None:
    _items(db)
    db.execute("CREATE TABLE other (id INT PRIMARY KEY)")
    bootstrap, heartbeats = broker.bootstrap_servers, f"__debezium-heartbeat.{db.name}"
    props = db.props(
        bootstrap, **ONE_PARTITION, **{"heartbeat.interval.ms": "300", "table.include.list": rf"{db.name}\.items"}
    )
    with running_worker(json_worker(bootstrap, tmp_path), props) as runtime:
        _streaming_started(bootstrap, db)
        db.execute("INSERT INTO other VALUES (1), (2)")  # not captured: only a heartbeat moves the offset past it
        [(file, position, *_)] = mariadb.query("SHOW MASTER STATUS")

        def offset() -> dict[str, Any]:
            return dict(committed_offset(runtime.worker, props["name"], {"server": db.name}) or {})

        wait_until(
            lambda: (offset().get("file"), offset().get("pos")) == (file, position),
            30,
            lambda: f"a heartbeat's offset at {file}:{position} committed (now {offset()})",
        )
        [(key, value), *_] = read_until(bootstrap, heartbeats, lambda k, v: True)
        committed = offset()
    assert key == {"serverName": db.name}
    assert value["schema"]["name"] == "io.debezium.connector.common.Heartbeat"
    assert value["payload"]["ts_ms"] > 0
    assert {"file", "pos", "row", "event", "server_id", "ts_sec"} <= set(committed)  # Debezium's offset keys


# -- a primary-key update, and TRUNCATE -----------------------------------------------------------
def _with_headers(bootstrap: str, topic: str, count: int) -> list[tuple[Any, Any, dict[str, Any]]]:
    """(key, value, headers) of the topic's first `count` messages, JSON-decoded."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"h-{topic}", "enable.auto.commit": False})
    out: list[tuple[Any, Any, dict[str, Any]]] = []
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])

        def step() -> bool:
            for m in consumer.consume(100, timeout=0.5):
                if not m.error():
                    value = json.loads(m.value()) if m.value() is not None else None
                    headers = {name: raw.decode() if raw is not None else None for name, raw in m.headers() or []}
                    out.append((json.loads(m.key()), value, headers))
            return len(out) >= count

        wait_until(step, 60, lambda: f"{count} messages of {topic} ({len(out)} read)")
    finally:
        consumer.close()
    return out


def test_a_primary_key_update_is_a_delete_and_tombstone_then_a_create_with_debeziums_key_headers(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    topic = _items(db, "INSERT INTO items VALUES (1, 'a')")
    bootstrap = broker.bootstrap_servers
    props = db.props(bootstrap, **ONE_PARTITION)
    with running_worker(json_worker(bootstrap, tmp_path), props):
        read_until(bootstrap, topic, lambda k, v: True)
        db.execute("UPDATE items SET id = 2, name = 'b' WHERE id = 1")
        snapshot, delete, tombstone, create = _with_headers(bootstrap, topic, 4)
    assert snapshot[0] == {"id": 1} and snapshot[1]["payload"]["op"] == "r"
    assert (delete[0], delete[1]["payload"]["op"]) == ({"id": 1}, "d")
    assert delete[1]["payload"]["before"] == {"id": 1, "name": "a"}
    assert tombstone[:2] == ({"id": 1}, None)
    assert (create[0], create[1]["payload"]["op"]) == ({"id": 2}, "c")
    assert create[1]["payload"]["after"] == {"id": 2, "name": "b"}
    assert json.loads(delete[2]["__debezium.newkey"]) == {"id": 2}
    assert json.loads(tombstone[2]["__debezium.newkey"]) == {"id": 2}  # the tombstone carries the delete's
    assert json.loads(create[2]["__debezium.oldkey"]) == {"id": 1}
    assert "__debezium.oldkey" not in delete[2] and "__debezium.newkey" not in create[2]


@pytest.mark.parametrize(("skipped", "truncate_sent"), [(None, False), ("none", True)])
def test_truncate_is_an_op_t_record_only_when_skipped_operations_leaves_t_out(
    broker: Broker, db: MySqlDatabase, tmp_path: Path, skipped: str | None, truncate_sent: bool
) -> None:
    topic = _items(db)
    bootstrap = broker.bootstrap_servers
    props = db.props(bootstrap, **ONE_PARTITION, **({"skipped.operations": skipped} if skipped else {}))
    with running_worker(json_worker(bootstrap, tmp_path), props) as runtime:
        _streaming_started(bootstrap, db)
        db.execute("INSERT INTO items VALUES (1, 'a')", "TRUNCATE TABLE items", "INSERT INTO items VALUES (2, 'b')")
        messages = read_until(bootstrap, topic, lambda k, v: k == {"id": 2})
        assert task_state(runtime.worker, props["name"]) == (State.RUNNING, None)
    ops = [v["payload"]["op"] for _, v in messages]
    if not truncate_sent:  # the default skipped.operations=t, as Debezium's
        assert ops == ["c", "c"]
        return
    assert ops == ["c", "t", "c"]
    key, truncate = messages[1]
    assert key is None
    assert (truncate["payload"]["before"], truncate["payload"]["after"]) == (None, None)
    source = truncate["payload"]["source"]
    assert (source["db"], source["table"], source["snapshot"]) == (db.name, "items", "false")
