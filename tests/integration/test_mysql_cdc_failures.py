"""MySQL / MariaDB change data capture's failure paths, as a user meets them, against real MariaDB servers
and the test broker: a server or user that cannot be captured from refused at validate on the key to fix
(and a task failing with the same reason when the server changed after validate), the server going away
mid-stream (waited out within errors.retry.timeout, the task FAILED naming the server past it), a captured
table dropped and re-created while streamed, a purged binlog position (FAILED naming
snapshot.mode=when_needed, which takes a new snapshot), and the worker SIGKILLed mid-stream."""

from __future__ import annotations

import json
import signal
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from connectworker.runtime.herder.validation import validate_connector_config
from connectworker.runtime.offsets.file_store import partition_key
from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.cdc_helpers import read_all, read_until
from tests.integration.harness import running_worker, task_state, wait_until
from tests.integration.mysql_cdc_helpers import MySqlDatabase, json_worker, mysql_database, payloads, purge_binlogs
from tests.integration.test_repeated_sigkill import run_to_completion, start_worker
from tests.mariadb import MariaDb, running_mariadb

ONE_PARTITION = {"topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "1"}
"""Each table's changes in one partition, in order (Debezium's usual setup)."""


@pytest.fixture
def db(mariadb: MariaDb) -> Iterator[MySqlDatabase]:
    with mysql_database(mariadb) as database:
        yield database


def _validate_errors(props: dict[str, str]) -> dict[str, list[str]]:
    from connectworker.connectors.mysql_cdc import MySqlCdcConnector

    return {key: value.errors for key, value in MySqlCdcConnector().validate(props).items() if value.errors}


def _failed_trace(runtime: Any, name: str, timeout: float = 60) -> str:
    """The task's trace once it is FAILED."""
    wait_until(
        lambda: task_state(runtime.worker, name)[0] is State.FAILED,
        timeout,
        lambda: f"the task to fail ({task_state(runtime.worker, name)})",
    )
    return task_state(runtime.worker, name)[1] or ""


# -- refused at validate, and at the task's start --------------------------------------------------
def test_validate_refuses_a_row_image_other_than_full_on_the_hostname_naming_the_fix(
    broker: Broker, db: MySqlDatabase, mariadb: MariaDb
) -> None:
    mariadb.execute("SET GLOBAL binlog_row_image = 'MINIMAL'")
    try:
        errors = _validate_errors(db.props(broker.bootstrap_servers))
    finally:
        mariadb.execute("SET GLOBAL binlog_row_image = 'FULL'")
    assert list(errors) == ["database.hostname"]
    [message] = errors["database.hostname"]
    assert "binlog_row_image is MINIMAL; change data capture needs FULL" in message
    assert "SET GLOBAL binlog_row_image = 'FULL'" in message


def test_validate_refuses_a_server_without_a_binary_log_naming_log_bin(broker: Broker) -> None:
    with running_mariadb(log_bin=False) as server, mysql_database(server) as database:
        errors = _validate_errors(database.props(broker.bootstrap_servers))
    assert list(errors) == ["database.hostname"]
    [message] = errors["database.hostname"]
    assert "no binary log (log_bin is OFF)" in message and "--log-bin" in message


def test_validate_refuses_a_user_without_the_replication_privileges_on_the_user_naming_the_grant(
    broker: Broker, db: MySqlDatabase, mariadb: MariaDb
) -> None:
    user = f"u{db.name[2:]}"
    mariadb.execute(
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'reader-secret'",
        f"GRANT SELECT, RELOAD, SHOW DATABASES, LOCK TABLES ON *.* TO '{user}'@'%'",
    )
    try:
        props = db.props(broker.bootstrap_servers, **{"database.user": user, "database.password": "reader-secret"})
        neither = _validate_errors(props)
        mariadb.execute(f"GRANT REPLICATION CLIENT ON *.* TO '{user}'@'%'")
        no_slave = _validate_errors(props)
        mariadb.execute(f"GRANT REPLICATION SLAVE ON *.* TO '{user}'@'%'")
        granted = _validate_errors(props)
    finally:
        mariadb.execute(f"DROP USER '{user}'@'%'")
    assert list(neither) == ["database.user"]
    assert "lacks the REPLICATION SLAVE and REPLICATION CLIENT privileges" in neither["database.user"][0]
    assert "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO the connector's user" in neither["database.user"][0]
    assert list(no_slave) == ["database.user"]
    assert "lacks the REPLICATION SLAVE privilege" in no_slave["database.user"][0]
    assert "reader-secret" not in json.dumps([neither, no_slave])
    assert granted == {}


def test_through_rest_a_user_without_replication_is_a_400_naming_the_user_key_and_the_grant(
    broker: Broker, db: MySqlDatabase, mariadb: MariaDb, tmp_path: Path
) -> None:
    from tests.integration.test_rest_harness import rest_worker, rest_worker_config

    user = f"r{db.name[2:]}"
    mariadb.execute(
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'reader-secret'", f"GRANT SELECT, RELOAD ON *.* TO '{user}'@'%'"
    )
    props = db.props(broker.bootstrap_servers, **{"database.user": user, "database.password": "reader-secret"})
    config = {k: v for k, v in props.items() if k != "name"}
    try:
        with rest_worker(rest_worker_config(broker.bootstrap_servers, tmp_path)) as api:
            refused = api.client.post("/connectors", json={"name": "cdc", "config": config})
            listed = api.client.get("/connectors").json()
    finally:
        mariadb.execute(f"DROP USER '{user}'@'%'")
    assert refused.status_code == 400
    message = refused.json()["message"]
    assert "database.user" in message and "GRANT REPLICATION SLAVE, REPLICATION CLIENT" in message
    assert "reader-secret" not in message
    assert listed == []


def test_a_server_changed_after_validate_fails_the_task_at_its_start_with_the_same_reason(
    broker: Broker, db: MySqlDatabase, mariadb: MariaDb, tmp_path: Path
) -> None:
    db.execute("CREATE TABLE items (id INT PRIMARY KEY)", "INSERT INTO items VALUES (1)")
    bootstrap, topic = broker.bootstrap_servers, f"{db.name}.{db.name}.items"
    props = db.props(bootstrap, **ONE_PARTITION)
    with running_worker(json_worker(bootstrap, tmp_path), props) as runtime:  # validated: the server was right
        assert runtime.worker is not None
        read_until(bootstrap, topic, lambda k, v: k == {"id": 1})
        mariadb.execute("SET GLOBAL binlog_row_image = 'MINIMAL'")
        try:
            runtime.worker.restart_task(props["name"], 0)  # a task (re)started without a validate
            trace = _failed_trace(runtime, props["name"])
        finally:
            mariadb.execute("SET GLOBAL binlog_row_image = 'FULL'")
    assert "binlog_row_image is MINIMAL; change data capture needs FULL" in trace
    assert "SET GLOBAL binlog_row_image = 'FULL'" in trace


# -- the server going away mid-stream ---------------------------------------------------------------
def _ids(bootstrap: str, topic: str) -> list[int]:
    return [p["after"]["id"] for p in payloads(read_all(bootstrap, topic))]


@pytest.mark.long(seconds=30)
def test_the_server_gone_mid_stream_is_retried_within_the_retry_timeout_then_fails_the_task_naming_it(
    broker: Broker, tmp_path: Path
) -> None:
    bootstrap = broker.bootstrap_servers
    with running_mariadb() as server, mysql_database(server) as db:
        db.execute("CREATE TABLE events (id INT PRIMARY KEY)", "INSERT INTO events VALUES (0), (1)")
        topic = f"{db.name}.{db.name}.events"
        props = db.props(
            bootstrap, **ONE_PARTITION, **{"errors.retry.timeout": "20000", "errors.retry.delay.max.ms": "500"}
        )
        with running_worker(json_worker(bootstrap, tmp_path), props) as runtime:
            read_until(bootstrap, topic, lambda k, v: k == {"id": 1})
            db.execute("INSERT INTO events VALUES (2), (3)")
            read_until(bootstrap, topic, lambda k, v: k == {"id": 3})
            server.stop()  # the server goes away ...
            try:
                wait_until(
                    lambda: "retrying with backoff" in (task_state(runtime.worker, props["name"])[1] or ""),
                    30,
                    "the task's status to say it is retrying",
                )
                state, note = task_state(runtime.worker, props["name"])
                assert state is State.RUNNING and f"{server.host}:{server.port}" in (note or "")
            finally:
                server.start()  # ... and comes back within errors.retry.timeout
            db.execute("INSERT INTO events VALUES (4), (5)")
            read_until(bootstrap, topic, lambda k, v: k == {"id": 5})
            wait_until(
                lambda: task_state(runtime.worker, props["name"]) == (State.RUNNING, None),
                30,
                "the retry note to leave the task's status",
            )
            assert sorted(_ids(bootstrap, topic)) == [0, 1, 2, 3, 4, 5]  # nothing lost, nothing twice

            server.stop()  # gone for longer than errors.retry.timeout this time
            trace = _failed_trace(runtime, props["name"], timeout=60)
        assert f"{server.host}:{server.port}" in trace
        assert "unreachable for longer than errors.retry.timeout=20000 ms" in trace
        server.start()  # for the database's removal


# -- a captured table dropped while streamed ---------------------------------------------------------
def test_a_dropped_table_is_a_schema_change_other_tables_flow_and_a_recreated_one_gets_its_new_schema(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    db.execute(
        "CREATE TABLE doomed (id INT PRIMARY KEY, name VARCHAR(10))",
        "CREATE TABLE kept (id INT PRIMARY KEY)",
        "INSERT INTO doomed VALUES (1, 'a')",
        "INSERT INTO kept VALUES (1)",
    )
    bootstrap = broker.bootstrap_servers
    doomed, kept = f"{db.name}.{db.name}.doomed", f"{db.name}.{db.name}.kept"
    props = db.props(bootstrap, **ONE_PARTITION)
    with running_worker(json_worker(bootstrap, tmp_path), props) as runtime:
        read_until(bootstrap, kept, lambda k, v: k == {"id": 1})
        db.execute(
            "INSERT INTO doomed VALUES (2, 'b')",
            "DROP TABLE doomed",
            "INSERT INTO kept VALUES (2)",
            "CREATE TABLE doomed (id INT PRIMARY KEY, score INT NOT NULL, note TEXT)",
            "INSERT INTO doomed VALUES (3, 30, 'new')",
            "INSERT INTO kept VALUES (3)",
        )
        read_until(bootstrap, kept, lambda k, v: k == {"id": 3})
        messages = read_until(bootstrap, doomed, lambda k, v: k == {"id": 3})
        changes = read_until(bootstrap, db.name, lambda k, v: v["payload"]["ddl"].startswith("CREATE TABLE doomed"))
        assert task_state(runtime.worker, props["name"]) == (State.RUNNING, None)
    assert [(p["op"], p["after"]) for p in payloads(messages)] == [
        ("r", {"id": 1, "name": "a"}),
        ("c", {"id": 2, "name": "b"}),
        ("c", {"id": 3, "score": 30, "note": "new"}),  # the re-created table's schema
    ]
    recreated_schema = messages[-1][1]["schema"]["fields"][1]["fields"]
    assert [f["field"] for f in recreated_schema] == ["id", "score", "note"]
    [drop] = [v["payload"] for _, v in changes if v["payload"]["ddl"].startswith("DROP TABLE")]
    assert drop["tableChanges"] == [{"type": "DROP", "id": f'"{db.name}"."doomed"', "table": None}]
    create = changes[-1][1]["payload"]["tableChanges"]
    assert [(c["type"], [col["name"] for col in c["table"]["columns"]]) for c in create] == [
        ("CREATE", ["id", "score", "note"])
    ]
    assert [p["after"]["id"] for p in payloads(read_all(bootstrap, kept))] == [1, 2, 3]


# -- a purged binlog position ---------------------------------------------------------------------
@pytest.mark.long(seconds=20)
def test_a_purged_binlog_position_fails_naming_when_needed_which_takes_a_new_snapshot(
    broker: Broker, db: MySqlDatabase, mariadb: MariaDb, tmp_path: Path
) -> None:
    db.execute("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(10))", "INSERT INTO items VALUES (1, 'a')")
    bootstrap, topic = broker.bootstrap_servers, f"{db.name}.{db.name}.items"
    props = db.props(bootstrap, **ONE_PARTITION)
    config = json_worker(bootstrap, tmp_path)
    with running_worker(config, props):
        read_until(bootstrap, topic, lambda k, v: k == {"id": 1})
        db.execute("INSERT INTO items VALUES (2, 'b')")
        read_until(bootstrap, topic, lambda k, v: k == {"id": 2})
    db.execute("INSERT INTO items VALUES (3, 'c')")  # while stopped: in the binlog about to be purged
    purge_binlogs(mariadb)
    with running_worker(config, props) as runtime:
        trace = _failed_trace(runtime, props["name"])
    assert "is no longer on the server" in trace and "Set snapshot.mode=when_needed" in trace
    assert sorted(p["after"]["id"] for p in payloads(read_all(bootstrap, topic))) == [1, 2]  # nothing sent

    when_needed = {**props, "snapshot.mode": "when_needed"}
    with running_worker(config, when_needed) as runtime:
        read_until(bootstrap, topic, lambda k, v: k == {"id": 3})
        db.execute("INSERT INTO items VALUES (4, 'd')")
        read_until(bootstrap, topic, lambda k, v: k == {"id": 4})
        assert task_state(runtime.worker, props["name"]) == (State.RUNNING, None)
    events = [(p["op"], p["after"]["id"]) for p in payloads(read_all(bootstrap, topic))]
    # the first run's, then the new snapshot's (3 included) and what was streamed after it
    assert sorted(events) == [("c", 2), ("c", 4), ("r", 1), ("r", 1), ("r", 2), ("r", 3)]


# -- the worker SIGKILLed mid-stream --------------------------------------------------------------
def _properties(path: Path, props: dict[str, str]) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


@pytest.mark.long(seconds=40)
def test_a_sigkilled_worker_resumes_without_loss_and_without_a_second_snapshot(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    db.execute("CREATE TABLE ledger (id INT PRIMARY KEY, note VARCHAR(10))")
    db.execute("INSERT INTO ledger SELECT seq, 'snap' FROM seq_0_to_99")
    bootstrap, topic = broker.bootstrap_servers, f"{db.name}.{db.name}.ledger"
    offsets = tmp_path / "offsets.json"
    worker = _properties(
        tmp_path / "worker.properties",
        {
            "bootstrap.servers": bootstrap,
            "offset.storage.file.filename": str(offsets),
            "offset.flush.interval.ms": "200",
            "listeners": "",
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "false",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "topic.creation.enable": "true",
        },
    )
    props = db.props(bootstrap, **ONE_PARTITION)
    connector = _properties(tmp_path / "ledger.properties", props)

    def committed() -> dict[str, Any]:
        if not offsets.exists():
            return {}
        found = json.loads(offsets.read_text()).get(props["name"], {})
        return dict(found.get(partition_key({"server": db.name}), {}))

    log = tmp_path / "worker.log"
    rows = 3_000
    proc = start_worker(worker, connector, log)
    try:
        wait_until(lambda: committed().get("snapshot_completed") or proc.poll() is not None, 60, "the snapshot")
        for first in range(100, rows, 100):  # transactions of 100 rows, streamed while the worker runs
            db.execute(f"INSERT INTO ledger SELECT seq, 'x' FROM seq_{first}_to_{first + 99}")
            if first == 1500:
                wait_until(lambda: "event" in committed() or proc.poll() is not None, 60, "a streamed commit")
                break
        assert proc.poll() is None, log.read_text()[-3000:]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    for first in range(1600, rows, 100):  # while no worker runs
        db.execute(f"INSERT INTO ledger SELECT seq, 'x' FROM seq_{first}_to_{first + 99}")

    def all_sent() -> bool:
        offset = committed()
        return bool(offset) and not offset.get("snapshot") and _sent_ids(bootstrap, topic) >= set(range(rows))

    run_to_completion(worker, connector, log, all_sent, 90)
    events = payloads(read_all(bootstrap, topic))
    ops = Counter(p["op"] for p in events)
    assert ops["r"] == 100, "one snapshot only: the restart resumed streaming at its committed position"
    assert {p["after"]["id"] for p in events} == set(range(rows)), "no change lost"
    # at least once: changes sent after the last commit before the kill may come again, no other
    assert ops["c"] >= rows - 100


def _sent_ids(bootstrap: str, topic: str) -> set[int]:
    return {p["after"]["id"] for p in payloads(read_all(bootstrap, topic))}


def test_two_connectors_with_one_replica_id_fail_naming_database_server_id(
    broker: Broker, db: MySqlDatabase, mariadb: MariaDb, tmp_path: Path
) -> None:
    """The server refuses a binlog client whose replica id another client holds (MariaDB's 4052; MySQL drops
    the older one with 1236): retrying cannot help while the other stays, so the task fails naming the key,
    where it used to retry with backoff forever."""
    db.execute("CREATE TABLE items (id INT PRIMARY KEY)")
    bootstrap = broker.bootstrap_servers
    first = db.props(bootstrap, **ONE_PARTITION)
    second = {
        **first,
        "name": f"{first['name']}-twin",
        "topic.prefix": f"{db.name}_twin",
        "schema.history.internal.kafka.topic": f"{db.history}.twin",
    }
    with running_worker(json_worker(bootstrap, tmp_path), first, second) as runtime:
        read_until(bootstrap, db.history, lambda k, v: True)
        wait_until(
            lambda: any(task_state(runtime.worker, p["name"])[0] is State.FAILED for p in (first, second)),
            60,
            lambda: f"a task to fail ({[task_state(runtime.worker, p['name']) for p in (first, second)]})",
        )
        traces = [task_state(runtime.worker, p["name"])[1] or "" for p in (first, second)]
    [trace] = [t for t in traces if "same replica id" in t] or traces[:1]
    assert f"database.server.id={first['database.server.id']}" in trace, traces
    assert f"{mariadb.host}:{mariadb.port}" in trace


def test_validate_names_every_problem_at_once_the_server_s_the_keys_and_the_refused_ones(
    broker: Broker, db: MySqlDatabase, mariadb: MariaDb
) -> None:
    """A file with a bad key, a refused Debezium key, two keys that exclude each other, a server that logs
    MIXED and a user without the replication grants: one validation names all of them, each with the value
    the user set, so fixing them takes one round."""
    user = f"u{db.name[2:]}"
    mariadb.execute(
        f"CREATE USER '{user}'@'%' IDENTIFIED BY 'reader-secret'", f"GRANT SELECT, RELOAD ON *.* TO '{user}'@'%'"
    )
    mariadb.execute("SET GLOBAL binlog_format = 'MIXED'")
    try:
        props = db.props(
            broker.bootstrap_servers,
            **{
                "database.user": user,
                "database.password": "reader-secret",
                "decimal.handling.mode": "exact",
                "provide.transaction.metadata": "true",
                "table.include.list": f"{db.name}.a",
                "table.exclude.list": f"{db.name}.b",
            },
        )
        validation = validate_connector_config("MySqlConnector", props)
    finally:
        mariadb.execute("SET GLOBAL binlog_format = 'ROW'")
        mariadb.execute(f"DROP USER '{user}'@'%'")
    refused = {key.name: (key.value, key.errors) for key in validation.keys if key.errors}
    assert set(refused) == {
        "database.hostname",
        "database.user",
        "decimal.handling.mode",
        "provide.transaction.metadata",
        "table.exclude.list",
    }
    assert "binlog_format is MIXED" in refused["database.hostname"][1][0]
    assert "REPLICATION SLAVE and REPLICATION CLIENT" in refused["database.user"][1][0]
    assert refused["decimal.handling.mode"][0] == "exact"
    assert refused["provide.transaction.metadata"][0] == "true"  # the value set, not null
