"""A connector stopped while a captured table is altered (and a column renamed), then restarted: it parses
each DDL of the binlog in order, so every change in between is written with the columns it was made with,
whether or not the server writes full row metadata (binlog_row_metadata=FULL, where each table map's
columns are a cross-check), and a restart after it still is. And the columns a table map event describes
with full metadata are information_schema's."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from pymysqlreplication.row_event import TableMapEvent

from connectworker.connectors.mysql_cdc.database import connect
from connectworker.connectors.mysql_cdc.table_map_columns import table_map_columns
from tests.broker import Broker
from tests.integration.cdc_helpers import read_all, read_until
from tests.integration.harness import running_worker
from tests.integration.mysql_cdc_helpers import (
    MySqlDatabase,
    information_schema_columns,
    json_worker,
    mysql_database,
    payloads,
)
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


def test_without_full_row_metadata_changes_between_missed_alters_and_a_rename_have_their_own_columns(
    broker: Broker, db: MySqlDatabase, tmp_path: Path
) -> None:
    props, topic = _snapshot_then_stop(broker, db, tmp_path)
    db.execute(  # while the connector is stopped, the server at MariaDB's default binlog_row_metadata=NO_LOG
        "ALTER TABLE items ADD COLUMN b INT",
        "INSERT INTO items VALUES (2, 'b', 5)",
        "ALTER TABLE items DROP COLUMN name",
        "INSERT INTO items VALUES (3, 6)",
        "ALTER TABLE items RENAME COLUMN b TO qty",
        "INSERT INTO items VALUES (4, 7)",
    )
    bootstrap = broker.bootstrap_servers
    with running_worker(json_worker(bootstrap, tmp_path), props):
        read_until(bootstrap, topic, lambda k, v: k == {"id": 4})
    changes = [p for p in payloads(read_all(bootstrap, topic)) if p["op"] == "c"]
    assert [p["after"] for p in changes] == [  # as Debezium: each with the columns of its own position
        {"id": 2, "name": "b", "b": 5},
        {"id": 3, "b": 6},
        {"id": 4, "qty": 7},
    ]


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
        expected = information_schema_columns(catalog, db.name, "wide")
    finally:
        catalog.close()
    widths = re.compile(r"^(tinyint|smallint|mediumint|int|bigint|year)\(\d+\)")  # display widths: not in the binlog
    assert columns is not None
    assert [(c.name, c.column_type, c.charset, c.nullable, c.key_position) for c in columns] == [
        (c.name, widths.sub(r"\1", c.column_type), c.charset, c.nullable, c.key_position) for c in expected
    ]
