"""The snapshot's schema change events (include.schema.changes, on by default), as Debezium's MySQL connector
sends them: one `CREATE TABLE` per captured table on `<topic.prefix>`, marked `snapshot: true`; and, when no
row follows them (every table empty, or snapshot.mode=no_data), the last of them commits the snapshot's
completion, so a restarted worker streams on instead of taking the snapshot again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.broker import Broker
from tests.integration.cdc_helpers import read_all, read_until
from tests.integration.harness import committed_offset, running_worker, wait_until
from tests.integration.mysql_cdc_helpers import MySqlDatabase, json_worker, mysql_database, payloads
from tests.mariadb import MariaDb

ONE_PARTITION = {"topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "1"}


@pytest.fixture
def db(mariadb: MariaDb) -> Iterator[MySqlDatabase]:
    with mysql_database(mariadb) as database:
        yield database


def test_the_snapshot_sends_a_create_table_schema_change_event_per_captured_table(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    db.execute(
        "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20))",
        "CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT)",
        "INSERT INTO items VALUES (1, 'a')",
    )
    bootstrap = broker.bootstrap_servers
    props = db.props(bootstrap, **ONE_PARTITION)
    with running_worker(json_worker(bootstrap, tmp_path), props):
        rows = read_until(bootstrap, f"{db.name}.{db.name}.items", lambda k, v: k == {"id": 1})
        seen: list[object] = []
        changes = read_until(bootstrap, db.name, lambda k, v: len(seen.append(v) or seen) == 2)
    assert [payload["op"] for payload in payloads(rows)] == ["r"]
    assert [key for key, _ in changes] == [{"databaseName": db.name}] * 2
    events = payloads(changes)
    assert sorted(_tables(changes)) == [f'"{db.name}"."items"', f'"{db.name}"."notes"']
    for event in events:
        assert event["ddl"].startswith(f"CREATE TABLE `{event['source']['table']}`")
        assert event["databaseName"] == db.name
        assert event["source"]["snapshot"] == "true" and event["source"]["db"] == db.name
        [change] = event["tableChanges"]
        assert change["type"] == "CREATE" and change["table"]["primaryKeyColumnNames"] == ["id"]
    notes = next(e for e in events if e["source"]["table"] == "notes")
    columns = notes["tableChanges"][0]["table"]["columns"]
    assert [(c["name"], c["typeName"], c["optional"]) for c in columns] == [
        ("id", "BIGINT", False),
        ("body", "TEXT", True),
    ]


@pytest.mark.parametrize("mode", ["initial", "no_data"])
def test_a_snapshot_without_rows_is_committed_and_not_taken_again_after_a_restart(
    broker: Broker, db: MySqlDatabase, tmp_path: Path, mode: str
) -> None:
    db.execute("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20))")  # empty
    bootstrap = broker.bootstrap_servers
    props = db.props(bootstrap, **ONE_PARTITION, **{"snapshot.mode": mode})
    config = json_worker(bootstrap, tmp_path)
    partition = {"server": db.name}
    with running_worker(config, props) as runtime:
        read_until(bootstrap, db.name, lambda k, v: True)
        wait_until(
            lambda: (committed_offset(runtime.worker, props["name"], partition) or {}).get("snapshot_completed"),
            what="the snapshot's completion committed",
        )
    db.execute("INSERT INTO items VALUES (1, 'a')")
    with running_worker(config, props):  # resumes at the snapshot's position: the insert is streamed
        messages = read_until(bootstrap, f"{db.name}.{db.name}.items", lambda k, v: k == {"id": 1})
    assert [(p["op"], p["after"]) for p in payloads(messages)] == [("c", {"id": 1, "name": "a"})]
    assert len(_tables(read_all(bootstrap, db.name))) == 1  # one snapshot's CREATE, not two
    history = [value["ddl"] for _, value in read_all(bootstrap, db.history)]
    assert [ddl.split(" ", 2)[:2] for ddl in history] == [
        ["SET", "character_set_server=latin1,"],
        ["CREATE", "DATABASE"],
        ["CREATE", "TABLE"],
    ], history  # one snapshot's, not two


def test_include_schema_changes_false_sends_none(broker: Broker, db: MySqlDatabase, tmp_path: Path) -> None:
    db.execute("CREATE TABLE items (id INT PRIMARY KEY)", "INSERT INTO items VALUES (1)")
    bootstrap = broker.bootstrap_servers
    props = db.props(bootstrap, **ONE_PARTITION, **{"include.schema.changes": "false"})
    with running_worker(json_worker(bootstrap, tmp_path), props):
        read_until(bootstrap, f"{db.name}.{db.name}.items", lambda k, v: k == {"id": 1})
        db.execute("ALTER TABLE items ADD COLUMN note VARCHAR(5)", "INSERT INTO items VALUES (2, 'x')")
        read_until(bootstrap, f"{db.name}.{db.name}.items", lambda k, v: k == {"id": 2})
    assert read_all(bootstrap, db.name) == []


def _tables(messages: list[tuple[object, dict[str, dict[str, list[dict[str, str]]]]]]) -> list[str]:
    """The table ids of the schema change events' tableChanges."""
    return [change["id"] for _, value in messages for change in value["payload"]["tableChanges"]]
