"""The SQL table source against SQLite, through the testing kit: each mode, resuming from committed
offsets, the keys' validation, JDBC URLs, and new tables noticed while it runs."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from connectworker.api.errors import ConfigError, ConnectError
from connectworker.api.schema import SchemaType
from connectworker.api.topic_settings import CleanupPolicy, TopicSettings
from connectworker.connectors import BUILTIN_CONNECTORS
from connectworker.connectors.sql import SqlSourceConnector, SqlSourceTask
from connectworker.connectors.sql.database import sqlalchemy_url
from connectworker.connectors.sql.settings import parse_settings
from connectworker.testing import RecordedConnectorContext, TaskHarness, connector_task_props


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "shop.db"
    with sqlite3.connect(path) as connection:
        connection.execute(
            "CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL, amount NUMERIC(10, 2), "
            "updated TIMESTAMP NOT NULL)"
        )
        connection.executemany(
            "INSERT INTO orders VALUES (?, ?, ?, ?)",
            [(i, f"item-{i}", i * 1.25, f"2026-01-01 10:00:{i:02d}") for i in range(1, 6)],
        )
    yield path


def props(db: Path, **overrides: str) -> dict[str, str]:
    return {
        "name": "shop",
        "connector.class": "SqlSource",
        "connection.url": f"jdbc:sqlite:{db}",
        "mode": "incrementing",
        "incrementing.column.name": "id",
        "topic.prefix": "shop-",
        "poll.interval.ms": "50",
        **overrides,
    }


def run_task(db: Path, count: int, offsets: Any = None, **overrides: str) -> tuple[TaskHarness, list[Any]]:
    task_props = connector_task_props(SqlSourceConnector, props(db, **overrides))
    harness = TaskHarness(SqlSourceTask, task_props[0], offsets=offsets)
    return harness, harness.run(records=count, timeout=10)


def insert(db: Path, *rows: tuple[Any, ...]) -> None:
    with sqlite3.connect(db) as connection:
        connection.executemany("INSERT INTO orders VALUES (?, ?, ?, ?)", rows)


def test_incrementing_reads_every_row_in_order_with_the_table_as_schema_and_the_primary_key_as_key(db: Path) -> None:
    _, records = run_task(db, 5)
    assert [r.value["id"] for r in records] == [1, 2, 3, 4, 5]
    first = records[0]
    assert first.topic == "shop-orders"
    assert first.key == {"id": 1}
    assert first.value["item"] == "item-1" and first.value["amount"] == "1.25"  # numeric.mapping=none: exact text
    assert first.value_schema is not None and first.value_schema.name == "orders"
    types = {f.name: (f.schema.type, f.schema.name, f.schema.optional) for f in first.value_schema.fields}
    assert types == {
        "id": (SchemaType.INT64, None, False),
        "item": (SchemaType.STRING, None, False),
        "amount": (SchemaType.STRING, None, True),
        "updated": (SchemaType.INT64, "org.apache.kafka.connect.data.Timestamp", False),
    }
    assert first.source_partition == {"protocol": "1", "table": "main.orders"}
    assert records[-1].source_offset == {"incrementing": 5}


def test_a_restart_resumes_after_the_committed_row(db: Path) -> None:
    harness, _ = run_task(db, 5)
    committed = harness.committed_offsets
    insert(db, (6, "item-6", 7.5, "2026-01-01 10:00:06"), (7, "item-7", 8.75, "2026-01-01 10:00:07"))
    _, records = run_task(db, 2, offsets=committed)
    assert [r.value["id"] for r in records] == [6, 7]


def test_timestamp_incrementing_reads_updates_once_and_new_rows(db: Path) -> None:
    harness, records = run_task(db, 5, mode="timestamp+incrementing", **{"timestamp.column.name": "updated"})
    assert records[-1].source_offset == {"incrementing": 5, "timestamp": 1767261605000, "timestamp_nanos": 0}
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE orders SET item = 'changed', updated = '2026-01-01 10:01:00' WHERE id = 2")
    _, again = run_task(
        db, 1, offsets=harness.committed_offsets, mode="timestamp+incrementing", **{"timestamp.column.name": "updated"}
    )
    assert [(r.value["id"], r.value["item"]) for r in again] == [(2, "changed")]


def test_timestamp_mode_waits_out_the_delay(db: Path) -> None:
    harness, records = run_task(db, 5, mode="timestamp", **{"timestamp.column.name": "updated"})
    assert [r.value["id"] for r in records] == [1, 2, 3, 4, 5]
    insert(db, (6, "future", 1.0, "2999-01-01 00:00:00"))  # beyond the database's clock: not read yet
    with TaskHarness(SqlSourceTask, harness.props, offsets=harness.committed_offsets) as later:
        assert later.poll_until(polls=5) == []


def test_bulk_reads_the_whole_table_every_poll_interval(db: Path) -> None:
    _, records = run_task(db, 10, mode="bulk", **{"incrementing.column.name": ""})
    assert [r.value["id"] for r in records[:10]] == [1, 2, 3, 4, 5, 1, 2, 3, 4, 5]
    assert records[0].source_offset is None


def test_batch_max_rows_bounds_each_poll(db: Path) -> None:
    harness, _ = run_task(db, 5, **{"batch.max.rows": "2"})
    assert [len(p) for p in harness.polls] == [2, 2, 1]


def test_query_mode_reads_the_select_with_its_own_where_into_the_prefix_topic(db: Path) -> None:
    _, records = run_task(db, 2, **{"query": "SELECT id, item FROM orders WHERE id > 3", "topic.prefix": "big-orders"})
    assert [(r.topic, r.value) for r in records] == [
        ("big-orders", {"id": 4, "item": "item-4"}),
        ("big-orders", {"id": 5, "item": "item-5"}),
    ]
    assert records[0].source_partition == {"query": "query"}


def test_tables_are_spread_over_tasks_and_filtered_by_the_lists(db: Path) -> None:
    with sqlite3.connect(db) as connection:
        for name in ("a_one", "a_two", "b_three"):
            connection.execute(f"CREATE TABLE {name} (id INTEGER PRIMARY KEY)")
    configs = connector_task_props(SqlSourceConnector, props(db, **{"tasks.max": "2"}))
    assert [c["tables"] for c in configs] == [
        '[["main", "a_one"], ["main", "a_two"]]',
        '[["main", "b_three"], ["main", "orders"]]',
    ]
    only = connector_task_props(SqlSourceConnector, props(db, **{"table.include.list": "a_.*"}))
    assert only[0]["tables"] == '[["main", "a_one"], ["main", "a_two"]]'
    old_keys = connector_task_props(SqlSourceConnector, props(db, **{"table.blacklist": "orders,main.a_one"}))
    assert old_keys[0]["tables"] == '[["main", "a_two"], ["main", "b_three"]]'


def test_a_table_created_while_running_asks_for_a_task_reconfiguration(db: Path) -> None:
    connector = SqlSourceConnector()
    context = RecordedConnectorContext()
    connector.initialize(context)
    connector.start(props(db, **{"table.poll.interval.ms": "50"}))
    try:
        assert len(connector.task_configs(4)) == 1
        with sqlite3.connect(db) as connection:
            connection.execute("CREATE TABLE refunds (id INTEGER PRIMARY KEY)")
        assert context.wait_for_reconfiguration(timeout=10)
        assert [c["tables"] for c in connector.task_configs(4)] == ['[["main", "orders"]]', '[["main", "refunds"]]']
    finally:
        connector.stop()


def test_a_keyed_tables_topic_is_compacted_when_asked(db: Path) -> None:
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE log (line TEXT)")
    configs = connector_task_props(SqlSourceConnector, props(db, mode="bulk", **{"compact.keyed.table.topics": "true"}))
    harness = TaskHarness(SqlSourceTask, configs[0])
    with harness:
        keyed = harness.task.settings_for_new_topic(TopicSettings("shop-orders"))
        unkeyed = harness.task.settings_for_new_topic(TopicSettings("shop-log"))
    assert keyed is not None and keyed.cleanup_policy is CleanupPolicy.COMPACT
    assert unkeyed is not None and unkeyed.cleanup_policy is None


@pytest.mark.parametrize(
    ("overrides", "key", "message"),
    [
        ({"mode": "sometimes"}, "mode", "bulk"),
        ({"incrementing.column.name": ""}, "incrementing.column.name", "needs the name"),
        ({"mode": "timestamp"}, "timestamp.column.name", "at least one timestamp column"),
        ({"table.include.list": "a", "table.exclude.list": "b"}, "table.exclude.list", "exclude each other"),
        ({"table.include.list": "a", "table.whitelist": "b"}, "table.include.list", "not both"),
        ({"table.include.list": "(unclosed"}, "table.include.list", "not a valid regular expression"),
        ({"query": "SELECT 1", "table.whitelist": "orders"}, "query", "leave the table include"),
        ({"topic.prefix": "bad prefix"}, "topic.prefix", "ASCII letters"),
        ({"db.timezone": "Mars/Olympus"}, "db.timezone", "IANA"),
    ],
)
def test_bad_keys_are_refused_naming_the_key(db: Path, overrides: dict[str, str], key: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_settings(props(db, **overrides))
    assert key in caught.value.problems and message in caught.value.problems[key]
    values = SqlSourceConnector().validate(props(db, **overrides))
    assert any(message in error for error in values[key].errors)


def test_validate_reports_a_database_it_cannot_open_on_connection_url(tmp_path: Path) -> None:
    values = SqlSourceConnector().validate(props(tmp_path / "missing-dir" / "x.db"))
    assert values["connection.url"].errors and "Cannot connect" in values["connection.url"].errors[0]


def test_a_missing_column_fails_the_task_naming_it(db: Path) -> None:
    with pytest.raises(ConnectError, match=r"incrementing.column.name: 'seq' is not a column of main.orders"):
        run_task(db, 1, **{"incrementing.column.name": "seq"})


def test_a_nullable_mode_column_is_refused_unless_validate_non_null_is_off(db: Path) -> None:
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE loose (n INTEGER, v TEXT)")
        connection.execute("INSERT INTO loose VALUES (1, 'a')")
    with pytest.raises(ConnectError, match="may hold NULL"):
        run_task(db, 1, **{"incrementing.column.name": "n", "table.include.list": "loose"})
    _, records = run_task(
        db, 1, **{"incrementing.column.name": "n", "table.include.list": "loose", "validate.non.null": "false"}
    )
    assert records[0].value == {"n": 1, "v": "a"} and records[0].key is None


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "jdbc:postgresql://db.example:5433/shop?user=app&password=pw&sslmode=require",
            "postgresql+psycopg://app:***@db.example:5433/shop?sslmode=require",
        ),
        ("jdbc:sqlite:/var/data/shop.db", "sqlite:////var/data/shop.db"),
        ("jdbc:sqlite:shop.db", "sqlite:///shop.db"),
        ("postgresql://h/db", "postgresql+psycopg://h/db"),
        ("sqlite:///x.db", "sqlite:///x.db"),
    ],
)
def test_jdbc_and_sqlalchemy_urls(url: str, expected: str) -> None:
    settings = parse_settings({"connection.url": url, "mode": "bulk", "topic.prefix": "p-"})
    assert sqlalchemy_url(settings).render_as_string(hide_password=True) == expected


def test_connection_user_and_password_win_over_the_urls() -> None:
    settings = parse_settings(
        {
            "connection.url": "jdbc:postgresql://h:5432/db?user=a&password=b",
            "mode": "bulk",
            "topic.prefix": "p-",
            "connection.user": "u",
            "connection.password": "p",
        }
    )
    url = sqlalchemy_url(settings)
    assert (url.username, url.password) == ("u", "p")


def test_an_unknown_jdbc_subprotocol_names_connection_url() -> None:
    settings = parse_settings({"connection.url": "jdbc:db2://h/db", "mode": "bulk", "topic.prefix": "p-"})
    with pytest.raises(ConfigError, match=r"connection\.url: jdbc:db2://h/db is neither"):
        sqlalchemy_url(settings)


def test_confluents_class_name_and_our_aliases_name_the_connector() -> None:
    target = "connectworker.connectors.sql.connector.SqlSourceConnector"
    assert {
        BUILTIN_CONNECTORS[n]
        for n in ("SqlSource", "SqlSourceConnector", "io.confluent.connect.jdbc.JdbcSourceConnector")
    } == {target}
