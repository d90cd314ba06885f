"""The MySQL connector's schema history (connectors/mysql_cdc/history.py) against the test broker: records
written synchronously to the history topic and read back whole and in order, and each table's columns as
of a resume position (its last record not after it; a drop removes it)."""

from __future__ import annotations

import json

import pytest
from confluent_kafka import Consumer, TopicPartition

from connectworker.api.errors import RetriableError
from connectworker.connectors.mysql_cdc.catalog import CatalogColumn
from connectworker.connectors.mysql_cdc.history import HistoryRecord, SchemaHistory, TableChange, schemas_as_of
from connectworker.connectors.mysql_cdc.schema_history import history_topic
from connectworker.connectors.mysql_cdc.source import Position
from connectworker.runtime.topic_creation.required_topics import RequiredTopics
from connectworker.topics.admin import TopicAdmin
from tests.broker import Broker

ID = CatalogColumn("id", "int(11)", None, False, 1)
NAME = CatalogColumn("name", "varchar(20)", "utf8mb4", True, 0)
PRICE = CatalogColumn("price", "decimal(8,2)", None, True, 0)


def _created(broker: Broker, name: str) -> None:
    admin = TopicAdmin(broker.bootstrap_servers)
    try:
        RequiredTopics(admin, 30, broker.bootstrap_servers).ensure("mysql", [history_topic(name)])
    finally:
        admin.close()


def test_records_are_read_back_in_order_and_give_the_schema_as_of_a_position(broker: Broker, unique: str) -> None:
    topic = f"history-{unique}"
    _created(broker, topic)
    history = SchemaHistory(broker.bootstrap_servers, topic, "shop")
    snapshot = Position("binlog.000001", 330, "0-1-5", server_id=1, ts_sec=1700000000)
    records = [
        HistoryRecord(
            snapshot,
            "inv",
            "CREATE TABLE items (id int PRIMARY KEY, name varchar(20))",
            (TableChange("inv", "items", (ID, NAME), "CREATE"), TableChange("inv", "old", (ID,), "CREATE")),
            ts_ms=1700000000123,
        ),
        HistoryRecord(
            Position("binlog.000001", 900, "0-1-6", server_id=1),
            "inv",
            "ALTER TABLE items ADD COLUMN price decimal(8,2)",
            (TableChange("inv", "items", (ID, NAME, PRICE)),),
        ),
        HistoryRecord(
            Position("binlog.000002", 4, "0-1-7", server_id=1),
            "inv",
            "DROP TABLE old",
            (TableChange("inv", "old", None, "DROP"),),
        ),
    ]
    try:
        for record in records:
            history.record(record)
    finally:
        history.close()
    SchemaHistory(broker.bootstrap_servers, topic, "another-connector").record(  # another prefix's: not ours
        HistoryRecord(snapshot, "inv", "DROP TABLE items", (TableChange("inv", "items", None),))
    )

    recovered = SchemaHistory(broker.bootstrap_servers, topic, "shop").recover()
    assert recovered == records
    assert schemas_as_of(recovered, Position("binlog.000001", 500)) == {
        ("inv", "items"): (ID, NAME),
        ("inv", "old"): (ID,),
    }
    assert schemas_as_of(recovered, Position("binlog.000001", 900)) == {
        ("inv", "items"): (ID, NAME, PRICE),
        ("inv", "old"): (ID,),
    }  # a position is not after itself: the ALTER at 900 holds at 900
    assert schemas_as_of(recovered, Position("binlog.000002", 100)) == {("inv", "items"): (ID, NAME, PRICE)}
    assert schemas_as_of(recovered, Position("binlog.000001", 4)) == {}

    consumer = Consumer({"bootstrap.servers": broker.bootstrap_servers, "group.id": f"check-{unique}"})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        message = consumer.consume(1, timeout=30)[0]
    finally:
        consumer.close()
    first = json.loads(message.value())
    assert first["source"] == {"server": "shop"} and first["databaseName"] == "inv"
    assert first["position"] == {
        "file": "binlog.000001",
        "pos": 330,
        "gtids": "0-1-5",
        "server_id": 1,
        "ts_sec": 1700000000,
    }
    change = first["tableChanges"][0]
    assert (change["type"], change["id"], change["table"]["primaryKeyColumnNames"]) == (
        "CREATE",
        '"inv"."items"',
        ["id"],
    )
    assert change["table"]["columns"][1] == {
        "name": "name",
        "columnType": "varchar(20)",
        "charsetName": "utf8mb4",
        "position": 2,
        "optional": True,
        "keyPosition": 0,
    }


def test_a_missing_topic_recovers_nothing(broker: Broker, unique: str) -> None:
    assert SchemaHistory(broker.bootstrap_servers, f"no-history-{unique}", "shop").recover(timeout=10) == []


def test_a_write_that_cannot_be_delivered_fails_naming_the_keys(unique: str) -> None:
    history = SchemaHistory("127.0.0.1:1", f"history-{unique}", "shop", flush_s=2.0)
    record = HistoryRecord(Position("binlog.000001", 4), "inv", "DROP TABLE t", (TableChange("inv", "t", None),))
    with pytest.raises(
        RetriableError,
        match=r"schema.history.internal.kafka.topic=history-.*schema.history.internal.kafka.bootstrap.servers=127.0.0.1:1",
    ):
        history.record(record)
