"""PostgreSQL change data capture's failure paths through the worker, against the real server and the test
broker: the slot held by another client, the database restarted mid-stream, a user without REPLICATION
refused by the REST API, and the worker SIGKILLed under exactly-once delivery."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, TopicPartition

from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.cdc_helpers import CdcDatabase, cdc_database, read_ids
from tests.integration.harness import running_worker, task_state, wait_until, worker_config
from tests.integration.test_repeated_sigkill import run_to_completion, start_worker
from tests.postgres import Postgres


@pytest.fixture
def db(postgres: Postgres) -> Iterator[CdcDatabase]:
    with cdc_database(postgres) as database:
        yield database


def _numbered(db: CdcDatabase, first: int, last: int) -> None:
    db.execute(f"INSERT INTO events SELECT n, 'event' FROM generate_series({first}, {last}) n")


def test_the_slot_held_by_another_client_is_retried_with_backoff_until_it_is_free(
    broker: Broker, db: CdcDatabase, tmp_path: Path
) -> None:
    import psycopg2.extras

    db.execute("CREATE TABLE events (id bigint PRIMARY KEY, note text)")
    db.query(f"SELECT pg_create_logical_replication_slot('{db.slot}', 'pgoutput')")
    db.execute("CREATE PUBLICATION dbz_publication FOR ALL TABLES")
    holder = psycopg2.connect(
        host=db.server.host,
        port=db.server.port,
        dbname=db.name,
        user=db.server.user,
        password=db.server.password,
        connection_factory=psycopg2.extras.LogicalReplicationConnection,
    )
    holder.cursor().start_replication(
        slot_name=db.slot, decode=False, options={"proto_version": "1", "publication_names": "dbz_publication"}
    )
    props = db.props(
        **{
            "snapshot.mode": "no_data",
            "errors.retry.delay.max.ms": "500",
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "false",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        }
    )
    topic = f"{db.name}.public.events"
    try:
        with running_worker(worker_config(broker.bootstrap_servers, tmp_path), props) as runtime:
            assert runtime.worker is not None
            wait_until(
                lambda: "is active for PID" in (task_state(runtime.worker, props["name"])[1] or ""),
                30,
                lambda: f"the status to name the slot in use ({task_state(runtime.worker, props['name'])})",
            )
            state, note = task_state(runtime.worker, props["name"])
            assert state is State.RUNNING and db.slot in (note or "")
            _numbered(db, 0, 9)
            holder.close()
            assert read_ids(broker.bootstrap_servers, topic, range(10)) == set(range(10))
    finally:
        holder.close()


def test_the_database_restarted_mid_stream_is_waited_out_and_nothing_is_lost(
    broker: Broker, db: CdcDatabase, tmp_path: Path
) -> None:
    if db.server.data_dir is None:
        pytest.skip("the server was not started by the tests, so they cannot restart it")
    db.execute("CREATE TABLE events (id bigint PRIMARY KEY, note text)")
    _numbered(db, 0, 99)
    props = db.props(
        **{
            "errors.retry.delay.max.ms": "1000",
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "false",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        }
    )
    topic = f"{db.name}.public.events"
    with running_worker(worker_config(broker.bootstrap_servers, tmp_path), props) as runtime:
        assert runtime.worker is not None
        read_ids(broker.bootstrap_servers, topic, range(100))
        _numbered(db, 100, 199)
        read_ids(broker.bootstrap_servers, topic, range(200))
        db.server.pg_ctl("stop", "-m", "fast")
        try:
            wait_until(
                lambda: "retrying with backoff" in (task_state(runtime.worker, props["name"])[1] or ""),
                30,
                "the task's status to say it is retrying",
            )
            assert task_state(runtime.worker, props["name"])[0] is State.RUNNING
        finally:
            db.server.pg_ctl("start")
        _numbered(db, 200, 299)
        assert read_ids(broker.bootstrap_servers, topic, range(300)) == set(range(300))
        wait_until(
            lambda: task_state(runtime.worker, props["name"]) == (State.RUNNING, None),
            30,
            "the retry note to leave the task's status",
        )


@pytest.mark.long(seconds=30)
def test_the_database_gone_for_longer_than_errors_retry_timeout_fails_the_task_naming_the_server(
    broker: Broker, db: CdcDatabase, tmp_path: Path
) -> None:
    """As the MySQL connector does: retried while it is within errors.retry.timeout, then FAILED with the
    server's host and port, not retried for ever."""
    if db.server.data_dir is None:
        pytest.skip("the server was not started by the tests, so they cannot stop it")
    db.execute("CREATE TABLE events (id bigint PRIMARY KEY, note text)")
    _numbered(db, 0, 9)
    props = db.props(
        **{
            "errors.retry.timeout": "5000",
            "errors.retry.delay.max.ms": "500",
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "false",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        }
    )
    with running_worker(worker_config(broker.bootstrap_servers, tmp_path), props) as runtime:
        assert runtime.worker is not None
        read_ids(broker.bootstrap_servers, f"{db.name}.public.events", range(10))
        db.server.pg_ctl("stop", "-m", "fast")
        try:
            wait_until(
                lambda: task_state(runtime.worker, props["name"])[0] is State.FAILED,
                60,
                lambda: f"the task to fail ({task_state(runtime.worker, props['name'])})",
            )
            trace = task_state(runtime.worker, props["name"])[1] or ""
        finally:
            db.server.pg_ctl("start")
    assert f"The server at {db.server.host}:{db.server.port} was unreachable for longer than" in trace
    assert "errors.retry.timeout=5000 ms: the task stops" in trace


