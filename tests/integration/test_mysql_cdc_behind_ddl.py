"""A connector stopped while a captured table is altered twice, then restarted: at the first ALTER it reads
the table's columns from information_schema, which shows them after the second. With the server's full
row metadata (binlog_row_metadata=FULL) each row event's table map says the table's columns at that
event, and the connector takes them: every change in between is written with the columns it was made
with, and a restart after it still is. Without it (MariaDB's default) the connector fails the task on the
first row whose columns differ, naming the table and both remedies, instead of writing a wrong record."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pymysqlreplication.row_event import TableMapEvent

from connectworker.connectors.mysql_cdc.catalog import table_columns
from connectworker.connectors.mysql_cdc.database import connect
from connectworker.connectors.mysql_cdc.table_map_columns import table_map_columns
from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.cdc_helpers import read_all, read_until
from tests.integration.harness import running_worker, task_state, wait_until
from tests.integration.mysql_cdc_helpers import MySqlDatabase, json_worker, mysql_database, payloads
from tests.mariadb import PASSWORD, USER, MariaDb

ONE_PARTITION = {"topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "1"}


@pytest.fixture
def db(mariadb: MariaDb) -> Iterator[MySqlDatabase]:
    with mysql_database(mariadb) as database:
        yield database


@pytest.fixture
def full_row_metadata(mariadb: MariaDb) -> Iterator[None]:
    mariadb.execute("SET GLOBAL binlog_row_metadata = 'FULL'")
    try:
        yield
    finally:
        mariadb.execute("SET GLOBAL binlog_row_metadata = 'NO_LOG'")


def _snapshot_then_stop(broker: Broker, db: MySqlDatabase, tmp_path: Path) -> tuple[dict[str, str], str]:
    db.execute("CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20))", "INSERT INTO items VALUES (1, 'a')")
    bootstrap = broker.bootstrap_servers
    props = db.props(bootstrap, **ONE_PARTITION)
    topic = f"{db.name}.{db.name}.items"
    with running_worker(json_worker(bootstrap, tmp_path), props):
        read_until(bootstrap, topic, lambda k, v: k == {"id": 1})
    return props, topic


@pytest.mark.usefixtures("full_row_metadata")
def test_with_full_row_metadata_changes_between_two_missed_alters_have_their_own_columns(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    props, topic = _snapshot_then_stop(broker, db, tmp_path)
    db.execute(  # while the connector is stopped
        "ALTER TABLE items ADD COLUMN qty INT",
        "INSERT INTO items VALUES (2, 'b', 5)",
        "ALTER TABLE items CHANGE name title VARCHAR(30)",
        "INSERT INTO items VALUES (3, 'c', 6)",
    )
    bootstrap = broker.bootstrap_servers
    config = json_worker(bootstrap, tmp_path)
    with running_worker(config, props):
        read_until(bootstrap, topic, lambda k, v: k == {"id": 3})
    db.execute("INSERT INTO items VALUES (4, 'd', 7)")
    with running_worker(config, props):  # resumed after the adopted columns: the history holds them
        read_until(bootstrap, topic, lambda k, v: k == {"id": 4})
    changes = [p for p in payloads(read_all(bootstrap, topic)) if p["op"] == "c"]
    assert [p["after"] for p in changes] == [
        {"id": 2, "name": "b", "qty": 5},
        {"id": 3, "title": "c", "qty": 6},
        {"id": 4, "title": "d", "qty": 7},
    ]


def test_without_full_row_metadata_the_first_row_whose_columns_differ_fails_the_task_naming_the_remedies(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    props, topic = _snapshot_then_stop(broker, db, tmp_path)
    db.execute(
        "ALTER TABLE items ADD COLUMN qty INT",
        "INSERT INTO items VALUES (2, 'b', 5)",
        "ALTER TABLE items ADD COLUMN price DECIMAL(8,2)",
        "INSERT INTO items VALUES (3, 'c', 6, 1.50)",
    )
    bootstrap = broker.bootstrap_servers
    with running_worker(json_worker(bootstrap, tmp_path), props) as runtime:
        assert runtime.worker is not None
        wait_until(lambda: task_state(runtime.worker, props["name"])[0] is State.FAILED, what="the task to fail")
        message = task_state(runtime.worker, props["name"])[1] or ""
    assert f"{db.name}.items" in message and "binlog_row_metadata=FULL" in message, message
    assert "new snapshot" in message, message
    assert [k for k, _ in read_all(bootstrap, topic)] == [{"id": 1}]  # nothing written with a wrong schema


WIDE = (
    "id INT UNSIGNED NOT NULL, code CHAR(3) NOT NULL, t TINYINT, big BIGINT UNSIGNED, dec1 DECIMAL(10,2), "
    "f FLOAT, d DOUBLE, y YEAR, dt DATE, dtm DATETIME(3), ts TIMESTAMP(6) NULL, tm TIME, name VARCHAR(20), "
    "wide VARCHAR(300) CHARACTER SET utf8mb4, bin BINARY(4), vb VARBINARY(7), tx TEXT, mt MEDIUMTEXT "
    "CHARACTER SET utf8mb4, bl BLOB, lb LONGBLOB, e ENUM('red','it''s'), st SET('a','b'), flags BIT(5), "
    "PRIMARY KEY (code, id)"
)


@pytest.mark.usefixtures("full_row_metadata")
def test_the_columns_of_a_table_map_with_full_metadata_are_information_schema_s(
    mariadb: MariaDb, db: MySqlDatabase
) -> None:
    [(file, pos, *_)] = mariadb.query("SHOW MASTER STATUS")
    db.execute(f"CREATE TABLE wide ({WIDE}) CHARACTER SET latin1", "INSERT INTO wide (id, code) VALUES (1, 'x')")
    reader = mariadb.binlog_reader((file, pos), TableMapEvent)
    try:
        [columns] = [table_map_columns(e) for e in reader if e.schema == db.name and e.table == "wide"]
    finally:
        reader.close()
    catalog = connect(mariadb.host, mariadb.port, USER, PASSWORD)
    try:
        expected = table_columns(catalog, db.name, "wide")
    finally:
        catalog.close()
    widths = re.compile(r"^(tinyint|smallint|mediumint|int|bigint|year)\(\d+\)")  # display widths: not in the binlog
    assert columns is not None
    assert [(c.name, c.column_type, c.charset, c.nullable, c.key_position) for c in columns] == [
        (c.name, widths.sub(r"\1", c.column_type), c.charset, c.nullable, c.key_position) for c in expected
    ]
