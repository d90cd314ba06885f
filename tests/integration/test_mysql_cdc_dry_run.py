"""`connectworker plan` of a MySQL / MariaDB CDC connector touches nothing: no snapshot lock on the server
(MariaDB counts every FLUSH TABLES WITH READ LOCK in `Com_flush`), no schema history topic created or
written; it says what a start would do from the committed offset the real run would read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import javaproperties
import pytest
from confluent_kafka.admin import AdminClient

from connectworker.config.worker_config import WorkerConfig
from tests.broker import Broker
from tests.integration.cdc_helpers import read_all, read_until
from tests.integration.harness import running_worker
from tests.integration.mysql_cdc_helpers import MySqlDatabase, mysql_database
from tests.integration.test_cli_standalone import run_cli
from tests.kafka_helpers import existing_topics
from tests.mariadb import MariaDb

RULES = {"topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1"}


@pytest.fixture
def db(mariadb: MariaDb) -> Iterator[MySqlDatabase]:
    with mysql_database(mariadb) as database:
        database.execute(
            "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20))", "INSERT INTO items VALUES (1, 'a')"
        )
        yield database


def flushes(server: MariaDb) -> int:
    [(_, count)] = server.query("SHOW GLOBAL STATUS LIKE 'Com_flush'")
    return int(count)


def plan(tmp_path: Path, props: dict[str, str], worker_props: dict[str, str], topic: str) -> str:
    connector, worker = tmp_path / "connector.properties", tmp_path / "worker.properties"
    connector.write_text(javaproperties.dumps(props, timestamp=False))
    worker.write_text(javaproperties.dumps(worker_props, timestamp=False))
    result = run_cli("plan", str(connector), "--worker", str(worker), "--topic", topic)
    assert result.returncode == 0, result.stderr
    return result.stderr


def test_plan_of_a_connector_that_never_ran_locks_nothing_and_writes_no_history(
    broker: Broker, admin: AdminClient, db: MySqlDatabase, tmp_path: Path
) -> None:
    props = {**db.props(broker.bootstrap_servers), **RULES}
    worker = {
        "bootstrap.servers": broker.bootstrap_servers,
        "offset.storage.file.filename": str(tmp_path / "connect.offsets"),
    }
    before = flushes(db.server)

    log = plan(tmp_path, props, worker, f"{db.name}.{db.name}.items")

    assert flushes(db.server) == before
    assert db.history not in existing_topics(admin)
    assert f"Dry run: a start of {db.name} would take a snapshot" in log


def test_plan_of_a_connector_that_ran_reads_its_committed_offset_and_leaves_its_history_alone(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    props = {**db.props(broker.bootstrap_servers), **RULES}
    topic = f"{db.name}.{db.name}.items"
    worker = {
        "bootstrap.servers": broker.bootstrap_servers,
        "offset.storage.file.filename": str(tmp_path / "connect.offsets"),
        "offset.flush.interval.ms": "200",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "key.converter.schemas.enable": "false",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "topic.creation.enable": "true",
    }
    with running_worker(WorkerConfig.from_properties(worker), props):
        read_until(broker.bootstrap_servers, topic, lambda key, value: value is not None)
        db.execute("INSERT INTO items VALUES (2, 'b')")
        read_until(broker.bootstrap_servers, topic, lambda key, value: key == {"id": 2})
    history = read_all(broker.bootstrap_servers, db.history)
    before = flushes(db.server)

    log = plan(tmp_path, props, worker, topic)

    assert "Dry run: a start of " + db.name + " would resume the binlog at " in log
    assert flushes(db.server) == before
    assert read_all(broker.bootstrap_servers, db.history) == history
