"""The MySQL CDC connector's settings: a Debezium MySQL connector file parses unchanged, and bad values and
unsupported Debezium keys are refused naming the key and what is allowed."""

from __future__ import annotations

import pytest

from connectworker.api.errors import ConfigError
from connectworker.connectors.mysql_cdc.settings import deprecated_snapshot_mode, parse_settings

# Debezium's documented example (its MySQL connector's "Deployment" section), with the types keys added.
DEBEZIUM_FILE = {
    "name": "inventory-connector",
    "connector.class": "io.debezium.connector.mysql.MySqlConnector",
    "database.hostname": "192.168.99.100",
    "database.port": "3306",
    "database.user": "debezium-user",
    "database.password": "debezium-user-pw",
    "database.server.id": "184054",
    "topic.prefix": "fullfillment",
    "database.include.list": "inventory",
    "schema.history.internal.kafka.bootstrap.servers": "kafka:9092",
    "schema.history.internal.kafka.topic": "schemahistory.fullfillment",
    "include.schema.changes": "true",
}


def test_debeziums_example_file_parses_with_debeziums_defaults() -> None:
    settings = parse_settings(DEBEZIUM_FILE)
    assert (settings.host, settings.port, settings.replica_id) == ("192.168.99.100", 3306, 184054)
    assert settings.captures("inventory", "customers") and not settings.captures("other", "customers")
    assert settings.topic("inventory", "customers") == "fullfillment.inventory.customers"
    assert (settings.snapshot_mode, settings.locking_mode, settings.tombstones) == ("initial", "minimal", True)
    assert settings.skipped == frozenset({"t"})
    assert settings.heartbeat_topic == "__debezium-heartbeat.fullfillment"
    beats = parse_settings({**DEBEZIUM_FILE, "topic.heartbeat.prefix": "beats"})
    assert beats.heartbeat_topic == "beats.fullfillment"
    types = settings.types
    assert (types.decimal_handling, types.time_precision, types.binary_handling, types.bigint_unsigned) == (
        "precise",
        "adaptive_time_microseconds",
        "bytes",
        "long",
    )


def test_table_and_column_filters_match_whole_names() -> None:
    settings = parse_settings(
        {**DEBEZIUM_FILE, "table.include.list": "inventory\\.orders.*", "column.exclude.list": "inventory\\..*\\.ssn"}
    )
    assert settings.captures("inventory", "orders_2024") and not settings.captures("inventory", "customers")
    assert not settings.keeps_column("inventory", "orders", "ssn") and settings.keeps_column(
        "inventory", "orders", "id"
    )


@pytest.mark.parametrize(
    ("key", "value", "named"),
    [
        (
            "snapshot.mode",
            "always",
            "Value must be one of initial, initial_only, no_data, never, when_needed, recovery, schema_only, "
            "schema_only_recovery",
        ),
        ("schema.history.internal.skip.unparseable.ddl", "maybe", "schema.history.internal.skip.unparseable.ddl"),
        ("snapshot.locking.mode", "extended", "Value must be one of minimal, none"),
        ("decimal.handling.mode", "exact", "Value must be one of precise, double, string"),
        ("bigint.unsigned.handling.mode", "string", "Value must be one of long, precise"),
        ("database.server.id", "0", "Value must be between 1 and 4294967295"),
        ("skipped.operations", "c,x", "Value must be a list of c, u, d, t, or none; got x"),
        ("table.include.list", "inventory.(", "is not a valid regular expression"),
        ("message.key.columns", "inventory.t", "is not <table regex>:<column>"),
        (
            "database.ssl.mode",
            "required",
            "Debezium's database.ssl.mode is not implemented by this connector, and it would change what is "
            "written: TLS to the database is not implemented. Remove it (or set it to 'disabled')",
        ),
        ("converters", "boolean", "it would change what is written: custom converters change columns' values"),
        ("provide.transaction.metadata", "true", "it adds transaction events and the transaction block"),
    ],
)
def test_bad_values_and_unsupported_keys_are_refused_naming_the_key(key: str, value: str, named: str) -> None:
    with pytest.raises(ConfigError) as refused:
        parse_settings({**DEBEZIUM_FILE, key: value})
    assert f"{key}:" in str(refused.value) and named in str(refused.value)


@pytest.mark.parametrize(("written", "read"), [("schema_only", "no_data"), ("SCHEMA_ONLY_RECOVERY", "recovery")])
def test_debezium_2_snapshot_modes_are_read_as_their_successors_with_a_deprecation(written: str, read: str) -> None:
    props = {**DEBEZIUM_FILE, "snapshot.mode": written}
    assert parse_settings(props).snapshot_mode == read
    assert deprecated_snapshot_mode(props) == (
        f"snapshot.mode={written.lower()} is deprecated (Debezium: to be removed in Debezium 3.0, replaced by {read}): "
        f"it runs as snapshot.mode={read}"
    )
    assert deprecated_snapshot_mode({**DEBEZIUM_FILE, "snapshot.mode": read}) is None


@pytest.mark.parametrize(
    ("connector_class", "name"),
    [
        ("io.debezium.connector.mysql.MySqlConnector", "mysql"),
        ("io.debezium.connector.mariadb.MariaDbConnector", "mariadb"),
        ("MySqlCdc", "mysql"),
    ],
)
def test_source_connector_follows_the_connector_class(connector_class: str, name: str) -> None:
    assert parse_settings({**DEBEZIUM_FILE, "connector.class": connector_class}).connector_name == name


def test_missing_required_keys_are_named() -> None:
    props = {
        k: v for k, v in DEBEZIUM_FILE.items() if k not in ("database.server.id", "schema.history.internal.kafka.topic")
    }
    with pytest.raises(ConfigError) as refused:
        parse_settings(props)
    assert "database.server.id" in str(refused.value) and "schema.history.internal.kafka.topic" in str(refused.value)
