"""The MySQL CDC connector's surface (connectors/mysql_cdc/connector.py): Debezium's class names resolve to
it, one task, the schema history topic required with Debezium's settings, exactly-once only without a
snapshot, and offsets altered only in Debezium's shape."""

from __future__ import annotations

import pytest

from connectworker.api.errors import ConnectError
from connectworker.api.exactly_once import ExactlyOnceSupport
from connectworker.connectors.mysql_cdc.connector import MySqlCdcConnector
from connectworker.plugins import resolve_connector_class

PROPS = {
    "database.hostname": "localhost",
    "database.user": "cdc",
    "database.server.id": "5400",
    "topic.prefix": "shop",
    "schema.history.internal.kafka.topic": "history.shop",
    "schema.history.internal.kafka.bootstrap.servers": "kafka:9092",
}


@pytest.mark.parametrize(
    "alias",
    [
        "MySqlCdc",
        "MySqlCdcConnector",
        "io.debezium.connector.mysql.MySqlConnector",
        "io.debezium.connector.mariadb.MariaDbConnector",
    ],
)
def test_debeziums_classes_resolve_to_the_connector(alias: str) -> None:
    assert resolve_connector_class(alias) is MySqlCdcConnector


def test_one_task_and_the_history_topic_required_right() -> None:
    connector = MySqlCdcConnector()
    connector.start(PROPS)
    assert connector.task_configs(4) == [{}]
    [topic] = connector.required_topics(PROPS)
    assert topic.name == "history.shop" and topic.settings.partitions == 1
    assert topic.settings.configs() == {"cleanup.policy": "delete", "retention.ms": "-1", "retention.bytes": "-1"}
    assert connector.config_def().keys["database.password"].type.value == "PASSWORD"


@pytest.mark.parametrize(
    ("mode", "support"),
    [
        ("initial", ExactlyOnceSupport.UNSUPPORTED),
        ("when_needed", ExactlyOnceSupport.UNSUPPORTED),
        ("never", ExactlyOnceSupport.SUPPORTED),
    ],
)
def test_exactly_once_only_without_a_snapshot(mode: str, support: ExactlyOnceSupport) -> None:
    assert MySqlCdcConnector().exactly_once_support({**PROPS, "snapshot.mode": mode}) is support


def test_offsets_are_altered_only_in_debeziums_shape() -> None:
    connector = MySqlCdcConnector()
    good = {"file": "binlog.000003", "pos": 805, "gtids": "0-1-42", "row": 1, "event": 2}
    assert connector.alter_offsets(PROPS, [({"server": "shop"}, good), ({"server": "shop"}, None)])
    with pytest.raises(ConnectError, match=r'The partition of this connector is \{"server": "shop"\}'):
        connector.alter_offsets(PROPS, [({"server": "other"}, good)])
    with pytest.raises(ConnectError, match=r"holds the binlog 'file'"):
        connector.alter_offsets(PROPS, [({"server": "shop"}, {"lsn": 5})])
    assert "binlog 'file'" in (connector.unused_offset_reason(PROPS, {"server": "shop"}, {"pos": -1}) or "")


def test_debezium_keys_it_does_not_implement_are_listed_once_as_ignored(caplog: pytest.LogCaptureFixture) -> None:
    """Tuning keys of a Debezium MySQL file (whose absence changes no record) are named in one warning per
    connector, however often it starts."""
    import logging

    props = {**PROPS, "name": "ignored-keys", "snapshot.fetch.size": "100", "snapshot.delay.ms": "5"}
    with caplog.at_level(logging.WARNING):
        for _ in range(2):
            connector = MySqlCdcConnector()
            connector.start(props)
            connector.stop()
    lines = [r.getMessage() for r in caplog.records if "does not implement" in r.getMessage()]
    assert lines == [
        "Connector ignored-keys: snapshot.delay.ms, snapshot.fetch.size are Debezium MySQL connector keys this "
        "connector does not implement: ignored, as none changes a record it writes (docs/cdc.md)"
    ]


def test_a_debezium_key_it_ignores_is_not_also_taken_for_a_misspelt_key(caplog: pytest.LogCaptureFixture) -> None:
    """`database.server.name` (Debezium 1.x's) is one slip from the declared `database.server.id`, but a
    Debezium key this connector knows it ignores: its own line names it, no line suggests another key."""
    import logging

    from connectworker.config.connector_config import _warn_about_ignored_keys
    from connectworker.config.connector_reading import read_connector_config

    props = {**PROPS, "name": "one-line", "connector.class": "MySqlCdc", "database.server.name": "old"}
    reading = read_connector_config(props)
    assert "database.server.name" in reading.ignored_keys
    with caplog.at_level(logging.WARNING):
        _warn_about_ignored_keys("one-line", props, reading)
        connector = MySqlCdcConnector()
        connector.start(props)
        connector.stop()
    lines = [r.getMessage() for r in caplog.records if "database.server.name" in r.getMessage()]
    assert lines == [
        "Connector one-line: database.server.name is a Debezium MySQL connector key this connector does not "
        "implement: ignored, as none changes a record it writes (docs/cdc.md)"
    ]


def test_the_example_file_names_only_declared_keys_and_valid_topic_creation_rules() -> None:
    from pathlib import Path

    import javaproperties

    from connectworker.testing import parse_rules

    path = Path(__file__).parents[2] / "config" / "connectors" / "mysql-cdc.properties"
    props = javaproperties.loads(path.read_text())
    rules = parse_rules(props, source=str(path))
    orders = rules.match("inventory.inventory.orders")
    assert orders is not None and orders.rule == "orders" and orders.settings.partitions == 12
    changes = rules.match("inventory")
    assert changes is not None and changes.rule == "schemachanges" and changes.settings.partitions == 1
    heartbeat = rules.match("__debezium-heartbeat.inventory")
    assert heartbeat is not None and heartbeat.rule == "heartbeats"
    other = rules.match("inventory.inventory.customers")
    assert other is not None and other.rule == "default" and other.settings.partitions == 3
    declared = set(MySqlCdcConnector().config_def().names())
    assert {k for k in props if not k.startswith("topic.creation.")} - declared == {
        "name",
        "connector.class",
        "tasks.max",
        *("key.converter", "key.converter.schemas.enable", "value.converter", "value.converter.schemas.enable"),
    }
    assert props["key.converter"] == "org.apache.kafka.connect.json.JsonConverter"  # what Debezium consumers read
    assert resolve_connector_class(props["connector.class"]) is MySqlCdcConnector
