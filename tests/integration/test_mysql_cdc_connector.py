"""MySQL / MariaDB change data capture through the worker, against the real MariaDB server
(tests/mariadb.py) and the test broker: a snapshot of several tables then inserts, updates and deletes
streamed, value by value as Debezium writes them; the schema history topic created right; an ALTER TABLE
mid-stream honoured for the events after it, with its schema change event."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient

from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.cdc_helpers import ENVELOPE_FIELDS, decimal_json, read_until
from tests.integration.harness import running_worker, task_state
from tests.integration.mysql_cdc_helpers import MySqlDatabase, json_worker, mysql_database, payloads
from tests.integration.topic_checks import partition_count, topic_configs
from tests.mariadb import MariaDb


@pytest.fixture
def db(mariadb: MariaDb) -> Iterator[MySqlDatabase]:
    with mysql_database(mariadb) as database:
        yield database


def _until_key(bootstrap: str, topic: str, key: dict[str, Any], op: str) -> list[Any]:
    return read_until(
        bootstrap, topic, lambda k, v: k == key and v is not None and v["payload"]["op"] == op, timeout=60
    )


@pytest.mark.long(seconds=15)
def test_snapshot_then_stream_in_debeziums_envelope_and_an_alter_honoured(
    broker: Broker, admin: AdminClient, db: MySqlDatabase, tmp_path: Path
) -> None:
    db.execute(
        "CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(40) NOT NULL, vip TINYINT(1), "
        "joined DATE, seen DATETIME(3), touched TIMESTAMP(6) NULL, credit DECIMAL(8,2), "
        "tier ENUM('bronze','gold'), tags SET('a','b'), big BIGINT UNSIGNED, photo BLOB, doc JSON)",
        "CREATE TABLE orders (region CHAR(2), id INT UNSIGNED, qty SMALLINT, PRIMARY KEY (region, id))",
        "INSERT INTO customers VALUES (1, 'Ann', 1, '2024-02-29', '2024-02-29 10:11:12.345', "
        "'2024-02-29 10:11:12.654321', 12.34, 'gold', 'a,b', 18446744073709551615, x'ff00', '{\"k\": 1}'), "
        "(2, 'Bob', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
        "INSERT INTO orders VALUES ('eu', 4294967295, 3)",
    )
    bootstrap = broker.bootstrap_servers
    customers, orders = f"{db.name}.{db.name}.customers", f"{db.name}.{db.name}.orders"
    props = db.props(
        bootstrap,
        **{
            "topic.creation.default.partitions": "1",
            "topic.creation.default.replication.factor": "1",
            "topic.creation.groups": "wide",
            "topic.creation.wide.include": orders.replace(".", r"\."),
            "topic.creation.wide.partitions": "2",
        },
    )
    with running_worker(json_worker(bootstrap, tmp_path), props) as runtime:
        assert runtime.worker is not None
        snapshot = read_until(bootstrap, customers, lambda k, v: k == {"id": 2}, timeout=60)
        (_, ann), (_, bob) = snapshot
        assert ann["schema"]["name"] == f"{customers}.Envelope"
        assert [f["field"] for f in ann["schema"]["fields"]] == ENVELOPE_FIELDS
        first = ann["payload"]
        assert first["op"] == "r" and first["before"] is None
        assert first["after"] == {
            "id": 1,
            "name": "Ann",
            "vip": 1,  # TINYINT(1) is INT16, as Debezium reads it
            "joined": 19782,  # io.debezium.time.Date: days since the epoch
            "seen": 1709201472345,  # io.debezium.time.Timestamp (DATETIME(3)): ms, read as UTC
            "touched": "2024-02-29T10:11:12.654321Z",  # io.debezium.time.ZonedTimestamp
            "credit": decimal_json(1234),
            "tier": "gold",
            "tags": "a,b",
            "big": -1,  # bigint.unsigned.handling.mode=long wraps, as Java's long
            "photo": base64.b64encode(b"\xff\x00").decode(),
            "doc": '{"k": 1}',
        }
        assert bob["payload"]["after"]["vip"] is None
        source = first["source"]
        assert (source["connector"], source["name"], source["db"], source["table"]) == (
            "mysql",  # Debezium's MySQL connector class, whatever the server: its module's name
            db.name,
            db.name,
            "customers",
        )
        assert source["snapshot"] == "first" and source["server_id"] == 1 and source["file"].startswith("binlog.")
        assert bob["payload"]["source"]["snapshot"] == "last_in_data_collection"
        [(order_key, order)] = read_until(bootstrap, orders, lambda k, v: True, timeout=60)
        assert order_key == {"region": "eu", "id": 4294967295}
        assert order["payload"]["source"]["snapshot"] == "last"

        db.execute(
            "INSERT INTO customers (id, name, credit) VALUES (3, 'Cy', -0.5)",
            "UPDATE customers SET name = 'Bobby' WHERE id = 2",
            "DELETE FROM customers WHERE id = 1",
        )
        messages = read_until(bootstrap, customers, lambda k, v: k == {"id": 1} and v is None, timeout=60)
        streamed = payloads(messages)[2:]
        assert [p["op"] for p in streamed] == ["c", "u", "d"]
        created, updated, deleted = streamed
        assert created["after"]["credit"] == decimal_json(-50) and created["after"]["name"] == "Cy"
        assert (updated["before"]["name"], updated["after"]["name"]) == ("Bob", "Bobby")
        assert deleted["before"]["photo"] == base64.b64encode(b"\xff\x00").decode() and deleted["after"] is None
        assert deleted["before"]["big"] == -1 and deleted["before"]["tier"] == "gold"
        assert messages[-1] == ({"id": 1}, None)  # the tombstone
        streamed_source = created["source"]
        assert streamed_source["snapshot"] == "false" and streamed_source["gtid"].startswith("0-1-")
        assert streamed_source["server_id"] == 1 and streamed_source["row"] == 0 and streamed_source["ts_ms"] > 0

        db.execute(
            "ALTER TABLE customers ADD COLUMN email VARCHAR(60) AFTER name",
            "INSERT INTO customers (id, name, email) VALUES (4, 'Di', 'di@x')",
        )
        [(_, four)] = _until_key(bootstrap, customers, {"id": 4}, "c")[-1:]
        assert four["payload"]["after"]["email"] == "di@x" and four["payload"]["after"]["name"] == "Di"
        assert [f["field"] for f in four["schema"]["fields"][1]["fields"]][:3] == ["id", "name", "email"]
        changes = read_until(bootstrap, db.name, lambda k, v: "ADD COLUMN email" in v["payload"]["ddl"], timeout=60)
        key, change = changes[-1]
        assert key == {"databaseName": db.name}
        assert change["schema"]["name"] == "io.debezium.connector.mysql.SchemaChangeValue"
        table_change = change["payload"]["tableChanges"][0]
        assert (table_change["type"], table_change["id"]) == ("ALTER", f'"{db.name}"."customers"')
        assert [c["name"] for c in table_change["table"]["columns"]][:3] == ["id", "name", "email"]
        assert task_state(runtime.worker, props["name"])[0] is State.RUNNING
    assert partition_count(admin, db.history) == 1
    history_configs = topic_configs(admin, db.history)
    assert (history_configs.get("retention.ms"), history_configs.get("cleanup.policy")) == ("-1", "delete")
    assert (partition_count(admin, customers), partition_count(admin, orders)) == (1, 2)


def test_validate_names_the_key_to_fix(broker: Broker, db: MySqlDatabase, mariadb: MariaDb) -> None:
    from connectworker.connectors.mysql_cdc import MySqlCdcConnector

    values = MySqlCdcConnector().validate(db.props(broker.bootstrap_servers, **{"database.password": "wrong"}))
    assert "The server refused user 'cdc' (wrong user or password)" in values["database.password"].errors[0]
    mariadb.execute("SET GLOBAL binlog_format = 'MIXED'")
    try:
        values = MySqlCdcConnector().validate(db.props(broker.bootstrap_servers))
    finally:
        mariadb.execute("SET GLOBAL binlog_format = 'ROW'")
    assert "binlog_format is MIXED; change data capture needs ROW" in values["database.hostname"].errors[0]
    values = MySqlCdcConnector().validate(db.props(broker.bootstrap_servers))
    assert not [v.errors for v in values.values() if v.errors]
