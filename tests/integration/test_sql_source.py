"""The SQL table source against a real PostgreSQL server (tests/postgres.py) and the test broker: Connect
types from PostgreSQL's, a table created mid-run getting its topic by the worker's rules, the database
restarted mid-run, the worker killed mid-table, and a Confluent JDBC source file run as written."""

from __future__ import annotations

import json
import signal
import sqlite3
import uuid
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime, time
from pathlib import Path

import pytest
import sqlalchemy
from confluent_kafka.admin import AdminClient
from sqlalchemy import text
from sqlalchemy.pool import NullPool

from connectworker.api.errors import ConnectError
from connectworker.api.schema import SchemaType
from connectworker.connectors.sql import SqlSourceConnector, SqlSourceTask
from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore
from connectworker.runtime.status import State
from connectworker.testing import TaskHarness, connector_task_props
from tests.broker import Broker
from tests.integration.harness import running_worker, task_state, wait_until, worker_config
from tests.integration.numbered_records import consume_keys
from tests.integration.test_repeated_sigkill import run_to_completion, start_worker
from tests.integration.test_rest_harness import rest_worker, rest_worker_config, wait_for_states
from tests.integration.topic_checks import partition_count, topic_configs
from tests.kafka_helpers import consume, existing_topics
from tests.postgres import Postgres