def test_through_rest_a_user_without_replication_is_a_400_naming_the_user_and_the_privilege(
    broker: Broker, db: CdcDatabase, tmp_path: Path
) -> None:
    from tests.integration.test_rest_harness import rest_worker, rest_worker_config

    db.execute("DROP ROLE IF EXISTS plain_reader", "CREATE ROLE plain_reader LOGIN PASSWORD 'reader-secret'")
    config = {
        k: v
        for k, v in db.props(**{"database.user": "plain_reader", "database.password": "reader-secret"}).items()
        if k != "name"
    }
    try:
        with rest_worker(rest_worker_config(broker.bootstrap_servers, tmp_path)) as api:
            refused = api.client.post("/connectors", json={"name": "cdc", "config": config})
    finally:
        db.execute("DROP ROLE plain_reader")
    assert refused.status_code == 400
    message = refused.json()["message"]
    assert "database.user" in message and "'plain_reader'" in message and "REPLICATION" in message
    assert "reader-secret" not in message


def _kill_mid_stream_with_exactly_once(broker: Broker, db: CdcDatabase, tmp_path: Path) -> tuple[list[int], int]:
    """Stream inserts with exactly-once delivery, SIGKILL the worker mid-stream, run it again until the last
    change is committed; the ids a read_committed reader sees, and how many rows were written."""
    from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore

    db.execute("CREATE TABLE ledger (id bigint PRIMARY KEY, note text)")
    offsets_topic = f"{db.name}-offsets"
    worker = tmp_path / "worker.properties"
    worker.write_text(
        f"bootstrap.servers={broker.bootstrap_servers}\n"
        f"offset.storage.file.filename={tmp_path / 'offsets.json'}\n"
        f"offset.storage.topic={offsets_topic}\noffset.storage.partitions=1\n"
        "offset.storage.replication.factor=1\nexactly.once.source.support=enabled\nlisteners=\n"
        "key.converter=org.apache.kafka.connect.json.JsonConverter\nkey.converter.schemas.enable=false\n"
        "value.converter=org.apache.kafka.connect.json.JsonConverter\n"
    )
    connector = tmp_path / "ledger.properties"
    connector.write_text(
        "".join(
            f"{k}={v}\n"
            for k, v in db.props(
                **{"snapshot.mode": "no_data", "exactly.once.support": "required", "max.batch.size": "100"}
            ).items()
        )
    )
    store = KafkaOffsetStore(
        offsets_topic, {"bootstrap.servers": broker.bootstrap_servers}, partitions=1, replication_factor=1
    )

    def committed_proc() -> int:
        store.refresh()
        offset = store.offset(f"cdc-{db.name}", {"server": db.name})
        return int(offset.get("lsn_proc") or 0) if offset else 0

    rows, log, topic = 5_000, tmp_path / "worker.log", f"{db.name}.public.ledger"
    try:
        proc = start_worker(worker, connector, log)
        try:
            wait_until(
                lambda: (
                    db.query(f"SELECT count(*) FROM pg_replication_slots WHERE slot_name = '{db.slot}'") == [(1,)]
                    or proc.poll() is not None
                ),
                60,
                "the slot",
            )
            for first in range(0, rows - 1, 50):  # transactions of 50 rows, so commits land mid-transaction too
                db.execute(
                    f"INSERT INTO ledger SELECT n, 'x' FROM generate_series({first}, {min(first + 49, rows - 2)}) n"
                )
                if first == 1000:
                    wait_until(lambda: committed_proc() > 0 or proc.poll() is not None, 60, "a committed change")
            [(before_last,)] = db.query("SELECT pg_current_wal_insert_lsn() - '0/0'")
            db.execute(f"INSERT INTO ledger VALUES ({rows - 1}, 'last')")  # the only change after before_last
            assert proc.poll() is None, log.read_text()[-3000:]
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
        # the last row's change starts at the insert position read before it
        run_to_completion(worker, connector, log, lambda: committed_proc() >= int(before_last), 90)
        consumer = Consumer(
            {
                "bootstrap.servers": broker.bootstrap_servers,
                "group.id": f"eos-{topic}",
                "isolation.level": "read_committed",
                "enable.auto.commit": False,
            }
        )
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, 0) for p in partitions])
        seen: list[int] = []
        wait_until(
            lambda: (
                seen.extend(json.loads(m.key())["id"] for m in consumer.consume(1000, timeout=0.5) if not m.error())
                or len(set(seen)) >= rows
            ),
            60,
            "every row",
        )
        consumer.close()
    finally:
        store.close()
    return seen, rows


