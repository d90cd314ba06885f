"""Row events of MariaDB 10.11's binlog (no column metadata: binlog_row_metadata=NO_LOG) decoded with the
schema the connector holds (connectors/mysql_cdc/binlog.py): the column names, unsigned values, ENUM and
SET labels and non-UTF-8 BLOB bytes come out right, and a row event whose column count differs from the
held schema is refused naming the table."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from pymysqlreplication.row_event import TableMapEvent, WriteRowsEvent

from connectworker.connectors.mysql_cdc.binlog import SchemaMismatchError, prime_columns
from connectworker.connectors.mysql_cdc.types import MySqlTypeOptions, require_type
from tests.mariadb import MariaDb

KNOWN = [
    ("id", "int(10) unsigned", None),
    ("colour", "enum('red','green')", "latin1"),
    ("tags", "set('a','b','c')", "latin1"),
    ("raw", "blob", None),
    ("note", "varchar(10)", "latin1"),  # the table's charset: é is one byte in the binlog, not UTF-8
]


def _events(mariadb: MariaDb, database: str, known: list[tuple[str, str, str | None]]) -> list[dict[str, Any]]:
    [(file, pos, *_)] = mariadb.query("SHOW MASTER STATUS")
    mariadb.execute(
        f"CREATE TABLE {database}.t (id INT UNSIGNED PRIMARY KEY, colour ENUM('red','green'), "
        "tags SET('a','b','c'), raw BLOB, note VARCHAR(10)) CHARACTER SET latin1",
        f"INSERT INTO {database}.t VALUES (4294967295, 'green', 'c,a', x'ff00fe', 'héllo')",
    )
    reader = mariadb.binlog_reader((file, pos), TableMapEvent, WriteRowsEvent)
    rows = []
    try:
        for event in reader:
            if isinstance(event, TableMapEvent) and event.schema == database:
                prime_columns(f"{database}.t", event.columns, known)
            elif isinstance(event, WriteRowsEvent) and event.schema == database:
                rows.extend(row["values"] for row in event.rows)
    finally:
        reader.close()
    return rows


def test_row_values_decode_with_the_held_schema(mariadb: MariaDb) -> None:
    database = f"b_{uuid.uuid4().hex[:10]}"
    mariadb.execute(f"CREATE DATABASE {database}")
    try:
        [row] = _events(mariadb, database, KNOWN)
    finally:
        mariadb.execute(f"DROP DATABASE {database}")
    assert row == {"id": 4294967295, "colour": "green", "tags": {"a", "c"}, "raw": b"\xff\x00\xfe", "note": "héllo"}
    options = MySqlTypeOptions(time_precision="adaptive_time_microseconds")
    mapped = {name: require_type("t", name, text, options).parse(row[name]) for name, text, _ in KNOWN}
    assert mapped == {"id": 4294967295, "colour": "green", "tags": "a,c", "raw": b"\xff\x00\xfe", "note": "héllo"}


def test_a_row_event_with_other_columns_than_the_held_schema_is_refused(mariadb: MariaDb) -> None:
    database = f"b_{uuid.uuid4().hex[:10]}"
    mariadb.execute(f"CREATE DATABASE {database}")
    try:
        with pytest.raises(SchemaMismatchError, match=rf"row events of {database}\.t have 5 column\(s\); the schema"):
            _events(mariadb, database, KNOWN[:4])
    finally:
        mariadb.execute(f"DROP DATABASE {database}")
