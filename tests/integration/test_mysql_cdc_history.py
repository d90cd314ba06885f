"""The MySQL connector's schema history (connectors/mysql_cdc/history.py) against the test broker: records
written synchronously to the history topic as Debezium's HistoryRecord JSON, read back whole and in order
(another connector's left out), replayed to a position (schema_state.schemas_as_of); records of the
connector's earlier form read too."""

from __future__ import annotations

import json

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from connectworker.api.errors import RetriableError
from connectworker.connectors.mysql_cdc.ddl_parser import parse_ddl
from connectworker.connectors.mysql_cdc.history import HistoryRecord, SchemaHistory, TableChange
from connectworker.connectors.mysql_cdc.schema_history import history_topic
from connectworker.connectors.mysql_cdc.schema_state import SchemaState, schemas_as_of
from connectworker.connectors.mysql_cdc.source import Position
from connectworker.connectors.mysql_cdc.tables import Column, Table
from connectworker.runtime.topic_creation.required_topics import RequiredTopics
from connectworker.topics.admin import TopicAdmin
from tests.broker import Broker


def _created(broker: Broker, name: str) -> None:
    admin = TopicAdmin(broker.bootstrap_servers)
    try:
        RequiredTopics(admin, 30, broker.bootstrap_servers).ensure("mysql", [history_topic(name)])
    finally:
        admin.close()


def _changes(state: SchemaState, statement: str) -> tuple[TableChange, ...]:
    return tuple(state.apply(parse_ddl(statement, "inv")))


def _first_value(broker: Broker, topic: str, group: str) -> dict[str, object]:
    consumer = Consumer({"bootstrap.servers": broker.bootstrap_servers, "group.id": group})
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        [message] = consumer.consume(1, timeout=30)
    finally:
        consumer.close()
    return dict(json.loads(message.value()))


def test_records_are_debezium_s_read_back_in_order_and_replayed_to_a_position(broker: Broker, unique: str) -> None:
    topic = f"history-{unique}"
    _created(broker, topic)
    history = SchemaHistory(broker.bootstrap_servers, topic, "shop")
    snapshot = Position("binlog.000001", 330, "0-1-5", server_id=1, ts_sec=1700000000)
    state = SchemaState()
    statements = [
        (snapshot, "CREATE TABLE items (id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, "
         "name VARCHAR(20) CHARACTER SET utf8mb4, tone ENUM('dark','it''s'), price DECIMAL(8,2)) CHARSET latin1"),
        (snapshot, "CREATE TABLE old (id INT)"),
        (Position("binlog.000001", 900, "0-1-6", server_id=1), "ALTER TABLE items ADD COLUMN note TEXT AFTER id"),
        (Position("binlog.000001", 1200, "0-1-7", server_id=1), "RENAME TABLE items TO goods"),
        (Position("binlog.000002", 4, "0-1-8", server_id=1), "DROP TABLE old"),
        (Position("binlog.000002", 90, "0-1-9", server_id=1), "CREATE INDEX ix ON goods (name)"),
    ]  # fmt: skip
    records = [
        HistoryRecord(at, "inv", ddl, _changes(state, ddl), ts_ms=1700000000123, snapshot=at is snapshot)
        for at, ddl in statements
    ]
    try:
        for record in records:
            history.record(record)
    finally:
        history.close()
    SchemaHistory(broker.bootstrap_servers, topic, "another-connector").record(  # another prefix's: not ours
        HistoryRecord(snapshot, "inv", "DROP TABLE items", (TableChange("DROP", ("inv", "items")),))
    )

    recovered = SchemaHistory(broker.bootstrap_servers, topic, "shop").recover()
    assert recovered == records
    assert set(schemas_as_of(recovered, Position("binlog.000001", 500)).tables) == {("inv", "items"), ("inv", "old")}
    at_900 = schemas_as_of(recovered, Position("binlog.000001", 900)).tables  # a position is not after itself
    assert [c.name for c in at_900[("inv", "items")].columns] == ["id", "note", "name", "tone", "price"]
    assert schemas_as_of(recovered, Position("binlog.000002", 100)).tables == state.tables
    assert set(state.tables) == {("inv", "goods")}
    assert schemas_as_of(recovered, Position("binlog.000001", 4)).tables == {}

    first = _first_value(broker, topic, f"check-{unique}")
    assert first["source"] == {"server": "shop"} and first["databaseName"] == "inv"
    assert first["position"] == {
        "ts_sec": 1700000000,
        "file": "binlog.000001",
        "pos": 330,
        "gtids": "0-1-5",
        "server_id": 1,
        "snapshot": True,
    }
    assert first["ts_ms"] == 1700000000123 and str(first["ddl"]).startswith("CREATE TABLE items (")
    [change] = first["tableChanges"]  # type: ignore[misc]
    assert (change["type"], change["id"]) == ("CREATE", '"inv"."items"')
    table = change["table"]
    assert (table["defaultCharsetName"], table["primaryKeyColumnNames"], table["attributes"]) == ("latin1", ["id"], [])
    identity, name, tone, price = table["columns"]
    assert identity == {
        "name": "id",
        "jdbcType": 4,
        "typeName": "INT UNSIGNED",
        "typeExpression": "INT UNSIGNED",
        "charsetName": None,
        "position": 1,
        "optional": False,
        "autoIncremented": True,
        "generated": True,
        "comment": None,
        "hasDefaultValue": False,
    }
    assert (name["typeName"], name["length"], name["charsetName"], name["optional"]) == ("VARCHAR", 20, "utf8mb4", True)
    assert (tone["typeName"], tone["jdbcType"], tone["enumValues"], tone["charsetName"]) == (
        "ENUM",
        1,
        ["'dark'", "'it''s'"],
        "latin1",
    )
    assert (price["typeName"], price["length"], price["scale"], price["position"]) == ("DECIMAL", 8, 2, 4)
    renamed = recovered[3].to_json("shop")["tableChanges"][0]
    assert (renamed["type"], renamed["id"], renamed["previousId"]) == ("ALTER", '"inv"."goods"', '"inv"."items"')
    assert recovered[5].changes == ()  # a non-unique index changes no table: its DDL is replayed