@pytest.fixture
def database(postgres: Postgres) -> Iterator[tuple[Postgres, str]]:
    """A database of its own for the test, dropped at the end."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = sqlalchemy.create_engine(postgres.sqlalchemy_url, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    with admin.connect() as connection:
        connection.execute(text(f"CREATE DATABASE {name}"))
    try:
        yield postgres, name
    finally:
        with admin.connect() as connection:
            connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
        admin.dispose()


def engine_of(database: tuple[Postgres, str]) -> sqlalchemy.Engine:
    server, name = database
    return sqlalchemy.create_engine(server.sqlalchemy_url.rsplit("/", 1)[0] + f"/{name}")


def execute(database: tuple[Postgres, str], *statements: str) -> None:
    engine = engine_of(database)
    with engine.begin() as connection:
        for statement in statements:
            connection.execute(text(statement))
    engine.dispose()


def source_props(database: tuple[Postgres, str], **overrides: str) -> dict[str, str]:
    server, name = database
    return {
        "name": f"pg-{name}",
        "connector.class": "SqlSource",
        "connection.url": f"jdbc:postgresql://{server.host}:{server.port}/{name}",
        "connection.user": server.user,
        "connection.password": server.password,
        "mode": "incrementing",
        "incrementing.column.name": "id",
        "topic.prefix": f"{name}-",
        "poll.interval.ms": "100",
        "table.poll.interval.ms": "300",
        **overrides,
    }


def numbered_rows(database: tuple[Postgres, str], table: str, first: int, last: int) -> None:
    execute(database, f"INSERT INTO {table} (id, note) SELECT n, 'row ' || n FROM generate_series({first}, {last}) n")


def test_postgres_column_types_become_connect_schemas_and_values(database: tuple[Postgres, str]) -> None:
    execute(
        database,
        """CREATE TABLE kinds (
        id bigint PRIMARY KEY, small smallint, regular integer, single real, double double precision,
        whole numeric(5, 0), price numeric(10, 2), huge numeric(30, 10), free numeric, label varchar(20),
        body text, raw bytea, flag boolean, day date, clock time, happened timestamp, instant timestamptz,
        ident uuid, doc jsonb, nothing integer)""",
        """INSERT INTO kinds VALUES (1, 7, 70000, 1.5, 2.25, 12345, 99.95, 12345678901234567890.0123456789, 0.1,
        'label', 'body', '\\x0001ff', true, '2026-02-03', '04:05:06.789', '2026-02-03 04:05:06.789',
        '2026-02-03 04:05:06.789+02', '0b5e8f7a-1b2c-4d5e-8f90-123456789abc', '{"a": [1, 2]}', NULL)""",
    )
    props = source_props(database, **{"numeric.mapping": "best_fit"})
    [record] = TaskHarness(SqlSourceTask, connector_task_props(SqlSourceConnector, props)[0]).run(records=1)
    assert record.value_schema is not None
    fields = {f.name: (f.schema.type, f.schema.name) for f in record.value_schema.fields}
    assert fields == {
        "id": (SchemaType.INT64, None),
        "small": (SchemaType.INT16, None),
        "regular": (SchemaType.INT32, None),
        "single": (SchemaType.FLOAT32, None),
        "double": (SchemaType.FLOAT64, None),
        "whole": (SchemaType.INT32, None),
        "price": (SchemaType.FLOAT64, None),
        "huge": (SchemaType.STRING, None),
        "free": (SchemaType.STRING, None),
        "label": (SchemaType.STRING, None),
        "body": (SchemaType.STRING, None),
        "raw": (SchemaType.BYTES, None),
        "flag": (SchemaType.BOOLEAN, None),
        "day": (SchemaType.INT32, "org.apache.kafka.connect.data.Date"),
        "clock": (SchemaType.INT32, "org.apache.kafka.connect.data.Time"),
        "happened": (SchemaType.INT64, "org.apache.kafka.connect.data.Timestamp"),
        "instant": (SchemaType.INT64, "org.apache.kafka.connect.data.Timestamp"),
        "ident": (SchemaType.STRING, None),
        "doc": (SchemaType.STRING, None),
        "nothing": (SchemaType.INT32, None),
    }
    assert record.value == {
        "id": 1,
        "small": 7,
        "regular": 70000,
        "single": 1.5,
        "double": 2.25,
        "whole": 12345,
        "price": 99.95,
        "huge": "12345678901234567890.0123456789",
        "free": "0.1",
        "label": "label",
        "body": "body",
        "raw": b"\x00\x01\xff",
        "flag": True,
        "day": date(2026, 2, 3),
        "clock": time(4, 5, 6, 789000),
        "happened": datetime(2026, 2, 3, 4, 5, 6, 789000, tzinfo=UTC),
        "instant": datetime(2026, 2, 3, 2, 5, 6, 789000, tzinfo=UTC),
        "ident": "0b5e8f7a-1b2c-4d5e-8f90-123456789abc",
        "doc": '{"a":[1,2]}',
        "nothing": None,
    }
    assert record.key == {"id": 1} and record.source_partition == {"protocol": "1", "table": "public.kinds"}


def test_a_column_type_without_a_mapping_fails_the_task_naming_table_column_and_type(
    database: tuple[Postgres, str],
) -> None:
    execute(database, "CREATE TABLE spans (id bigint PRIMARY KEY, length interval)")
    props = source_props(database)
    with pytest.raises(ConnectError, match=r"Column 'length' of table public.spans has the type INTERVAL"):
        TaskHarness(SqlSourceTask, connector_task_props(SqlSourceConnector, props)[0]).run(records=1)


def test_wrong_credentials_are_a_validation_error_on_connection_url_naming_the_user(
    database: tuple[Postgres, str],
) -> None:
    values = SqlSourceConnector().validate(source_props(database, **{"connection.password": "wrong"}))
    [error] = values["connection.url"].errors
    assert "as user 'postgres'" in error and "password authentication failed" in error
    assert "wrong" not in error


def test_an_unreachable_database_is_a_validation_error_on_connection_url(database: tuple[Postgres, str]) -> None:
    props = source_props(database, **{"connection.url": "jdbc:postgresql://127.0.0.1:1/nowhere"})
    [error] = SqlSourceConnector().validate(props)["connection.url"].errors
    assert (
        "Cannot connect to the database of connection.url (postgresql+psycopg://postgres:***@127.0.0.1:1/nowhere)"
        in error
    )


def test_a_table_created_mid_run_gets_its_topic_by_the_rules_compacted_when_keyed(
    broker: Broker, admin: AdminClient, database: tuple[Postgres, str], tmp_path: Path
) -> None:
    _, name = database
    execute(database, "CREATE TABLE orders (id bigint PRIMARY KEY, note text)")
    numbered_rows(database, "orders", 1, 50)
    config = worker_config(
        broker.bootstrap_servers,
        tmp_path,
        **{"value.converter": "org.apache.kafka.connect.json.JsonConverter", "topic.creation.enable": "true"},
    )
    props = source_props(
        database,
        **{
            "topic.creation.default.partitions": "2",
            "topic.creation.default.replication.factor": "1",
            "topic.creation.groups": "refunds",
            "topic.creation.refunds.include": f"{name}-refunds",
            "topic.creation.refunds.partitions": "3",
            "compact.keyed.table.topics": "true",
            "tasks.max": "2",
        },
    )
    with running_worker(config, props) as runtime:
        assert runtime.worker is not None
        wait_until(lambda: task_state(runtime.worker, props["name"])[0] is State.RUNNING, 30, "the task to run")
        orders = consume(broker.bootstrap_servers, [f"{name}-orders"], 50)
        assert sorted(json.loads(m.value())["payload"]["id"] for m in orders) == list(range(1, 51))
        execute(database, "CREATE TABLE refunds (id bigint PRIMARY KEY, note text)")
        numbered_rows(database, "refunds", 1, 10)
        wait_until(
            lambda: len(runtime.worker.get(props["name"]).tasks) == 2,
            30,  # found within 300 ms, then
            "a second task, for the new table",
        )  # a reconfiguration
        wait_until(lambda: f"{name}-refunds" in existing_topics(admin), 30, "the new table's topic")
        refunds = consume(broker.bootstrap_servers, [f"{name}-refunds"], 10, timeout=30)
        assert sorted(json.loads(m.value())["payload"]["id"] for m in refunds) == list(range(1, 11))
    assert partition_count(admin, f"{name}-orders") == 2
    assert partition_count(admin, f"{name}-refunds") == 3
    assert topic_configs(admin, f"{name}-refunds").get("cleanup.policy") == "compact"
    envelope = json.loads(refunds[0].value())
    assert envelope["schema"]["name"] == "refunds"
    assert [f["field"] for f in envelope["schema"]["fields"]] == ["id", "note"]


def test_the_database_restarted_mid_run_is_waited_out_and_nothing_is_lost(
    broker: Broker, admin: AdminClient, database: tuple[Postgres, str], tmp_path: Path
) -> None:
    server, name = database
    if server.data_dir is None:
        pytest.skip("the server was not started by the tests, so they cannot restart it")
    execute(database, "CREATE TABLE events (id bigint PRIMARY KEY, note text)")
    numbered_rows(database, "events", 0, 99)
    props = source_props(
        database,
        **{
            "errors.retry.delay.max.ms": "1000",  # the retry backoff's cap: polls again within a second of the restart
            "transforms": "key",
            "transforms.key.type": "org.apache.kafka.connect.transforms.ExtractField$Key",
            "transforms.key.field": "id",
        },
    )
    with running_worker(worker_config(broker.bootstrap_servers, tmp_path), props) as runtime:
        assert runtime.worker is not None
        wait_until(lambda: f"{name}-events" in existing_topics(admin), 30, "the table's topic")
        assert len(consume_keys(broker.bootstrap_servers, f"{name}-events", 100)) == 100
        server.pg_ctl("stop", "-m", "fast")
        try:
            wait_until(
                lambda: "retrying with backoff" in (task_state(runtime.worker, props["name"])[1] or ""),
                30,
                "the task's status to say it is retrying",
            )
            assert task_state(runtime.worker, props["name"])[0] is State.RUNNING
        finally:
            server.pg_ctl("start")
        numbered_rows(database, "events", 100, 199)
        seen = consume_keys(broker.bootstrap_servers, f"{name}-events", 200, timeout=60)
        wait_until(
            lambda: task_state(runtime.worker, props["name"]) == (State.RUNNING, None),
            10,
            "the retry note to leave the task's status",
        )
    assert set(seen) == set(range(200)), f"lost: {sorted(set(range(200)) - set(seen))[:20]}"


def test_a_confluent_jdbc_source_file_killed_mid_table_and_restarted_loses_no_row(
    broker: Broker, database: tuple[Postgres, str], tmp_path: Path
) -> None:
    """The file as a Confluent JDBC user writes it (their class, their keys, ValueToKey + ExtractField for a
    plain key); only the broker and the database addresses are ours."""
    server, name = database
    rows = 20_000
    execute(database, "CREATE TABLE payments (id bigint PRIMARY KEY, note text)")
    numbered_rows(database, "payments", 0, rows - 1)
    worker = tmp_path / "worker.properties"
    worker.write_text(
        f"bootstrap.servers={broker.bootstrap_servers}\n"
        f"offset.storage.file.filename={tmp_path / 'offsets.json'}\noffset.flush.interval.ms=200\n"
        "listeners=\n"
        "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
        "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
    )
    connector = tmp_path / "jdbc-source.properties"
    template = (Path(__file__).parents[2] / "config" / "connectors" / "jdbc-source-confluent.properties").read_text()
    connector.write_text(
        template.replace(
            "jdbc:postgresql://localhost:5432/shop", f"jdbc:postgresql://{server.host}:{server.port}/{name}"
        )
        .replace("connection.password=change-me", f"connection.password={server.password}")
        .replace("name=jdbc-source-shop", f"name=jdbc-{name}")
        .replace("topic.prefix=shop-", f"topic.prefix={name}-")
        .replace("batch.max.rows=500", "batch.max.rows=50")
    )
    log = tmp_path / "worker.log"
    topic = f"{name}-payments"
    proc = start_worker(worker, connector, log)
    try:
        wait_until(
            lambda: _offset_id(tmp_path / "offsets.json") > 2000 or proc.poll() is not None,
            60,
            "a commit past row 2000",
        )
        assert proc.poll() is None, log.read_text()[-3000:]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    committed_at_kill = _offset_id(tmp_path / "offsets.json")
    assert committed_at_kill < rows - 1, "the kill should land mid-table"
    run_to_completion(worker, connector, log, lambda: _offset_id(tmp_path / "offsets.json") == rows - 1, 90)
    seen = consume_keys(broker.bootstrap_servers, topic, rows, timeout=60)
    assert set(seen) == set(range(rows)), f"lost: {sorted(set(range(rows)) - set(seen))[:20]}"
    twice = sorted(key for key, count in seen.items() if count > 1)
    assert all(key > committed_at_kill for key in twice), "only rows after the last commit may come twice"


def _offset_id(offsets: Path) -> int:
    """The `incrementing` id the offsets file holds for the table (-1 before any commit)."""
    if not offsets.exists():
        return -1
    try:
        stored = json.loads(offsets.read_text() or "{}")
    except json.JSONDecodeError:  # written at this moment: read again later
        return -1
    ids = [v.get("incrementing", -1) for v in _offset_values(stored)]
    return max(ids, default=-1)


def _offset_values(stored: object) -> Iterator[dict[str, int]]:
    if isinstance(stored, dict):
        if "incrementing" in stored:
            yield stored  # type: ignore[misc]
        for value in stored.values():
            yield from _offset_values(value)


def test_the_example_file_names_only_keys_the_connector_declares() -> None:
    path = Path(__file__).parents[2] / "config" / "connectors" / "jdbc-source-confluent.properties"
    keys = {line.split("=", 1)[0] for line in path.read_text().splitlines() if "=" in line and not line.startswith("#")}
    declared = set(SqlSourceConnector().config_def().names())
    assert {"connection.url", "mode", "incrementing.column.name", "table.whitelist"} <= keys
    assert keys - declared <= {
        "name",
        "connector.class",
        "tasks.max",
        "transforms",
        "transforms.createKey.type",
        "transforms.createKey.fields",
        "transforms.extractId.type",
        "transforms.extractId.field",
    }


def _kill_mid_table_with_exactly_once(
    broker: Broker, database: tuple[Postgres, str], tmp_path: Path
) -> tuple[Counter[int], int]:
    """Run the source with exactly-once delivery on a 20,000-row table, SIGKILL the worker mid-table,
    run it again to the end; what a `read_committed` reader sees, and the row count."""
    _, name = database
    rows = 20_000
    execute(database, "CREATE TABLE ledger (id bigint PRIMARY KEY, note text)")
    numbered_rows(database, "ledger", 0, rows - 1)
    offsets_topic = f"{name}-offsets"
    worker = tmp_path / "worker.properties"
    worker.write_text(
        f"bootstrap.servers={broker.bootstrap_servers}\n"
        f"offset.storage.file.filename={tmp_path / 'offsets.json'}\n"
        f"offset.storage.topic={offsets_topic}\noffset.storage.partitions=1\n"
        "offset.storage.replication.factor=1\nexactly.once.source.support=enabled\nlisteners=\n"
        "key.converter=org.apache.kafka.connect.storage.StringConverter\n"
        "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
    )
    connector = tmp_path / "ledger.properties"
    connector.write_text(
        "\n".join(
            f"{k}={v}"
            for k, v in source_props(
                database,
                **{
                    "batch.max.rows": "200",
                    "exactly.once.support": "required",
                    "transforms": "key",
                    "transforms.key.type": "org.apache.kafka.connect.transforms.ExtractField$Key",
                    "transforms.key.field": "id",
                },
            ).items()
        )
        + "\n"
    )
    store = KafkaOffsetStore(
        offsets_topic, {"bootstrap.servers": broker.bootstrap_servers}, partitions=1, replication_factor=1
    )

    def committed() -> int:
        store.refresh()
        offset = store.offset(f"pg-{name}", {"protocol": "1", "table": "public.ledger"})
        return int(offset["incrementing"]) if offset else -1

    log, topic = tmp_path / "worker.log", f"{name}-ledger"
    try:
        proc = start_worker(worker, connector, log)
        try:
            wait_until(lambda: committed() > 2000 or proc.poll() is not None, 60, "a commit past row 2000")
            assert proc.poll() is None, log.read_text()[-3000:]
            assert committed() < rows - 1, "the kill should land mid-table"
        finally:  # (the killed worker's open transaction hides the topic's end until the next one fences it)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        run_to_completion(worker, connector, log, lambda: committed() == rows - 1, 90)
        seen = consume_keys(broker.bootstrap_servers, topic, rows, timeout=60, isolation="read_committed")
    finally:
        store.close()
    return seen, rows


@pytest.mark.requires_apache_kafka(
    "on Tansu a killed instance's unfinished transaction can surface: its offsets record is read back by the "
    "next instance while data batches of the same transaction never arrived (seen in one CI run: 150 of the "
    "200 rows of the killed poll missing, the offsets past them); Apache Kafka aborts it whole"
)
def test_exactly_once_killed_mid_table_loses_no_row(
    broker: Broker, database: tuple[Postgres, str], tmp_path: Path
) -> None:
    seen, rows = _kill_mid_table_with_exactly_once(broker, database, tmp_path)
    assert set(seen) == set(range(rows)), f"lost: {sorted(set(range(rows)) - set(seen))[:20]}"


@pytest.mark.requires_apache_kafka("Tansu shows aborted transactions to read_committed readers")
def test_exactly_once_killed_mid_table_duplicates_no_row(
    broker: Broker, database: tuple[Postgres, str], tmp_path: Path
) -> None:
    seen, rows = _kill_mid_table_with_exactly_once(broker, database, tmp_path)
    assert set(seen) == set(range(rows)) and max(seen.values()) == 1


def test_through_rest_a_new_table_starts_a_task_and_a_bad_database_is_a_400_on_connection_url(
    broker: Broker, tmp_path: Path
) -> None:
    db = tmp_path / "shop.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, item TEXT NOT NULL)")
        connection.execute("INSERT INTO orders (item) VALUES ('tea')")
    config = {
        "connector.class": "SqlSource",
        "connection.url": f"jdbc:sqlite:{db}",
        "mode": "incrementing",
        "incrementing.column.name": "id",
        "topic.prefix": f"rest-{uuid.uuid4().hex[:8]}-",
        "tasks.max": "4",
        "poll.interval.ms": "100",
        "table.poll.interval.ms": "200",
    }
    with rest_worker(rest_worker_config(broker.bootstrap_servers, tmp_path)) as api:
        refused = api.client.post(
            "/connectors",
            json={
                "name": "nowhere",
                "config": {**config, "connection.url": f"jdbc:sqlite:{tmp_path / 'no' / 'such' / 'dir.db'}"},
            },
        )
        assert refused.status_code == 400
        assert "connection.url" in refused.json()["message"] and "Cannot connect" in refused.json()["message"]
        assert api.client.post("/connectors", json={"name": "shop", "config": config}).status_code == 201
        wait_for_states(api, "shop", "RUNNING", ["RUNNING"])
        with sqlite3.connect(db) as connection:
            connection.execute("CREATE TABLE refunds (id INTEGER PRIMARY KEY, amount REAL)")
        wait_for_states(api, "shop", "RUNNING", ["RUNNING", "RUNNING"])
        tasks = api.client.get("/connectors/shop/tasks").json()
        assert [json.loads(t["config"]["tables"]) for t in tasks] == [[["main", "orders"]], [["main", "refunds"]]]
        # each task's own config, as Kafka shows it: what task_configs() gave it, and its task class
        assert [set(t["config"]) for t in tasks] == [{"tables", "task.class"}] * 2
        assert tasks[0]["config"]["task.class"] == "connectworker.connectors.sql.task.SqlSourceTask"
