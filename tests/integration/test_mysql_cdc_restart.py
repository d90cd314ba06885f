"""The MySQL / MariaDB CDC connector restarted through the worker: it resumes at its committed binlog
position without a second snapshot and without losing or repeating a change, and knows each table's
schema at that position from the schema history (an ALTER seen before the restart, and one made while
it was stopped)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.broker import Broker
from tests.integration.cdc_helpers import read_all, read_until
from tests.integration.harness import running_worker
from tests.integration.mysql_cdc_helpers import MySqlDatabase, json_worker, mysql_database, payloads
from tests.mariadb import MariaDb


@pytest.fixture
def db(mariadb: MariaDb) -> Iterator[MySqlDatabase]:
    with mysql_database(mariadb) as database:
        yield database


@pytest.mark.long(seconds=15)
def test_a_restart_resumes_without_loss_or_snapshot_and_recovers_schemas_from_the_history(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    db.execute(
        "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20))", "INSERT INTO items VALUES (1, 'a'), (2, 'b')"
    )
    bootstrap, topic = broker.bootstrap_servers, f"{db.name}.{db.name}.items"
    props = db.props(bootstrap)
    config = json_worker(bootstrap, tmp_path)

    def created(item: int) -> bool:
        return any(p["op"] == "c" and p["after"]["id"] == item for p in payloads(read_all(bootstrap, topic)))

    with running_worker(config, props):
        read_until(bootstrap, topic, lambda k, v: k == {"id": 2})
        db.execute(
            "INSERT INTO items VALUES (3, 'c')",
            "ALTER TABLE items ADD COLUMN price INT",
            "INSERT INTO items VALUES (4, 'd', 40)",
        )
        read_until(bootstrap, topic, lambda k, v: k == {"id": 4})
    db.execute(  # while the connector is stopped
        "INSERT INTO items VALUES (5, 'e', 50)",
        "UPDATE items SET price = 41 WHERE id = 4",
        "ALTER TABLE items ADD COLUMN note VARCHAR(10)",
        "INSERT INTO items VALUES (6, 'f', 60, 'new')",
    )
    with running_worker(config, props):
        read_until(bootstrap, topic, lambda k, v: k == {"id": 6})
        assert created(6)
    events = payloads(read_all(bootstrap, topic))
    assert Counter(p["op"] for p in events) == {"r": 2, "c": 4, "u": 1}  # one snapshot, each change once
    after = {p["after"]["id"]: p["after"] for p in events if p["op"] in "cu"}
    assert after[3] == {"id": 3, "name": "c"}  # before the ALTER: the schema then
    assert after[4] == {"id": 4, "name": "d", "price": 41}
    assert after[5] == {"id": 5, "name": "e", "price": 50}  # recovered from the history: no `note` yet
    assert after[6] == {"id": 6, "name": "f", "price": 60, "note": "new"}
    schema_changes = [v["payload"]["ddl"] for _, v in read_all(bootstrap, db.name)]
    assert [ddl for ddl in schema_changes if ddl.startswith("ALTER")] == [
        "ALTER TABLE items ADD COLUMN price INT",
        "ALTER TABLE items ADD COLUMN note VARCHAR(10)",
    ]
