"""The connector's row decoder (connectors/mysql_cdc/row_decoder.py) against mysql-replication's own
decoding, value by value, on the binlog of a real MariaDB server: every column type it decodes, at its
edges (the smallest and largest integers, signed and unsigned, negative and long DECIMALs, zero dates,
fractional seconds of every precision, empty and multi-byte strings, non-UTF-8 bytes, empty SETs), in
inserts, updates and deletes, with NULLs in every column; and a table with a type it leaves to
mysql-replication decodes the same too."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from pymysqlreplication.row_event import DeleteRowsEvent, TableMapEvent, UpdateRowsEvent, WriteRowsEvent

from connectworker.connectors.mysql_cdc.binlog import prime_columns
from connectworker.connectors.mysql_cdc.database import connect
from connectworker.connectors.mysql_cdc.row_decoder import RowDecoder, decode_rows, decoder_for
from connectworker.connectors.mysql_cdc.schema_snapshot import parsed_table
from tests.mariadb import PASSWORD, USER, MariaDb

COLUMNS = (
    "id INT PRIMARY KEY, t TINYINT, tu TINYINT UNSIGNED, s SMALLINT, su SMALLINT UNSIGNED, m MEDIUMINT, "
    "mu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED, b BIGINT, bu BIGINT UNSIGNED, f FLOAT, d DOUBLE, "
    "dec1 DECIMAL(5,2), dec2 DECIMAL(30,10), dec3 DECIMAL(10,0), dec4 DECIMAL(4,4), dec5 DECIMAL(65,30), "
    "y YEAR, dt DATE, dtm DATETIME, dtm3 DATETIME(3), dtm6 DATETIME(6), ts TIMESTAMP NULL, ts1 TIMESTAMP(1) NULL, "
    "ts5 TIMESTAMP(5) NULL, c CHAR(3), cl CHAR(100) CHARACTER SET utf8mb4, v VARCHAR(10), "
    "vu VARCHAR(300) CHARACTER SET utf8mb4, bin BINARY(4), vb VARBINARY(10), tt TINYTEXT, tx TEXT CHARACTER SET "
    "utf8mb4, mt MEDIUMTEXT, bl BLOB, lb LONGBLOB, e ENUM('red','green','blue'), st SET('a','b','c','d','e',"
    "'f','g','h','i')"
)
ROWS = (
    "(1, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295, -9223372036854775808, "
    "18446744073709551615, -1.5, 2.2250738585072014e-308, -999.99, -12345678901234567890.0123456789, "
    "9999999999, 0.0001, -99999999999999999999999999999999999.000000000000000000000000000001, 0, '0000-00-00', "
    "'0000-00-00 00:00:00', '1000-01-01 00:00:00.001', '9999-12-31 23:59:59.999999', '1970-01-01 00:00:01', "
    "'2038-01-19 03:14:07.9', '2001-02-03 04:05:06.00001', '', 'ünï', '', REPEAT('é', 300), x'00ff0001', x'', "
    "'', REPEAT('ω', 50), 'latin1 é', x'ff', x'80ff00', 'red', '')",
    "(2, 127, 0, 32767, 0, 8388607, 0, 2147483647, 0, 9223372036854775807, 0, 3.25, -1e300, 0.01, "
    "0.0000000001, -1, -0.9999, 1.5, 2155, '2024-02-29', '2024-02-29 12:34:56', '2024-02-29 12:34:56.5', "
    "'2024-02-29 12:34:56.000001', '2024-02-29 12:34:56', '2024-02-29 12:34:56.1', '2024-02-29 12:34:56.12345', "
    "'abc', 'x', 'ten chars!', 'ok', x'61626364', x'00', 't', '{}', 'm', x'00', x'', 'blue', 'a,c,i')",
    "(3, " + ", ".join(["NULL"] * 38) + ")",
    "(4, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1901, '1970-01-01', '1970-01-01 00:00:00', "
    "NULL, '2000-01-01 00:00:00.1', NULL, '1970-01-01 00:00:01.0', NULL, NULL, 'NULL', NULL, '', NULL, x'01', NULL, "
    "'', NULL, '', NULL, NULL, 'i')",
)

IMAGES = ("values", "before_values", "after_values")  # a row's images (mysql-replication adds none_sources)


def _binlog_rows(
    mariadb: MariaDb, database: str, table: str, start: tuple[str, int], decoder: Any
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """Each captured row event's kind and rows, decoded by `decoder(event)`, table maps primed with the
    table's schema as its SHOW CREATE TABLE gives it now (it does not change here)."""
    catalog = connect(mariadb.host, mariadb.port, USER, PASSWORD)
    try:
        known = [c.binlog_view for c in parsed_table(catalog, database, table).catalog()]
    finally:
        catalog.close()
    reader = mariadb.binlog_reader(start, TableMapEvent, WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent)
    try:
        for event in reader:
            if event.schema != database or event.table != table:
                continue
            if isinstance(event, TableMapEvent):
                prime_columns(f"{database}.{table}", event.columns, known)
            else:
                yield type(event).__name__, decoder(event)
    finally:
        reader.close()


