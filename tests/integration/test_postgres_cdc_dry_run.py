"""The dry runs of a PostgreSQL CDC connector touch nothing of the database, and a start never streams past
a gap between its committed offset and its slot: against the real server and the test broker.

- `connectworker plan` of a connector that ran reads its committed offsets, leaves its slot where it is,
  and the next run streams the row inserted while the worker was stopped;
- `plan` of a connector that never ran creates no slot and no publication;
- the REST plan of a running connector leaves its stream running;
- a committed offset behind the slot's confirmed position fails the task naming both LSNs and the ways
  out, sends nothing; `slot.gap.acknowledged.lsn` with the slot's LSN streams on from the slot.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import javaproperties
import pytest

from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.cdc_helpers import CdcDatabase, cdc_database, read_all, read_ids
from tests.integration.harness import committed_offset, running_worker, task_state, wait_until
from tests.integration.test_cli_standalone import run_cli
from tests.integration.test_rest_harness import rest_worker
from tests.postgres import Postgres

JSON = {
    "key.converter": "org.apache.kafka.connect.json.JsonConverter",
    "key.converter.schemas.enable": "false",
    "value.converter": "org.apache.kafka.connect.json.JsonConverter",
}
RULES = {"topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1"}


@pytest.fixture
def db(postgres: Postgres) -> Iterator[CdcDatabase]:
    with cdc_database(postgres) as database:
        database.execute("CREATE TABLE orders (id bigint PRIMARY KEY, note text)")
        yield database


def insert(db: CdcDatabase, *ids: int) -> None:
    db.execute(*(f"INSERT INTO orders VALUES ({i}, 'order {i}')" for i in ids))


def worker_files(broker: Broker, tmp_path: Path, **extra: str) -> tuple[WorkerConfig, Path]:
    """The worker, as a config for an in-process run and as the file `connectworker plan --worker` reads."""
    props = {
        "bootstrap.servers": broker.bootstrap_servers,
        "offset.storage.file.filename": str(tmp_path / "connect.offsets"),
        "offset.flush.interval.ms": "200",
        "topic.creation.enable": "true",
        **JSON,
        **extra,
    }
    path = tmp_path / "worker.properties"
    path.write_text(javaproperties.dumps(props, timestamp=False))
    return WorkerConfig.from_properties(props), path


def connector_file(tmp_path: Path, props: dict[str, str]) -> Path:
    path = tmp_path / "connector.properties"
    path.write_text(javaproperties.dumps(props, timestamp=False))
    return path


def slots(db: CdcDatabase) -> list[tuple[Any, ...]]:
    return db.query(
        f"SELECT slot_name, confirmed_flush_lsn::text, restart_lsn::text FROM pg_replication_slots "
        f"WHERE database = '{db.name}'"
    )


def run_until_streamed(config: WorkerConfig, props: dict[str, str], db: CdcDatabase, topic: str) -> None:
    """Rows 1 to 3, read by the snapshot, then row 4, streamed: the connector runs until the slot confirmed
    the committed offset of that change."""
    insert(db, 1, 2, 3)
    partition = {"server": db.name}
    with running_worker(config, props) as runtime:
        read_ids(config.bootstrap_servers, topic, range(1, 4))
        insert(db, 4)
        read_ids(config.bootstrap_servers, topic, range(1, 5))

        def streamed_and_confirmed() -> bool:
            offset = committed_offset(runtime.worker, props["name"], partition) or {}
            return "lsn_proc" in offset and db.confirmed_flush_lsn() == int(offset["lsn"])

        wait_until(streamed_and_confirmed, 30, what="a streamed change's offset committed and confirmed to the slot")


def test_plan_of_a_connector_that_ran_leaves_its_slot_and_the_next_run_streams_what_came_meanwhile(
    broker: Broker, db: CdcDatabase, tmp_path: Path
) -> None:
    props = db.props(**RULES)
    topic = f"{db.name}.public.orders"
    config, worker_file = worker_files(broker, tmp_path)
    run_until_streamed(config, props, db, topic)
    before = slots(db)
    insert(db, 5)  # while the worker is stopped

    result = run_cli("plan", str(connector_file(tmp_path, props)), "--worker", str(worker_file), "--topic", topic)

    assert result.returncode == 0, result.stderr
    [(_, confirmed, _)] = before
    assert f"Dry run: a start of {db.name} would stream slot {db.slot} from {confirmed}" in result.stderr
    assert slots(db) == before  # neither dropped, re-created nor advanced
    assert "creating it anew" not in result.stderr
    with running_worker(config, props):
        assert read_ids(broker.bootstrap_servers, topic, range(1, 6)) == set(range(1, 6))


def test_plan_of_a_connector_that_never_ran_creates_no_slot_and_no_publication(
    broker: Broker, db: CdcDatabase, tmp_path: Path
) -> None:
    props = db.props(**{"compact.keyed.table.topics": "true", **RULES})
    _, worker_file = worker_files(broker, tmp_path)
    topic = f"{db.name}.public.orders"

    result = run_cli(
        "plan", str(connector_file(tmp_path, props)), "--worker", str(worker_file), "--topic", topic, "--json"
    )

    assert result.returncode == 0, result.stderr
    assert slots(db) == []
    assert db.query("SELECT pubname FROM pg_publication") == []
    assert "publication dbz_publication does not exist; a start would create it" in result.stderr
    assert f"would create slot {db.slot} and snapshot the captured tables" in result.stderr
    [entry] = json.loads(result.stdout)
    # the dry-started task read the catalog: orders has a primary key, so compact.keyed.table.topics compacts it
    assert entry["create"] is True and entry["configs"] == {"cleanup.policy": "compact"}


def test_the_rest_plan_of_a_running_connector_leaves_its_stream_running(
    broker: Broker, db: CdcDatabase, tmp_path: Path
) -> None:
    insert(db, 1)
    props = db.props(**RULES, **JSON)
    topic = f"{db.name}.public.orders"
    config, _ = worker_files(broker, tmp_path, listeners="http://127.0.0.1:0")
    with rest_worker(config, props) as api:
        read_ids(broker.bootstrap_servers, topic, range(1, 2))
        [slot] = slots(db)

        planned = api.client.get(f"/connectors/{props['name']}/topics/plan", params={"topic": topic})

        assert planned.status_code == 200, planned.text
        assert slots(db)[0][0] == slot[0]  # the one slot, still the running task's
        insert(db, 2)
        assert read_ids(broker.bootstrap_servers, topic, range(1, 3)) == {1, 2}
        assert api.client.get(f"/connectors/{props['name']}/status").json()["tasks"][0]["state"] == "RUNNING"


def test_a_committed_offset_behind_the_slot_fails_the_task_naming_both_lsns_until_acknowledged(
    broker: Broker, db: CdcDatabase, tmp_path: Path
) -> None:
    props = db.props(**RULES)
    topic = f"{db.name}.public.orders"
    config, worker_file = worker_files(broker, tmp_path)
    run_until_streamed(config, props, db, topic)
    [(_, committed, _)] = slots(db)
    insert(db, 5)  # lost: another client moves the slot past it
    db.query(f"SELECT pg_replication_slot_advance('{db.slot}', pg_current_wal_lsn())")
    [(_, advanced, _)] = slots(db)
    insert(db, 6)

    plan = run_cli("plan", str(connector_file(tmp_path, props)), "--worker", str(worker_file), "--topic", topic)
    assert plan.returncode == 0, plan.stderr
    assert f"Dry run: a start of {db.name} would fail" in plan.stderr

    with running_worker(config, props) as runtime:
        worker = runtime.worker
        assert worker is not None
        wait_until(
            lambda: task_state(worker, props["name"])[0] is State.FAILED,
            30,
            lambda: f"the task FAILED ({task_state(worker, props['name'])})",
        )
        trace = task_state(worker, props["name"])[1] or ""
    assert f"resumes the stream at LSN {committed}" in trace
    assert f"replication slot {db.slot} has confirmed LSN {advanced}" in trace
    assert "snapshot.mode=always" in trace and f"slot.gap.acknowledged.lsn={advanced}" in trace
    assert slots(db)[0][1] == advanced  # the failed start confirmed nothing
    rows = read_all(broker.bootstrap_servers, topic)
    assert sorted({key["id"] for key, value in rows if value is not None}) == [1, 2, 3, 4]  # nothing past the gap

    acknowledged = {**props, "slot.gap.acknowledged.lsn": advanced}
    with running_worker(config, acknowledged):
        assert 6 in read_ids(broker.bootstrap_servers, topic, range(6, 7))
    rows = read_all(broker.bootstrap_servers, topic)
    assert 5 not in {key["id"] for key, value in rows if value is not None}  # the acknowledged loss
