"""Debezium's transforms on the PostgreSQL connector's change events, against the real server and the test
broker, written as a Debezium operator writes them: `unwrap` (ExtractNewRecordState) in each delete mode,
one connector per mode on the same table, rows as Debezium writes them; the outbox pattern (EventRouter)
with two aggregate types, whose topics the worker creates with the outbox group's settings the first time
each appears, records keyed, headed and timestamped as Debezium's, the console listing the topics created;
and a bad transform key refused at validation and at creation."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient

from connectworker.api.errors import ConfigError
from connectworker.config.connector_config import parse_connector_config
from tests.broker import Broker
from tests.integration.cdc_helpers import CdcDatabase, cdc_database
from tests.integration.harness import running_worker, task_state, wait_until, worker_config
from tests.integration.smt_messages import Message, read_messages
from tests.integration.test_rest_harness import rest_worker, rest_worker_config
from tests.integration.topic_checks import partition_count, topic_configs
from tests.kafka_helpers import existing_topics
from tests.postgres import Postgres

pytestmark = pytest.mark.long(seconds=20)

JSON = "org.apache.kafka.connect.json.JsonConverter"
MODES = ("drop", "tombstone", "rewrite", "rewrite-with-tombstone", "delete-to-tombstone")
MARKER = 99


@pytest.fixture
def db(postgres: Postgres) -> Iterator[CdcDatabase]:
    with cdc_database(postgres) as database:
        yield database


def json_converters(**extra: str) -> dict[str, str]:
    return {
        "key.converter": JSON,
        "key.converter.schemas.enable": "false",
        "value.converter": JSON,
        "value.converter.schemas.enable": "true",
        "topic.creation.enable": "true",
        **extra,
    }


def unwrap_connector(db: CdcDatabase, number: int, mode: str) -> dict[str, str]:
    return db.props(
        **{
            "name": f"unwrap-{db.name}-{number}",
            "slot.name": f"{db.slot}_{number}",
            # a publication each: connectors starting together race to create a shared one (the loser fails on
            # pg_publication_pubname_index)
            "publication.name": f"{db.name}_pub_{number}",
            "topic.prefix": f"{db.name}_{number}",
            "table.include.list": "public.customers",
            "topic.creation.default.replication.factor": "1",
            "topic.creation.default.partitions": "1",
            "transforms": "unwrap",
            "transforms.unwrap.type": "io.debezium.transforms.ExtractNewRecordState",
            "transforms.unwrap.delete.tombstone.handling.mode": mode,
            "transforms.unwrap.add.fields": "op,table",
            "transforms.unwrap.add.headers": "op",
        }
    )


def shape(message: Message) -> tuple[Any, ...]:
    """(key id, op header, the row or None for a null value, whether the value is a Kafka tombstone)."""
    value = message.value
    row = None if value is None else value["payload"]
    return message.key["id"], message.headers.get("__op"), row, value is None


def test_unwrap_in_each_delete_mode(broker: Broker, db: CdcDatabase, tmp_path: Path) -> None:
    db.execute(
        "CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, note text)",
        "ALTER TABLE customers REPLICA IDENTITY FULL",  # the delete's old row whole, for rewrite
        "INSERT INTO customers VALUES (1, 'Ann', 'first')",
    )
    connectors = [unwrap_connector(db, number, mode) for number, mode in enumerate(MODES)]
    config = worker_config(broker.bootstrap_servers, tmp_path, **json_converters())
    with running_worker(config, *connectors) as runtime:
        assert runtime.worker is not None
        for props in connectors:  # each has taken its snapshot (row 1) and streams
            wait_until(lambda p=props: task_state(runtime.worker, p["name"])[0].name == "RUNNING", 60, "the tasks")
        db.execute(
            "INSERT INTO customers VALUES (2, 'Bob', NULL)",
            "UPDATE customers SET note = 'changed' WHERE id = 1",
            "DELETE FROM customers WHERE id = 2",
        )
        db.execute(f"INSERT INTO customers VALUES ({MARKER}, 'end', NULL)")
        read = {
            mode: read_messages(
                broker.bootstrap_servers,
                f"{db.name}_{number}.public.customers",
                lambda messages: any(m.key["id"] == MARKER for m in messages),
            )
            for number, mode in enumerate(MODES)
        }

    def row(id_: int, name: str, note: str | None, op: str, deleted: str | None = None) -> dict[str, Any]:
        marked = {} if deleted is None else {"__deleted": deleted}
        return {"id": id_, "name": name, "note": note, **marked, "__op": op, "__table": "customers"}

    def rows(deleted: str | None = None) -> list[tuple[Any, ...]]:  # read, insert, update
        return [
            (1, "r", row(1, "Ann", "first", "r", deleted), False),
            (2, "c", row(2, "Bob", None, "c", deleted), False),
            (1, "u", row(1, "Ann", "changed", "u", deleted), False),
        ]

    marker = (MARKER, "c", row(MARKER, "end", None, "c"), False)
    rewritten_delete = (2, "d", row(2, "Bob", None, "d", "true"), False)
    tombstone = (2, "d", None, True)  # a Kafka tombstone: Debezium's, or the delete made one
    expected = {
        "drop": [*rows(), marker],
        "tombstone": [*rows(), (2, "d", None, False), marker],  # a null row under the row's schema
        "rewrite": [*rows("false"), rewritten_delete, (*marker[:2], {**marker[2], "__deleted": "false"}, False)],
        "rewrite-with-tombstone": [
            *rows("false"),
            rewritten_delete,
            tombstone,
            (*marker[:2], row(MARKER, "end", None, "c", "false"), False),
        ],
        "delete-to-tombstone": [*rows(), tombstone, marker],
    }
    for mode, messages in read.items():
        assert [shape(m) for m in messages] == expected[mode], mode
    # the value schema is the row's, named <topic>.Value, with the added fields after its columns
    first = read["rewrite"][0].value["schema"]
    assert first["name"] == f"{db.name}_2.public.customers.Value"
    assert [f["field"] for f in first["fields"]] == ["id", "name", "note", "__deleted", "__op", "__table"]
    null_row = read["tombstone"][3].value
    assert null_row["payload"] is None and null_row["schema"]["name"] == f"{db.name}_1.public.customers.Value"


OUTBOX_TABLE = (
    "CREATE TABLE outbox (id uuid PRIMARY KEY, aggregatetype varchar(255) NOT NULL, aggregateid varchar(255) NOT NULL, "
    "type varchar(255) NOT NULL, payload jsonb, createdat timestamp NOT NULL)"
)


def outbox_insert(event_id: str, kind: str, aggregate: str, event_type: str, payload: str) -> str:
    return (
        f"INSERT INTO outbox VALUES ('{event_id}', '{kind}', '{aggregate}', '{event_type}', '{payload}', "
        "'2019-03-24 20:52:59')"
    )


def outbox_connector(db: CdcDatabase, **extra: str) -> dict[str, str]:
    return db.props(
        **{
            "table.include.list": "public.outbox",
            "topic.creation.default.replication.factor": "1",
            "topic.creation.default.partitions": "1",
            "topic.creation.groups": "outbox",
            "topic.creation.outbox.include": r"outbox\.event\..*",
            "topic.creation.outbox.partitions": "3",
            "topic.creation.outbox.cleanup.policy": "compact",
            "topic.creation.outbox.retention.ms": "604800000",
            "transforms": "outbox",
            "transforms.outbox.type": "io.debezium.transforms.outbox.EventRouter",
            "transforms.outbox.table.field.event.timestamp": "createdat",
            "transforms.outbox.table.fields.additional.placement": "type:header:eventType",
            "transforms.outbox.route.topic.replacement": f"outbox.event.{db.name}.${{routedByValue}}",
            **extra,
        }
    )


def test_the_outbox_routes_each_aggregate_type_to_a_topic_made_by_the_outbox_rule(
    broker: Broker, admin: AdminClient, db: CdcDatabase, tmp_path: Path
) -> None:
    db.execute(OUTBOX_TABLE)
    props = outbox_connector(db)
    order, customer = f"outbox.event.{db.name}.Order", f"outbox.event.{db.name}.Customer"
    config = rest_worker_config(
        broker.bootstrap_servers, tmp_path, **json_converters(**{"value.converter.schemas.enable": "false"})
    )
    with rest_worker(config) as api:
        created = api.client.post("/connectors", json={"name": props["name"], "config": props})
        assert created.status_code == 201, created.text
        wait_until(lambda: task_state(api.worker, props["name"])[0].name == "RUNNING", 60, "the task to run")
        assert order not in existing_topics(admin)
        db.execute(
            outbox_insert("59a42efd-b015-44a9-9dde-cb36d9002425", "Order", "o-1", "OrderCreated", '{"total": 10}'),
            outbox_insert("8b3f0f3e-0b5c-4d7d-9a39-1a2b3c4d5e6f", "Order", "o-2", "OrderCreated", '{"total": 20}'),
        )
        orders = read_messages(broker.bootstrap_servers, order, lambda messages: len(messages) >= 2)
        assert customer not in existing_topics(admin)  # made the first time a Customer event appears
        db.execute(
            outbox_insert("d4da2428-8b19-11ea-bc55-0242ac130003", "Customer", "c-1", "CustomerCreated", '{"a": 1}'),
            "UPDATE outbox SET type = 'Changed' WHERE aggregateid = 'o-1'",  # only inserts are events
            "DELETE FROM outbox",  # an application empties the table: nothing is sent
        )
        db.execute(outbox_insert("0d0c2b9e-7a51-4d8a-b3c4-d5e6f7a8b9c0", "Order", "o-3", "OrderPaid", '{"total": 30}'))
        orders = read_messages(broker.bootstrap_servers, order, lambda messages: len(messages) >= 3)
        customers = read_messages(broker.bootstrap_servers, customer, lambda messages: len(messages) >= 1)

        ui = api.client.get("/ui")
        assert ui.status_code == 200
        created_table = re.search(r'<table class="created">(.*?)</table>', ui.text, re.DOTALL)
        assert created_table is not None
        for topic in (order, customer):
            assert f"<code>{topic}</code>" in created_table.group(1)
        assert created_table.group(1).count("<td>outbox</td>") == 2
        assert "cleanup.policy=compact" in created_table.group(1)
        assert task_state(api.worker, props["name"])[0].name == "RUNNING"

    assert sorted((m.key, m.value) for m in orders) == [
        ("o-1", '{"total": 10}'),
        ("o-2", '{"total": 20}'),
        ("o-3", '{"total": 30}'),
    ]
    assert [(m.key, m.value, m.headers) for m in customers] == [
        ("c-1", '{"a": 1}', {"id": "d4da2428-8b19-11ea-bc55-0242ac130003", "eventType": "CustomerCreated"})
    ]
    assert {m.timestamp for m in [*orders, *customers]} == {1553460779000}  # createdat, a MicroTimestamp
    assert len({m.partition for m in orders if m.key == "o-1"}) == 1
    for topic in (order, customer):
        assert partition_count(admin, topic) == 3
        assert topic_configs(admin, topic).items() >= {"cleanup.policy": "compact", "retention.ms": "604800000"}.items()
    assert f"{db.name}.public.outbox" not in existing_topics(admin)  # every record was routed


def test_a_bad_transform_key_is_refused_at_validation_and_at_creation(
    broker: Broker, db: CdcDatabase, tmp_path: Path
) -> None:
    props = outbox_connector(db, **{"transforms.outbox.table.op.invalid.behavior": "explode"})
    with pytest.raises(ConfigError) as caught:
        parse_connector_config(props)  # what a standalone worker does with a connector file
    assert "transforms.outbox.table.op.invalid.behavior" in caught.value.problems
    config = rest_worker_config(broker.bootstrap_servers, tmp_path, **json_converters())
    with rest_worker(config) as api:
        answer = api.client.put(
            "/connector-plugins/io.debezium.connector.postgresql.PostgresConnector/config/validate", json=props
        )
        assert answer.status_code == 200
        errors = {c["value"]["name"]: c["value"]["errors"] for c in answer.json()["configs"] if c["value"]["errors"]}
        assert list(errors) == ["transforms.outbox.table.op.invalid.behavior"]
        assert "explode" in errors["transforms.outbox.table.op.invalid.behavior"][0]
        assert "warn, error, fatal" in errors["transforms.outbox.table.op.invalid.behavior"][0]
        refused = api.client.post("/connectors", json={"name": props["name"], "config": props})
        assert refused.status_code == 400 and "transforms.outbox.table.op.invalid.behavior" in refused.text