@pytest.mark.long(seconds=30)
def test_exactly_once_killed_mid_stream_loses_no_change(broker: Broker, db: CdcDatabase, tmp_path: Path) -> None:
    seen, rows = _kill_mid_stream_with_exactly_once(broker, db, tmp_path)
    assert set(seen) == set(range(rows)), f"lost: {sorted(set(range(rows)) - set(seen))[:20]}"


@pytest.mark.requires_apache_kafka("Tansu shows aborted transactions to read_committed readers")
def test_exactly_once_killed_mid_stream_duplicates_no_change(broker: Broker, db: CdcDatabase, tmp_path: Path) -> None:
    seen, rows = _kill_mid_stream_with_exactly_once(broker, db, tmp_path)
    assert sorted(seen) == list(range(rows))


def test_a_table_whose_creation_is_decoded_before_it_is_visible_still_gets_its_key(db: CdcDatabase) -> None:
    """The walsender may hand on a transaction a moment before other sessions see its commit: the catalog
    look-up of a table created in it waits for the table rather than shaping it without a primary key."""
    import threading

    from connectworker.connectors.postgres_cdc.database import visible_table_columns

    creator = db.connect()
    creator.autocommit = False
    with creator.cursor() as cursor:
        cursor.execute("CREATE TABLE late (id int PRIMARY KEY, note text NOT NULL)")
        cursor.execute("SELECT 'late'::regclass::oid")
        (relid,) = cursor.fetchone()
    catalog = db.connect()
    commit = threading.Timer(0.3, creator.commit)
    commit.start()
    try:
        columns = visible_table_columns(catalog, relid, {"id", "note"}, wait_s=10)
    finally:
        commit.join()
        creator.close()
        catalog.close()
    assert [(c.name, c.key_position, c.nullable) for c in columns] == [("id", 1, False), ("note", 0, False)]


def test_a_publication_another_connector_created_meanwhile_is_taken_as_it_is(
    db: CdcDatabase, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Connectors sharing a publication and starting at once race to create it: the one that loses finds it
    created and goes on (it used to fail with a duplicate key in pg_publication)."""
    from connectworker.connectors.postgres_cdc import database
    from connectworker.connectors.postgres_cdc.settings import parse_settings

    db.execute("CREATE PUBLICATION dbz_publication FOR ALL TABLES")  # the other connector's, just created
    real, looked = database.publication_exists, []

    def exists(connection: Any, publication: str) -> bool:
        looked.append(publication)
        return len(looked) > 1 and real(connection, publication)  # it looked a moment before the other made it

    monkeypatch.setattr(database, "publication_exists", exists)
    connection = database.connect(parse_settings(db.props()))
    try:
        database.ensure_publication(connection, parse_settings(db.props()))
    finally:
        connection.close()
    assert db.query("SELECT pubname, puballtables FROM pg_publication") == [("dbz_publication", True)]
