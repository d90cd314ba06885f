"""The consistent snapshot (connectors/mysql_cdc/snapshot.py) against a real MariaDB: the position is the
binlog's at the snapshot, rows committed after it are not read (they are the stream's), and the lock of
`snapshot.locking.mode=minimal` is released before the rows are read, so writers are not held up."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest

from connectworker.api.errors import ConnectError
from connectworker.connectors.mysql_cdc.database import connect
from connectworker.connectors.mysql_cdc.snapshot import begin_snapshot, end_snapshot, table_rows
from tests.mariadb import PASSWORD, USER, MariaDb


@pytest.fixture
def database(mariadb: MariaDb) -> Iterator[str]:
    name = f"s_{uuid.uuid4().hex[:10]}"
    mariadb.execute(
        f"CREATE DATABASE {name}",
        f"CREATE TABLE {name}.t (id INT PRIMARY KEY, v VARCHAR(10))",
        f"INSERT INTO {name}.t VALUES (1, 'a'), (2, 'b'), (3, 'c')",
    )
    try:
        yield name
    finally:
        mariadb.execute(f"DROP DATABASE {name}")


def _master(mariadb: MariaDb) -> tuple[str, int]:
    [(file, pos, *_)] = mariadb.query("SHOW MASTER STATUS")
    return str(file), int(pos)


@pytest.mark.parametrize("locking_mode", ["minimal", "none"])
def test_the_snapshot_is_as_of_its_binlog_position(mariadb: MariaDb, database: str, locking_mode: str) -> None:
    before = _master(mariadb)
    connection = connect(mariadb.host, mariadb.port, USER, PASSWORD)
    try:
        position = begin_snapshot(connection, locking_mode, mariadb=True)
        # a writer after the snapshot started: not blocked by a lock (it would wait 3 s and fail), not seen
        writer = mariadb.connect(database, init_command="SET SESSION lock_wait_timeout = 3")
        try:
            with writer.cursor() as cursor:
                cursor.execute("INSERT INTO t VALUES (4, 'd')")
                cursor.execute("UPDATE t SET v = 'z' WHERE id = 1")
        finally:
            writer.close()
        rows = [row for batch in table_rows(connection, database, "t", ["id", "v"], 2) for row in batch]
        end_snapshot(connection)
    finally:
        connection.close()
    assert (position.file, position.pos) == before
    assert position.gtids and position.gtids.startswith("0-1-")  # MariaDB's domain-server-sequence
    assert rows == [[1, "a"], [2, "b"], [3, "c"]]
    after = _master(mariadb)
    assert after[0] == before[0] and after[1] > before[1]  # the writes are in the binlog, after the position


def test_an_unknown_locking_mode_is_refused_naming_the_allowed_ones(mariadb: MariaDb) -> None:
    connection = connect(mariadb.host, mariadb.port, USER, PASSWORD)
    try:
        with pytest.raises(ConnectError, match=r"snapshot.locking.mode must be one of minimal, none; got 'extended'"):
            begin_snapshot(connection, "extended", mariadb=True)
    finally:
        connection.close()