def test_records_of_the_connector_s_earlier_form_are_read(broker: Broker, unique: str) -> None:
    topic = f"history-v1-{unique}"
    _created(broker, topic)
    earlier = {
        "source": {"server": "shop"},
        "position": {"file": "binlog.000001", "pos": 4, "server_id": 1, "ts_sec": 0},
        "ts_ms": 0,
        "databaseName": "inv",
        "ddl": "CREATE TABLE t (...)",
        "tableChanges": [
            {
                "type": "CREATE",
                "id": '"inv"."t"',
                "database": "inv",
                "tableName": "t",
                "table": {
                    "primaryKeyColumnNames": ["id"],
                    "columns": [
                        {"name": "id", "columnType": "int(10) unsigned", "charsetName": None, "position": 1,
                         "optional": False, "keyPosition": 1},
                        {"name": "e", "columnType": "enum('a','b')", "charsetName": "latin1", "position": 2,
                         "optional": True, "keyPosition": 0},
                    ],
                },
            }
        ],
    }  # fmt: skip
    producer = Producer({"bootstrap.servers": broker.bootstrap_servers})
    producer.produce(topic, json.dumps(earlier).encode())
    producer.flush(30)
    [record] = SchemaHistory(broker.bootstrap_servers, topic, "shop").recover()
    [change] = record.changes
    assert change.table == Table(
        "inv",
        "t",
        (
            Column("id", "INT UNSIGNED", 10, optional=False),
            Column("e", "ENUM", charset="latin1", enum_values=("a", "b")),
        ),
        ("id",),
    )


def test_a_missing_topic_recovers_nothing(broker: Broker, unique: str) -> None:
    assert SchemaHistory(broker.bootstrap_servers, f"no-history-{unique}", "shop").recover(timeout=10) == []


def test_a_write_that_cannot_be_delivered_fails_naming_the_keys(unique: str) -> None:
    history = SchemaHistory("127.0.0.1:1", f"history-{unique}", "shop", flush_s=2.0)
    record = HistoryRecord(Position("binlog.000001", 4), "inv", "DROP TABLE t", (TableChange("DROP", ("inv", "t")),))
    with pytest.raises(
        RetriableError,
        match=r"schema.history.internal.kafka.topic=history-.*schema.history.internal.kafka.bootstrap.servers=127.0.0.1:1",
    ):
        history.record(record)
