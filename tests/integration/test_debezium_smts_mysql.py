"""Debezium's transforms on the MySQL connector's change events from the real MariaDB server, in one
connector file as a Debezium operator writes it: a sharded pair of tables routed to one topic
(ByLogicalTableRouter, keys telling the shards apart), an outbox table routed by aggregate type
(EventRouter, under a TopicNameMatches predicate), every row unwrapped (ExtractNewRecordState); each new
topic created by its topic.creation group the first time a record goes to it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient

from tests.broker import Broker
from tests.integration.harness import running_worker, task_state, wait_until
from tests.integration.mysql_cdc_helpers import MySqlDatabase, json_worker, mysql_database
from tests.integration.smt_messages import read_messages
from tests.integration.topic_checks import partition_count, topic_configs
from tests.kafka_helpers import existing_topics
from tests.mariadb import MariaDb

pytestmark = pytest.mark.long(seconds=20)


@pytest.fixture
def db(mariadb: MariaDb) -> Iterator[MySqlDatabase]:
    with mysql_database(mariadb) as database:
        yield database


def connector(db: MySqlDatabase, bootstrap: str) -> dict[str, str]:
    return db.props(
        bootstrap,
        **{
            "topic.creation.default.replication.factor": "1",
            "topic.creation.default.partitions": "1",
            "topic.creation.groups": "outbox,shards",
            "topic.creation.outbox.include": rf"outbox\.{db.name}\..*",
            "topic.creation.outbox.partitions": "3",
            "topic.creation.outbox.cleanup.policy": "compact",
            "topic.creation.shards.include": r".*\.customers_all_shards",
            "topic.creation.shards.partitions": "2",
            "transforms": "shards,outbox,unwrap",
            "transforms.shards.type": "io.debezium.transforms.ByLogicalTableRouter",
            "transforms.shards.topic.regex": r"(.*)\.customers_shard_(\d+)",
            "transforms.shards.topic.replacement": "$1.customers_all_shards",
            "transforms.shards.key.field.name": "shard_id",
            "transforms.shards.key.field.regex": r".*\.customers_shard_(\d+)",
            "transforms.shards.key.field.replacement": "$1",
            "transforms.outbox.type": "io.debezium.transforms.outbox.EventRouter",
            "transforms.outbox.predicate": "isOutbox",
            "transforms.outbox.route.topic.replacement": f"outbox.{db.name}.${{routedByValue}}",
            "transforms.outbox.table.field.event.timestamp": "createdat",
            "transforms.outbox.table.fields.additional.placement": "type:header:eventType,type:envelope:eventType",
            "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
            "transforms.unwrap.add.fields": "op",
            "predicates": "isOutbox",
            "predicates.isOutbox.type": "org.apache.kafka.connect.transforms.predicates.TopicNameMatches",
            "predicates.isOutbox.pattern": r".*\.outbox",
        },
    )


def outbox_insert(event_id: str, kind: str, aggregate: str, payload: str) -> str:
    return (
        f"INSERT INTO outbox VALUES ('{event_id}', '{kind}', '{aggregate}', '{kind}Created', '{payload}', "
        "'2019-03-24 20:52:59.000000')"
    )


def test_a_sharded_pair_and_an_outbox_in_one_debezium_file(
    broker: Broker, admin: AdminClient, db: MySqlDatabase, tmp_path: Path
) -> None:
    db.execute(
        "CREATE TABLE customers_shard_1 (id INT PRIMARY KEY, name VARCHAR(40))",
        "CREATE TABLE customers_shard_2 (id INT PRIMARY KEY, name VARCHAR(40))",
        "CREATE TABLE outbox (id VARCHAR(36) PRIMARY KEY, aggregatetype VARCHAR(255) NOT NULL, "
        "aggregateid VARCHAR(255) NOT NULL, type VARCHAR(255) NOT NULL, payload JSON, createdat DATETIME(6) NOT NULL)",
        "INSERT INTO customers_shard_1 VALUES (1, 'Ann')",
        "INSERT INTO customers_shard_2 VALUES (1, 'Bea')",  # the same id in the other shard
    )
    bootstrap = broker.bootstrap_servers
    props = connector(db, bootstrap)
    shards, order, customer = (
        f"{db.name}.{db.name}.customers_all_shards",
        f"outbox.{db.name}.Order",
        f"outbox.{db.name}.Customer",
    )
    with running_worker(json_worker(bootstrap, tmp_path), props) as runtime:
        assert runtime.worker is not None
        wait_until(lambda: task_state(runtime.worker, props["name"])[0].name == "RUNNING", 60, "the task to run")
        read_messages(bootstrap, shards, lambda messages: len(messages) >= 2)  # the snapshot
        db.execute(
            "INSERT INTO customers_shard_2 VALUES (2, 'Cid')",
            "DELETE FROM customers_shard_1 WHERE id = 1",
            outbox_insert("59a42efd-b015-44a9-9dde-cb36d9002425", "Order", "o-1", '{"total": 10}'),
            outbox_insert("8b3f0f3e-0b5c-4d7d-9a39-1a2b3c4d5e6f", "Customer", "c-1", '{"name": "Dee"}'),
            outbox_insert("0d0c2b9e-7a51-4d8a-b3c4-d5e6f7a8b9c0", "Order", "o-2", '{"total": 20}'),
        )
        sharded = read_messages(bootstrap, shards, lambda messages: len(messages) >= 4)
        orders = read_messages(bootstrap, order, lambda messages: len(messages) >= 2)
        customers = read_messages(bootstrap, customer, lambda messages: len(messages) >= 1)
        assert task_state(runtime.worker, props["name"])[0].name == "RUNNING"

    def summary(payload: Any) -> Any:
        return None if payload is None else (payload["name"], payload["__op"])

    assert sorted(
        (((m.key["shard_id"], m.key["id"]), summary(m.value["payload"])) for m in sharded), key=repr
    ) == sorted(
        [
            (("1", 1), ("Ann", "r")),
            (("2", 1), ("Bea", "r")),
            (("2", 2), ("Cid", "c")),
            (("1", 1), None),  # the delete: a null row (unwrap's default mode), its tombstone dropped
        ],
        key=repr,
    )
    schema = sharded[0].value["schema"]  # the row schema, renamed after the logical topic
    assert schema["name"] == f"{shards}.Value" and [f["field"] for f in schema["fields"]] == ["id", "name", "__op"]

    def event(message: Any) -> tuple[Any, ...]:
        return message.key, message.value["payload"], message.headers["eventType"], message.timestamp

    assert sorted(event(m) for m in orders) == [
        ("o-1", {"payload": '{"total": 10}', "eventType": "OrderCreated"}, "OrderCreated", 1553460779000),
        ("o-2", {"payload": '{"total": 20}', "eventType": "OrderCreated"}, "OrderCreated", 1553460779000),
    ]
    assert [event(m) for m in customers] == [
        ("c-1", {"payload": '{"name": "Dee"}', "eventType": "CustomerCreated"}, "CustomerCreated", 1553460779000)
    ]
    assert orders[0].headers["id"] in {"59a42efd-b015-44a9-9dde-cb36d9002425", "0d0c2b9e-7a51-4d8a-b3c4-d5e6f7a8b9c0"}
    assert orders[0].value["schema"]["name"] == f"{db.name}.{db.name}.outbox.Order.Value"
    # the payload column's schema carried over: MariaDB's JSON is a LONGTEXT, a plain string
    assert orders[0].value["schema"]["fields"][0] == {"type": "string", "optional": True, "field": "payload"}

    assert partition_count(admin, shards) == 2
    for topic in (order, customer):
        assert partition_count(admin, topic) == 3 and topic_configs(admin, topic).get("cleanup.policy") == "compact"
    made = existing_topics(admin)
    assert f"{db.name}.{db.name}.outbox" not in made and f"{db.name}.{db.name}.customers_shard_1" not in made
