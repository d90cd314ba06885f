"""Incremental snapshots on MariaDB (debezium/incremental_snapshot.py): a table re-read in chunks on an
`execute-snapshot` signal while its changes keep streaming, as Debezium's AbstractIncrementalSnapshotTest and
BinlogIncrementalSnapshotIT try it (rows `pk = 1..N`, `aa = pk - 1`, `snapshot.mode=no_data`). The cases
both connectors share are in incremental_scenarios.py and incremental_worker_scenarios.py."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from connectworker.connectors.mysql_cdc.connector import MySqlCdcConnector
from connectworker.connectors.mysql_cdc.task import MySqlCdcTask
from connectworker.runtime.status import State
from connectworker.testing import TaskHarness, connector_task_props
from tests.broker import Broker
from tests.integration import incremental_worker_scenarios as worker_scenario
from tests.integration.cdc_helpers import read_all, read_until
from tests.integration.harness import running_worker, task_state, wait_until, worker_config
from tests.integration.incremental_helpers import ROWS, SIGNAL_TABLE, WORKER, SnapshotDb
from tests.integration.incremental_scenarios import IncrementalSnapshotCases
from tests.integration.incremental_worker_scenarios import IncrementalSnapshotWorkerCases
from tests.integration.mysql_cdc_helpers import MySqlDatabase, mysql_database
from tests.mariadb import MariaDb


@pytest.fixture
def mysql(mariadb: MariaDb) -> Iterator[MySqlDatabase]:
    with mysql_database(mariadb) as database:
        yield database


@pytest.fixture
def db(broker: Broker, mariadb: MariaDb, mysql: MySqlDatabase) -> SnapshotDb:
    """The database, its signal table writable by the connector's user (INSERT, and DELETE for
    insert_delete), as Debezium's MySQL connector needs it."""
    bootstrap = broker.bootstrap_servers

    def connect() -> Any:
        connection = mariadb.connect(mysql.name)
        connection.autocommit(False)
        return connection

    def task(**props: str) -> TaskHarness:
        return TaskHarness(MySqlCdcTask, connector_task_props(MySqlCdcConnector, mysql.props(bootstrap, **props))[0])

    def streaming(bootstrap: str) -> None:
        """The worker's task has read the schemas (the history's first records): it streams from there."""
        read_until(bootstrap, mysql.history, lambda k, v: True)

    database = SnapshotDb(
        namespace=mysql.name,
        prefix=mysql.name,
        connect=connect,
        task=task,
        connector=lambda bootstrap, **props: mysql.props(bootstrap, **props),
        streaming=streaming,
    )
    database.setup()
    mariadb.execute(f"GRANT INSERT, DELETE ON {mysql.name}.{SIGNAL_TABLE} TO '{mariadb.user}'@'%'")
    return database


def test_a_signal_snapshots_the_table_in_chunks_while_changes_stream(
    broker: Broker, db: SnapshotDb, tmp_path: Path
) -> None:
    bootstrap, topic = broker.bootstrap_servers, db.topic("a")
    with running_worker(worker_config(bootstrap, tmp_path, **WORKER), db.worker_props(bootstrap)):
        db.streaming(bootstrap)
        db.snapshot(db.qualified("a"))
        db.run(
            "UPDATE a SET aa = 1000 WHERE pk = 7",
            "DELETE FROM a WHERE pk = 50",
            f"INSERT INTO a VALUES ({ROWS + 1}, 0)",
        )
        wait_until(lambda: "COMPLETED" in worker_scenario.topic_notes(bootstrap, db), 90, "the snapshot's end")
    messages = read_all(bootstrap, topic)
    read = [v for k, v in messages if v is not None and v["op"] == "r"]
    assert {r["source"]["snapshot"] for r in read} == {"incremental"}
    assert all(r["source"]["query"] is None for r in read)
    read_pks = [r["after"]["pk"] for r in read]
    # each row once; the deleted one too if its chunk was read before the delete (the delete follows it)
    assert len(read_pks) == len(set(read_pks)) and set(range(1, ROWS + 1)) - {50} <= set(read_pks) <= set(
        range(1, ROWS + 1)
    )
    final = {k["pk"]: None if v is None or v["op"] == "d" else v["after"]["aa"] for k, v in messages}
    assert final == {n: n - 1 for n in range(1, ROWS + 1)} | {7: 1000, 50: None, ROWS + 1: 0}


def test_a_user_who_may_not_write_the_signal_table_fails_the_task_naming_it_and_the_grant(
    broker: Broker, db: SnapshotDb, mariadb: MariaDb, mysql: MySqlDatabase, tmp_path: Path
) -> None:
    """Without INSERT on the signal table no watermark can be written: the task goes FAILED saying which
    table and which privilege, rather than a snapshot that never moves."""
    mariadb.execute(f"REVOKE INSERT, DELETE ON {mysql.name}.{SIGNAL_TABLE} FROM '{mariadb.user}'@'%'")
    bootstrap = broker.bootstrap_servers
    connector = db.worker_props(bootstrap)
    with running_worker(worker_config(bootstrap, tmp_path, **WORKER), connector) as runtime:
        worker = runtime.worker
        assert worker is not None
        db.streaming(bootstrap)
        db.snapshot(db.qualified("a"))
        wait_until(lambda: task_state(worker, connector["name"])[0] is State.FAILED, 60, "the task FAILED")
        _, trace = task_state(worker, connector["name"])
    assert trace is not None
    assert db.qualified(SIGNAL_TABLE) in trace and "signal.data.collection" in trace
    assert "needs INSERT" in trace and "INSERT command denied" in trace


class TestIncrementalSnapshot(IncrementalSnapshotCases):
    """Debezium's cases both connectors pass (incremental_scenarios.py), on this database."""


class TestIncrementalSnapshotThroughAWorker(IncrementalSnapshotWorkerCases):
    """The shared cases that run a whole worker (incremental_worker_scenarios.py), on this database."""
