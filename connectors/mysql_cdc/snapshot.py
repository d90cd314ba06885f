"""The consistent snapshot, as Debezium's MySQL connector takes it: the binlog position is read under the
shortest lock `snapshot.locking.mode` allows, and every row is read in one REPEATABLE READ transaction
started WITH CONSISTENT SNAPSHOT at that position, so streaming from it afterwards neither repeats nor
misses a change.

- `minimal`: FLUSH TABLES WITH READ LOCK (the RELOAD privilege) while the transaction starts, the position
  is read and the tables' schemas (`SHOW CREATE TABLE`) are read, released at once; rows are then read
  without a lock.
- `none`: no lock. On MariaDB the position is still exact: `binlog_snapshot_file` / `binlog_snapshot_position`
  are the binlog coordinates of the consistent snapshot itself. On MySQL it is read right after the
  transaction starts (Debezium: safe only if no DDL or writes run meanwhile).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from connectworker.api.errors import ConnectError

LOCKING_MODES = ("minimal", "none")


@dataclass(frozen=True)
class BinlogPosition:
    file: str
    pos: int
    gtids: str | None  # MariaDB's gtid_binlog_pos or MySQL's Executed_Gtid_Set; None when GTIDs are off


def _one(cursor: Any, statement: str) -> tuple[Any, ...] | None:
    cursor.execute(statement)
    row = cursor.fetchone()
    return tuple(row) if row is not None else None


def _status(cursor: Any, name: str) -> str | None:
    row = _one(cursor, f"SHOW STATUS LIKE '{name}'")
    return str(row[1]) if row else None


def begin_snapshot(
    connection: Any, locking_mode: str, *, mariadb: bool, under_lock: Callable[[], None] = lambda: None
) -> BinlogPosition:
    """Starts the snapshot's transaction on `connection` (left open for `table_rows`) and returns the binlog
    position the rows it reads are as of. `under_lock` runs once the position is read, before the lock is
    released (as Debezium's `minimal` mode reads the tables' schemas): what it reads is as of that position."""
    if locking_mode not in LOCKING_MODES:
        raise ConnectError(f"snapshot.locking.mode must be one of {', '.join(LOCKING_MODES)}; got {locking_mode!r}")
    with connection.cursor() as cursor:
        locked = False
        if locking_mode == "minimal":
            cursor.execute("FLUSH TABLES WITH READ LOCK")
            locked = True
        try:
            cursor.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cursor.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY")
            if mariadb:
                file, pos = _status(cursor, "binlog_snapshot_file"), _status(cursor, "binlog_snapshot_position")
                row = _one(cursor, "SELECT @@GLOBAL.gtid_binlog_pos")
                gtids = str(row[0]) if row and row[0] else None
                if not file or pos is None:
                    raise ConnectError("The server has no binary log to snapshot at (binlog_snapshot_file is empty)")
                position = BinlogPosition(file, int(pos), gtids)
            else:
                master = _one(cursor, "SHOW MASTER STATUS")
                if master is None:
                    raise ConnectError("The server has no binary log to snapshot at (SHOW MASTER STATUS is empty)")
                executed = str(master[4]) if len(master) > 4 and master[4] else None
                position = BinlogPosition(str(master[0]), int(master[1]), executed)
            under_lock()
            return position
        finally:
            if locked:
                cursor.execute("UNLOCK TABLES")


def table_rows(connection: Any, database: str, table: str, columns: Sequence[str], batch: int) -> Iterator[list[Any]]:
    """The rows of one table as the snapshot's transaction sees them, `batch` at a time (an unbuffered
    cursor: a large table is never held in memory)."""
    import pymysql.cursors

    names = ", ".join(quote(c) for c in columns) or "NULL"
    with connection.cursor(pymysql.cursors.SSCursor) as cursor:
        cursor.execute(f"SELECT {names} FROM {quote(database)}.{quote(table)}")
        while rows := cursor.fetchmany(batch):
            yield [list(row) for row in rows]


def end_snapshot(connection: Any) -> None:
    connection.rollback()


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"