def _changes(mariadb: MariaDb, columns: str, rows: tuple[str, ...]) -> tuple[str, str, tuple[str, int]]:
    database = f"rd_{uuid.uuid4().hex[:10]}"
    [(file, pos, *_)] = mariadb.query("SHOW MASTER STATUS")
    mariadb.execute(
        f"CREATE DATABASE {database}",
        "SET SESSION time_zone = '+00:00'",
        f"CREATE TABLE {database}.t ({columns}) CHARACTER SET latin1",
        f"INSERT INTO {database}.t VALUES {', '.join(rows)}",
        f"UPDATE {database}.t SET id = id + 10",
        f"UPDATE {database}.t SET id = id - 10 WHERE id > 12",
        f"DELETE FROM {database}.t WHERE id <= 12",
        f"DELETE FROM {database}.t",
    )
    return database, "t", (str(file), int(pos))


@pytest.fixture
def every_type(mariadb: MariaDb) -> Iterator[tuple[str, str, tuple[str, int]]]:
    database, table, start = _changes(mariadb, COLUMNS, ROWS)
    yield database, table, start
    mariadb.execute(f"DROP DATABASE {database}")


def test_every_type_it_decodes_matches_mysql_replication_value_by_value(
    mariadb: MariaDb, every_type: tuple[str, str, tuple[str, int]]
) -> None:
    theirs = list(_binlog_rows(mariadb, *every_type, lambda event: event.rows))
    ours = list(_binlog_rows(mariadb, *every_type, _decoded_by_the_plan))
    counted = {kind: sum(len(rows) for k, rows in ours if k == kind) for kind, _ in ours}
    assert counted == {"WriteRowsEvent": 4, "UpdateRowsEvent": 6, "DeleteRowsEvent": 4}, [(k, len(r)) for k, r in ours]
    diffs = _differences(ours, theirs)
    assert not diffs, "\n".join(map(repr, diffs))
    written = ours[0][1]
    assert len(written) == 4
    first = written[0]["values"]  # a few values spelled out, so that both decoders agreeing on a wrong one fails
    assert first["bu"] == 18446744073709551615 and first["m"] == -8388608
    assert str(first["dec5"]) == "-99999999999999999999999999999999999.000000000000000000000000000001"
    assert first["dt"] is None and first["dtm"] is None and first["st"] is None
    assert first["vu"] == "é" * 300 and first["bl"] == b"\xff" and first["tx"] == "ω" * 50
    assert written[2]["values"] == {"id": 3, **{name: None for name in written[2]["values"] if name != "id"}}


def _differences(ours: list[Any], theirs: list[Any]) -> list[tuple[Any, ...]]:
    """(event, row, image, column, ours, theirs) for every value that differs, in the same events. One
    difference is by design: an empty BINARY / BLOB value is b"" here, where mysql-replication gives ""
    (Python decodes empty bytes to "" without looking up the codec that would have failed); the connector
    maps both to the same empty bytes."""
    assert [(kind, len(rows)) for kind, rows in ours] == [(kind, len(rows)) for kind, rows in theirs]

    def columns(decoded: list[Any]) -> list[Any]:
        return [[[list(row[image]) for image in row if image in IMAGES] for row in rows] for _, rows in decoded]

    assert columns(ours) == columns(theirs)
    return [
        (n, r, image, name, value, their_row[image][name])
        for n, ((_, rows), (_, their_rows)) in enumerate(zip(ours, theirs, strict=True))
        for r, (row, their_row) in enumerate(zip(rows, their_rows, strict=True))
        for image in row
        if image in IMAGES
        for name, value in row[image].items()
        if (value, type(value)) != (their_row[image][name], type(their_row[image][name]))
        and (value, their_row[image][name]) != (b"", "")
    ]


def _decoded_by_the_plan(event: Any) -> list[dict[str, Any]]:
    assert isinstance(decoder_for(event), RowDecoder), "left to mysql-replication"
    return decode_rows(event)


def test_a_table_with_a_type_it_leaves_to_mysql_replication_decodes_the_same(mariadb: MariaDb) -> None:
    database, table, start = _changes(
        mariadb,
        "id INT PRIMARY KEY, tm TIME(3), flags BIT(10), doc JSON, note VARCHAR(10)",
        ("(1, '-838:59:59.000', b'1010101010', '{\"a\": [1, 2]}', 'x')", "(2, NULL, NULL, NULL, NULL)"),
    )
    try:
        theirs = list(_binlog_rows(mariadb, database, table, start, lambda event: event.rows))
        ours = list(_binlog_rows(mariadb, database, table, start, _left_to_mysql_replication))
    finally:
        mariadb.execute(f"DROP DATABASE {database}")
    assert _differences(ours, theirs) == [] and [kind for kind, _ in ours] == [
        "WriteRowsEvent",
        "UpdateRowsEvent",
        "DeleteRowsEvent",
    ]
    assert ours[0][1][0]["values"]["flags"] == "1010101010"


def _left_to_mysql_replication(event: Any) -> list[dict[str, Any]]:
    assert decoder_for(event) is None
    return decode_rows(event)
