"""ByLogicalTableRouter (and ToLogicalTopicRouter), on the cases of Debezium's `ByLogicalTableRouterTest`."""

from __future__ import annotations

import pytest

from connectworker.api.errors import ConfigError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import INT64_SCHEMA, OPTIONAL_STRING_SCHEMA, STRING_SCHEMA, Schema
from connectworker.config.transforms import read_transforms
from connectworker.runtime.tasks.transform_chain import TransformationChain
from connectworker.transforms.debezium.logical_table_router import ByLogicalTableRouter, ToLogicalTopicRouter
from connectworker.transforms.debezium.schema_names import schema_name_adjuster
from connectworker.transforms.registry import builtin_transformation
from tests.unit.transforms.debezium_events import envelope_schema, event

ROUTER = "io.debezium.transforms.ByLogicalTableRouter"
SHARDS = {
    "topic.regex": "(.*)customers_shard(.*)",
    "topic.replacement": "$1customers_all_shards",
    "key.field.name": "shard_id",
    "key.field.regex": "(.*)customers_shard_(.*)",
    "key.field.replacement": "$2",
}


def router(cls: type[ToLogicalTopicRouter] = ByLogicalTableRouter, **props: str) -> ToLogicalTopicRouter:
    transform = cls()
    transform.configure(props)
    return transform


def keyed(topic: str, key_id: int, key_name: str | None = None) -> SourceRecord:
    key_schema = Schema.struct(key_name or f"{topic}.Key", ("id", INT64_SCHEMA))
    return SourceRecord({}, {}, topic, None, {"id": key_id}, None, None, key_schema)


def test_found_by_debeziums_class_names() -> None:
    assert builtin_transformation(ROUTER) is ByLogicalTableRouter
    assert builtin_transformation("io.debezium.transforms.ToLogicalTopicRouter") is ToLogicalTopicRouter


@pytest.mark.parametrize(
    ("mode", "key_schema_name"),
    [
        ("avro", "mysql_server_1.inventory.customers_all_shards.Key"),
        ("none", "mysql-server-1.inventory.customers_all_shards.Key"),
    ],
)
def test_shards_share_a_topic_and_keys_name_their_shard(mode: str, key_schema_name: str) -> None:
    transform = router(**SHARDS, **{"schema.name.adjustment.mode": mode})
    for shard, key_id in (("1", 123), ("2", 123), ("2", 456)):
        routed = transform.apply(keyed(f"mysql-server-1.inventory.customers_shard_{shard}", key_id))
        assert routed.topic == "mysql-server-1.inventory.customers_all_shards"
        assert routed.key_schema is not None and routed.key_schema.name == key_schema_name
        assert [(f.name, f.schema) for f in routed.key_schema.fields] == [
            ("id", INT64_SCHEMA),
            ("shard_id", STRING_SCHEMA),
        ]
        assert routed.key == {"id": key_id, "shard_id": shard}


def test_the_key_field_defaults_to_the_old_topic_under_debeziums_names() -> None:
    props = {"topic.regex": "(.*)customers_shard(.*)", "topic.replacement": "$1customers_all_shards"}
    routed = router(**props).apply(keyed("server1.inventory.customers_shard_1", 1))
    assert routed.key == {"id": 1, "__dbz__physicalTableIdentifier": "server1.inventory.customers_shard_1"}
    newer = router(ToLogicalTopicRouter, **props).apply(keyed("server1.inventory.customers_shard_1", 1))
    assert newer.key == {"id": 1, "__dbz__sourceIdentifier": "server1.inventory.customers_shard_1"}


def test_a_heartbeat_is_rerouted_with_its_key_extended() -> None:
    props = {"topic.regex": "__debezium-heartbeat(.*)", "topic.replacement": "debezium_heartbeat_central"}
    transform = router(**props, **{"key.field.name": "originalTopic"})
    key_schema = Schema.struct("io.debezium.connector.mysql.ServerNameKey", ("serverName", STRING_SCHEMA))
    record = SourceRecord({}, {}, "__debezium-heartbeat.db", None, {"serverName": "db"}, None, None, key_schema)
    routed = transform.apply(record)
    assert routed.topic == "debezium_heartbeat_central" and routed.value is None
    assert routed.key_schema is not None and routed.key_schema.name == "debezium_heartbeat_central.Key"
    assert routed.key == {"serverName": "db", "originalTopic": "__debezium-heartbeat.db"}


def test_a_record_without_a_key_is_routed_without_one() -> None:
    routed = router(**SHARDS).apply(SourceRecord({}, {}, "mysql-server-1.inventory.customers_shard_1", None))
    assert routed.topic == "mysql-server-1.inventory.customers_all_shards"
    assert (routed.key, routed.key_schema) == (None, None)


def test_without_uniqueness_the_key_only_gets_renamed() -> None:
    props = {
        "topic.regex": "(.*).dbz_shard_\\d+.(.*)",
        "topic.replacement": "dbz_core.$2",
        "key.enforce.uniqueness": "false",
    }
    transform = router(**props)
    for topic in ("s21.dbz_shard_21.address", "s22.dbz_shard_22.address"):
        routed = transform.apply(keyed(topic, 123))
        assert routed.topic == "dbz_core.address" and routed.key == {"id": 123}
        assert routed.key_schema is not None and routed.key_schema.name == "dbz_core.address.Key"
        assert [f.name for f in routed.key_schema.fields] == ["id"]


