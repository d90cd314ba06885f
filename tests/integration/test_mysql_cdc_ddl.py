"""The schema at every binlog position from the DDL itself, as Debezium's MySQL connector keeps it, on a real
MariaDB at its default binlog_row_metadata=NO_LOG: each DDL form (ADD / MODIFY / CHANGE / RENAME / DROP
COLUMN, keys, RENAME TABLE, ALTER TABLE RENAME, CREATE TABLE LIKE, TRUNCATE, DROP and CREATE again,
CONVERT TO CHARACTER SET, ALTER DATABASE, CREATE UNIQUE INDEX, BOOLEAN) with inserts between, made while
the connector runs and while it is stopped, every change decoded with the columns of its own position;
the history topic read back as Debezium's records; an unparseable statement failing the task or skipped;
a lost history failing the restart until snapshot.mode=recovery rebuilds it; full row metadata as a
cross-check; and source.connector following the connector class."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient

from connectworker.connectors.mysql_cdc.history import HistoryRecord
from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.cdc_helpers import read_all, read_until
from tests.integration.harness import running_worker, task_state, wait_until
from tests.integration.mysql_cdc_helpers import MySqlDatabase, json_worker, mysql_database, payloads
from tests.mariadb import MariaDb

ONE_PARTITION = {"topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "1"}

DDL_AND_CHANGES = (
    "ALTER TABLE items ADD COLUMN qty INT UNSIGNED NOT NULL DEFAULT 0 AFTER id",
    "INSERT INTO items VALUES (2, 7, 'b')",
    "ALTER TABLE items MODIFY qty BIGINT UNSIGNED NOT NULL",
    "INSERT INTO items VALUES (3, 18446744073709551615, 'c')",
    "ALTER TABLE items CHANGE name title VARCHAR(20) CHARACTER SET latin1",
    "INSERT INTO items VALUES (4, 1, 'é')",
    "ALTER TABLE items RENAME COLUMN title TO label",
    "INSERT INTO items VALUES (5, 1, 'e')",
    "ALTER TABLE items ADD COLUMN price DECIMAL(7,2) FIRST, ADD tone ENUM('dark','light') DEFAULT 'light', "
    "ADD tags SET('x','y')",
    "INSERT INTO items (price, id, qty, label, tags) VALUES (12.5, 6, 1, 'f', 'x,y')",
    "ALTER TABLE items DROP COLUMN price",
    "INSERT INTO items (id, qty, label) VALUES (7, 1, 'g')",
    "ALTER TABLE items DROP PRIMARY KEY, ADD PRIMARY KEY (id, qty)",
    "INSERT INTO items (id, qty, label) VALUES (8, 2, 'h')",
    "RENAME TABLE items TO goods",
    "INSERT INTO goods (id, qty, label) VALUES (9, 1, 'i')",
    "ALTER TABLE goods RENAME TO wares",
    "INSERT INTO wares (id, qty, label) VALUES (10, 1, 'j')",
    "CREATE TABLE wares_copy LIKE wares",
    "INSERT INTO wares_copy (id, qty, label) VALUES (11, 1, 'k')",
    "TRUNCATE TABLE wares_copy",
    "INSERT INTO wares_copy (id, qty, label) VALUES (12, 1, 'l')",
    "CREATE TABLE flags (id INT PRIMARY KEY, ok BOOLEAN, n TINYINT(1))",
    "INSERT INTO flags VALUES (1, TRUE, 1)",
    "ALTER TABLE wares CONVERT TO CHARACTER SET utf8mb4",
    "INSERT INTO wares (id, qty, label) VALUES (13, 1, '😀')",
    "DROP TABLE wares_copy",
    "CREATE TABLE wares_copy (id INT PRIMARY KEY, other TEXT)",
    "INSERT INTO wares_copy VALUES (14, 'o')",
    "ALTER DATABASE CHARACTER SET latin1",
    "CREATE TABLE latin (id INT PRIMARY KEY, v VARCHAR(5))",
    "INSERT INTO latin VALUES (1, 'ü')",
    "CREATE TABLE nokey (a INT NOT NULL, b INT)",
    "INSERT INTO nokey VALUES (1, 1)",
    "CREATE UNIQUE INDEX ua ON nokey (a)",
    "INSERT INTO nokey VALUES (2, 2)",
)
EXPECTED = {  # each table's changes: (op, key, after)
    "items": [
        ("r", {"id": 1}, {"id": 1, "name": "a"}),
        ("c", {"id": 2}, {"id": 2, "qty": 7, "name": "b"}),
        ("c", {"id": 3}, {"id": 3, "qty": -1, "name": "c"}),  # BIGINT UNSIGNED: a long, as Debezium's `long` mode
        ("c", {"id": 4}, {"id": 4, "qty": 1, "title": "é"}),
        ("c", {"id": 5}, {"id": 5, "qty": 1, "label": "e"}),
        ("c", {"id": 6}, {"price": "12.50", "id": 6, "qty": 1, "label": "f", "tone": "light", "tags": "x,y"}),
        ("c", {"id": 7}, {"id": 7, "qty": 1, "label": "g", "tone": "light", "tags": None}),
        ("c", {"id": 8, "qty": 2}, {"id": 8, "qty": 2, "label": "h", "tone": "light", "tags": None}),
    ],
    "goods": [("c", {"id": 9, "qty": 1}, {"id": 9, "qty": 1, "label": "i", "tone": "light", "tags": None})],
    "wares": [
        ("c", {"id": 10, "qty": 1}, {"id": 10, "qty": 1, "label": "j", "tone": "light", "tags": None}),
        ("c", {"id": 13, "qty": 1}, {"id": 13, "qty": 1, "label": "😀", "tone": "light", "tags": None}),
    ],
    "wares_copy": [
        ("c", {"id": 11, "qty": 1}, {"id": 11, "qty": 1, "label": "k", "tone": "light", "tags": None}),
        ("t", None, None),
        ("c", {"id": 12, "qty": 1}, {"id": 12, "qty": 1, "label": "l", "tone": "light", "tags": None}),
        ("c", {"id": 14}, {"id": 14, "other": "o"}),
    ],
    "flags": [("c", {"id": 1}, {"id": 1, "ok": True, "n": 1})],  # BOOLEAN: a Connect boolean; TINYINT(1) a number
    "latin": [("c", {"id": 1}, {"id": 1, "v": "ü"})],
    "nokey": [("c", None, {"a": 1, "b": 1}), ("c", {"a": 2}, {"a": 2, "b": 2})],  # keyed by its unique key
}


@pytest.fixture
def db(mariadb: MariaDb) -> Iterator[MySqlDatabase]:
    with mysql_database(mariadb) as database:
        yield database


def _snapshot(broker: Broker, db: MySqlDatabase, **overrides: str) -> dict[str, str]:
    """items (id 1) created and the connector's props; its snapshot is taken by the caller's worker."""
    db.execute("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(10))", "INSERT INTO items VALUES (1, 'a')")
    return db.props(broker.bootstrap_servers, **ONE_PARTITION, **overrides)


def _changes(bootstrap: str, topic: str) -> list[tuple[Any, ...]]:
    return [(p["op"], key, p["after"]) for key, p in ((k, v["payload"]) for k, v in read_all(bootstrap, topic) if v)]


@pytest.mark.parametrize("while_", ["running", "stopped"])
def test_each_ddl_form_with_changes_between_decodes_every_change_with_its_own_columns(
    broker: Broker, db: MySqlDatabase, tmp_path: Path, while_: str
) -> None:
    bootstrap = broker.bootstrap_servers
    props = _snapshot(broker, db, **{"decimal.handling.mode": "string", "skipped.operations": "none"})
    config = json_worker(bootstrap, tmp_path)
    topic = f"{db.name}.{db.name}"
    with running_worker(config, props):
        read_until(bootstrap, f"{topic}.items", lambda k, v: k == {"id": 1})
        if while_ == "running":
            db.execute(*DDL_AND_CHANGES)
            read_until(bootstrap, f"{topic}.nokey", lambda k, v: k == {"a": 2})
    if while_ == "stopped":
        db.execute(*DDL_AND_CHANGES)
        with running_worker(config, props):
            read_until(bootstrap, f"{topic}.nokey", lambda k, v: k == {"a": 2})
    assert {table: _changes(bootstrap, f"{topic}.{table}") for table in EXPECTED} == EXPECTED
    [(_, flag)] = [(k, v) for k, v in read_all(bootstrap, f"{topic}.flags")]
    after = next(f for f in flag["schema"]["fields"] if f["field"] == "after")
    assert [(f["field"], f["type"]) for f in after["fields"]] == [("id", "int32"), ("ok", "boolean"), ("n", "int16")]

    history = [HistoryRecord.from_json(value) for _, value in read_all(bootstrap, db.history)]
    assert [r.ddl.split(" ", 2)[:2] for r in history[:3]] == [
        ["SET", "character_set_server=latin1,"],
        ["CREATE", "DATABASE"],
        ["CREATE", "TABLE"],
    ]
    as_logged = {"DROP TABLE wares_copy": "DROP TABLE `wares_copy` /* generated by server */"}  # MariaDB's
    ddl = [as_logged.get(s, s) for s in DDL_AND_CHANGES if not s.startswith(("INSERT", "TRUNCATE"))]
    assert [r.ddl for r in history[3:]] == ddl  # every DDL of the captured database, in binlog order
    renamed = next(r for r in history if r.ddl == "RENAME TABLE items TO goods")
    [change] = renamed.changes
    assert (change.kind, change.id, change.previous) == ("ALTER", (db.name, "goods"), (db.name, "items"))
    events = [v["payload"] for _, v in read_all(bootstrap, db.name)]
    assert [e["ddl"] for e in events if e["source"]["snapshot"] != "true"] == [
        s
        for s in ddl
        if not s.startswith("ALTER DATABASE")  # changes no captured table: no event
    ]


def test_an_unparseable_statement_fails_the_task_naming_it_and_its_position(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    bootstrap = broker.bootstrap_servers
    props = _snapshot(broker, db)
    with running_worker(json_worker(bootstrap, tmp_path), props) as runtime:
        assert runtime.worker is not None
        read_until(bootstrap, f"{db.name}.{db.name}.items", lambda k, v: k == {"id": 1})
        db.execute("CREATE TABLE audit (id INT) WITH SYSTEM VERSIONING", "INSERT INTO items VALUES (2, 'b')")
        wait_until(lambda: task_state(runtime.worker, props["name"])[0] is State.FAILED, what="the task to fail")
        message = task_state(runtime.worker, props["name"])[1] or ""
    assert (
        "Cannot parse the DDL statement 'CREATE TABLE audit (id INT) WITH SYSTEM VERSIONING' at binlog position binlog."
        in message
    ), message
    assert "schema.history.internal.skip.unparseable.ddl=true" in message
    assert [k for k, _ in read_all(bootstrap, f"{db.name}.{db.name}.items")] == [{"id": 1}]  # nothing after it


def test_an_unparseable_statement_is_skipped_when_told_and_mariadb_s_class_says_mariadb(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    bootstrap = broker.bootstrap_servers
    props = _snapshot(
        broker,
        db,
        **{
            "schema.history.internal.skip.unparseable.ddl": "true",
            "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
        },
    )
    with running_worker(json_worker(bootstrap, tmp_path), props):
        read_until(bootstrap, f"{db.name}.{db.name}.items", lambda k, v: k == {"id": 1})
        db.execute("CREATE TABLE audit (id INT) WITH SYSTEM VERSIONING", "INSERT INTO items VALUES (2, 'b')")
        [*_, (_, value)] = read_until(bootstrap, f"{db.name}.{db.name}.items", lambda k, v: k == {"id": 2})
    assert value["payload"]["after"] == {"id": 2, "name": "b"}
    source = next(f for f in value["schema"]["fields"] if f["field"] == "source")
    assert (value["payload"]["source"]["connector"], source["name"]) == (
        "mariadb",
        "io.debezium.connector.mariadb.Source",
    )
    [(_, created)] = read_all(bootstrap, db.name)  # the snapshot's CREATE TABLE items only
    assert created["schema"]["name"] == "io.debezium.connector.mariadb.SchemaChangeValue"
    assert "audit" not in str([v["ddl"] for _, v in read_all(bootstrap, db.history)])


def test_a_restart_without_its_history_fails_until_recovery_rebuilds_it(
    broker: Broker, admin: AdminClient, db: MySqlDatabase, tmp_path: Path
) -> None:
    bootstrap = broker.bootstrap_servers
    props = _snapshot(broker, db)
    config = json_worker(bootstrap, tmp_path)
    topic = f"{db.name}.{db.name}.items"
    with running_worker(config, props):
        read_until(bootstrap, topic, lambda k, v: k == {"id": 1})
    admin.delete_topics([db.history])[db.history].result(30)
    db.execute("INSERT INTO items VALUES (2, 'b')")
    with running_worker(config, props) as runtime:
        assert runtime.worker is not None
        wait_until(lambda: task_state(runtime.worker, props["name"])[0] is State.FAILED, what="the task to fail")
        message = task_state(runtime.worker, props["name"])[1] or ""
    assert f"The schema history topic {db.history} (schema.history.internal.kafka.topic) holds no record" in message
    assert "Set snapshot.mode=recovery to rebuild it" in message, message
    recovery = {**props, "snapshot.mode": "schema_only_recovery"}  # Debezium 2.x's name, read as recovery
    with running_worker(config, recovery):
        read_until(bootstrap, topic, lambda k, v: k == {"id": 2})
        db.execute("ALTER TABLE items ADD COLUMN qty INT", "INSERT INTO items VALUES (3, 'c', 5)")
        read_until(bootstrap, topic, lambda k, v: k == {"id": 3})
    assert [(p["op"], p["after"]) for p in payloads(read_all(bootstrap, topic))] == [
        ("r", {"id": 1, "name": "a"}),
        ("c", {"id": 2, "name": "b"}),
        ("c", {"id": 3, "name": "c", "qty": 5}),
    ]
    history = [HistoryRecord.from_json(value) for _, value in read_all(bootstrap, db.history)]
    assert [r.ddl.split(" ", 2)[:2] for r in history] == [
        ["SET", "character_set_server=latin1,"],
        ["CREATE", "DATABASE"],
        ["CREATE", "TABLE"],
        ["ALTER", "TABLE"],
    ]


@pytest.fixture
def full_row_metadata(mariadb: MariaDb) -> Iterator[None]:
    mariadb.execute("SET GLOBAL binlog_row_metadata = 'FULL'")
    try:
        yield
    finally:
        mariadb.execute("SET GLOBAL binlog_row_metadata = 'NO_LOG'")


@pytest.mark.usefixtures("full_row_metadata")
def test_with_full_row_metadata_a_table_map_other_than_the_parsed_schema_fails_naming_both(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    bootstrap = broker.bootstrap_servers
    props = _snapshot(broker, db, **{"schema.history.internal.skip.unparseable.ddl": "true"})
    with running_worker(json_worker(bootstrap, tmp_path), props) as runtime:
        assert runtime.worker is not None
        read_until(bootstrap, f"{db.name}.{db.name}.items", lambda k, v: k == {"id": 1})
        db.execute(  # skipped, unparseable: it adds MariaDB's hidden row_start / row_end columns
            "ALTER TABLE items ADD SYSTEM VERSIONING",
            "INSERT INTO items VALUES (2, 'b')",
        )
        wait_until(lambda: task_state(runtime.worker, props["name"])[0] is State.FAILED, what="the task to fail")
        message = task_state(runtime.worker, props["name"])[1] or ""
    assert f"The binlog's table map of {db.name}.items at binlog." in message, message
    assert "gives column 3 as row_start timestamp(6) where the schema held has no column" in message, message
    assert "(the binlog's columns: id int, name varchar(10), row_start" in message
    assert "the schema held: id int(11), name varchar(10))" in message
    assert [k for k, _ in read_all(bootstrap, f"{db.name}.{db.name}.items")] == [{"id": 1}]


@pytest.mark.parametrize("dropped", [False, True])
def test_a_captured_table_whose_schema_is_not_held_is_read_from_the_server_when_its_first_change_comes(
    broker: Broker, mariadb: MariaDb, db: MySqlDatabase, tmp_path: Path, dropped: bool
) -> None:
    bootstrap = broker.bootstrap_servers
    config = json_worker(bootstrap, tmp_path)
    with mysql_database(mariadb) as later:  # captured only from the restart on: its tables are not in the history
        later.execute("CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(9) CHARACTER SET latin1)")
        props = _snapshot(broker, db)
        with running_worker(config, props):
            read_until(bootstrap, f"{db.name}.{db.name}.items", lambda k, v: k == {"id": 1})
        later.execute("INSERT INTO notes VALUES (1, 'né')", *(["DROP TABLE notes"] if dropped else []))
        wider = {**props, "database.include.list": f"{db.name},{later.name}"}
        with running_worker(config, wider) as runtime:
            assert runtime.worker is not None
            if dropped:
                wait_until(
                    lambda: task_state(runtime.worker, props["name"])[0] is State.FAILED, what="the task to fail"
                )
                message = task_state(runtime.worker, props["name"])[1] or ""
            else:
                read_until(bootstrap, f"{db.name}.{later.name}.notes", lambda k, v: k == {"id": 1})
    if dropped:
        assert f"The binlog has changes of {later.name}.notes at binlog." in message, message
        assert "the server no longer has it to read one" in message and "Take a new snapshot" in message
        return
    [(key, value)] = read_all(bootstrap, f"{db.name}.{later.name}.notes")
    assert (key, value["payload"]["after"]) == ({"id": 1}, {"id": 1, "body": "né"})
    history = [HistoryRecord.from_json(v) for _, v in read_all(bootstrap, db.history)]
    assert history[-1].ddl.startswith("CREATE TABLE `notes`")  # recorded when read, at the change's position


def test_recovery_without_committed_offsets_fails_naming_the_modes_that_start_a_connector(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    props = _snapshot(broker, db, **{"snapshot.mode": "recovery"})
    with running_worker(json_worker(broker.bootstrap_servers, tmp_path), props) as runtime:
        assert runtime.worker is not None
        wait_until(lambda: task_state(runtime.worker, props["name"])[0] is State.FAILED, what="the task to fail")
        message = task_state(runtime.worker, props["name"])[1] or ""
    assert "snapshot.mode=recovery rebuilds the schema history of a connector that has streamed before" in message
    assert f"{db.name} has no committed offsets. Set snapshot.mode=initial (or no_data) to start it" in message
