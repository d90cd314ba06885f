"""The MariaDB server the MySQL / MariaDB change data capture tests share (tests/mariadb.py): a row-based,
full-image binary log, the server id the tests expect, and a `cdc` user holding the privileges Debezium's
MySQL connector documents, which may read the binary log's position."""

from __future__ import annotations

from tests.mariadb import SERVER_ID, MariaDb


def test_the_server_logs_full_rows_in_its_binary_log(mariadb: MariaDb) -> None:
    [(log_bin, binlog_format, row_image, server_id)] = mariadb.query(
        "SELECT @@log_bin, @@binlog_format, @@binlog_row_image, @@server_id"
    )
    assert (log_bin, binlog_format, row_image, server_id) == (1, "ROW", "FULL", SERVER_ID)


def test_the_cdc_user_may_replicate_and_read_the_binlog_position(mariadb: MariaDb) -> None:
    connection = mariadb.connect(root=False)
    try:
        with connection.cursor() as cursor:
            cursor.execute("SHOW GRANTS")
            grants = " ".join(row[0] for row in cursor.fetchall())
            cursor.execute("SHOW MASTER STATUS")
            [(file, position, *_)] = cursor.fetchall()
    finally:
        connection.close()
    # MariaDB 10.5+ names REPLICATION CLIENT `BINLOG MONITOR` (a GRANT of the old name grants it)
    for privilege in ("REPLICATION SLAVE", "BINLOG MONITOR", "RELOAD", "LOCK TABLES", "SELECT"):
        assert privilege in grants
    assert file.startswith("binlog.") and position > 0