def test_a_change_events_envelope_and_rows_are_renamed_after_the_new_topic() -> None:
    row = Schema.struct(
        "shard_1.inventory.customers.Value", ("id", INT64_SCHEMA), ("flag", OPTIONAL_STRING_SCHEMA), optional=True
    )
    schema = envelope_schema(row, name="shard_1.inventory.customers.Envelope")
    record = event(
        "u", {"id": 1, "flag": None}, {"id": 1, "flag": None}, schema=schema, topic="shard_1.inventory.customers"
    )
    props = {"topic.regex": "(.+)\\.(.+)\\.(.+)", "topic.replacement": "$1.$3", "key.enforce.uniqueness": "false"}
    routed = router(**props).apply(record)
    assert routed.topic == "shard_1.customers" and routed.value == record.value
    assert routed.value_schema is not None and routed.value_schema.name == "shard_1.customers.Envelope"
    fields = {f.name: f.schema for f in routed.value_schema.fields}
    assert fields["before"] == fields["after"]
    assert fields["after"].name == "shard_1.customers.Value" and fields["after"].optional
    assert [f.name for f in fields["after"].fields] == ["id", "flag"]
    assert fields["source"] == {f.name: f.schema for f in schema.fields}["source"]


def test_a_schema_change_event_keeps_its_value() -> None:
    value_schema = Schema.struct(
        "io.debezium.connector.mysql.SchemaChangeValue", ("databaseName", OPTIONAL_STRING_SCHEMA)
    )
    record = SourceRecord(None, {"offset": "1"}, "schema_changes", {"databaseName": "my-db"}, None, 0, value_schema)
    routed = router(**{"topic.regex": "(.*)", "topic.replacement": "$1_rerouted"}).apply(record)
    assert routed.topic == "schema_changes_rerouted" and routed.value is record.value
    assert routed.value_schema is value_schema and routed.partition == 0


def test_a_topic_the_regex_does_not_match_is_left_alone() -> None:
    record = keyed("inventory.orders", 1)
    assert router(**SHARDS).apply(record) is record


@pytest.mark.parametrize(
    ("props", "key"),
    [
        ({"topic.regex": "someValidRegex(.*)"}, "topic.replacement"),
        ({"topic.regex": "someValidRegex(.*)", "topic.replacement": ""}, "topic.replacement"),
        ({"topic.regex": "a(.*)", "topic.replacement": "$1", "key.field.regex": "x(.*)"}, "key.field.replacement"),
        (
            {"topic.regex": "a(.*)", "topic.replacement": "$1", "key.field.regex": "x", "key.field.replacement": ""},
            "key.field.replacement",
        ),
        ({"topic.regex": "a[[b]", "topic.replacement": "$1"}, "topic.regex"),
        ({"topic.regex": "a(.*)", "topic.replacement": "$2"}, "topic.replacement"),
        (
            {"topic.regex": "a", "topic.replacement": "b", "schema.name.adjustment.mode": "json"},
            "schema.name.adjustment.mode",
        ),
    ],
)
def test_bad_configurations_are_refused_naming_the_key(props: dict[str, str], key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        router(**props)
    assert key in caught.value.problems
    full = {
        "transforms": "shards",
        "transforms.shards.type": ROUTER,
        **{f"transforms.shards.{k}": v for k, v in props.items()},
    }
    assert list(read_transforms(full).problems) == [f"transforms.shards.{key}"]


def test_the_topic_plan_routes_by_the_topic_alone() -> None:
    config = read_transforms(
        {
            "transforms": "shards",
            "transforms.shards.type": ROUTER,
            **{f"transforms.shards.{k}": v for k, v in SHARDS.items()},
        }
    ).config
    assert config is not None
    chain = TransformationChain.build(config)
    routed = chain.route("db.inventory.customers_shard_7")
    assert routed is not None and routed.topic == "db.inventory.customers_all_shards"


@pytest.mark.parametrize(
    ("mode", "name", "adjusted"),
    [
        ("avro", "mysql-server-1.db.t.Key", "mysql_server_1.db.t.Key"),
        ("avro", "1db.t", "_1db.t"),
        ("avro_unicode", "mysql-server-1.t", "mysql_u002dserver_u002d1.t"),
        ("avro_unicode", "_t", "_u005ft"),
        ("none", "a-b", "a-b"),
    ],
)
def test_schema_name_adjustment(mode: str, name: str, adjusted: str) -> None:
    assert schema_name_adjuster(mode)(name) == adjusted


def test_the_legacy_cache_size_key_is_read_and_checked() -> None:
    props = {"topic.regex": "a(.*)", "topic.replacement": "b$1", "logical.table.cache.size": "0"}
    full = {"transforms": "r", "transforms.r.type": ROUTER, **{f"transforms.r.{k}": v for k, v in props.items()}}
    (message,) = read_transforms(full).problems["transforms.r.logical.table.cache.size"]
    assert "at least 1" in message
    routed = router(**props | {"logical.table.cache.size": "2"}).apply(keyed("a1", 1))
    assert routed.topic == "b1" and routed.key_schema is not None and routed.key_schema.name == "b1.Key"
