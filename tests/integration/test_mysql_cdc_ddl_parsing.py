"""The DDL parser and the held schema (ddl_parser.py, schema_state.py) on what a real MariaDB writes: each
statement is run, read back from the binlog's Query events as the server wrote it, parsed and applied, and
the held tables then compared, column by column, with information_schema's (names, types with lengths,
scales, signs and labels, character sets, nullability, primary key places). And every table's `SHOW
CREATE TABLE` parses into the same columns as the DDL that made it."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from pymysqlreplication.event import QueryEvent

from connectworker.connectors.mysql_cdc.catalog import CatalogColumn
from connectworker.connectors.mysql_cdc.database import connect
from connectworker.connectors.mysql_cdc.ddl_parser import parse_ddl
from connectworker.connectors.mysql_cdc.schema_snapshot import parsed_table
from connectworker.connectors.mysql_cdc.schema_state import SchemaState
from tests.integration.mysql_cdc_helpers import MySqlDatabase, information_schema_columns, mysql_database
from tests.mariadb import PASSWORD, USER, MariaDb

STATEMENTS = (
    "CREATE TABLE types (id INT UNSIGNED NOT NULL AUTO_INCREMENT, t TINYINT, tu TINYINT(3) UNSIGNED ZEROFILL, "
    "flag BOOLEAN, one TINYINT(1), s SMALLINT UNSIGNED, m MEDIUMINT, i INTEGER, b BIGINT(20) UNSIGNED, "
    "d DECIMAL, d2 NUMERIC(7,3) UNSIGNED, fx FIXED(5,2), f FLOAT, f2 FLOAT(7,3), f30 FLOAT(30), r REAL, "
    "dp DOUBLE PRECISION, bt BIT, b5 BIT(5), dt DATE, tm TIME(3), dtm DATETIME(6), ts TIMESTAMP(2) NULL, y YEAR, "
    "c CHAR, c3 CHAR(3) BINARY, n NATIONAL CHAR(2), nv NCHAR VARCHAR(4), v VARCHAR(20), bin BINARY, vb VARBINARY(7), "
    "tt TINYTEXT, tx TEXT(300), mt MEDIUMTEXT, lt LONG VARCHAR, tb TINYBLOB, bl BLOB(70000), lb LONGBLOB, "
    "e ENUM('a','it''s') NOT NULL DEFAULT 'a', st SET('x','y'), j JSON, PRIMARY KEY (id))",
    "CREATE TABLE charsets (a VARCHAR(3), l VARCHAR(3) CHARACTER SET latin1, u VARCHAR(3) CHARSET utf8, "
    "c VARCHAR(3) COLLATE utf8mb4_bin, bv VARCHAR(3) CHARACTER SET binary, bt TEXT CHARACTER SET binary, "
    "asc_ CHAR(1) ASCII, e ENUM('ae') CHARACTER SET latin1) DEFAULT CHARSET=cp1251",
    "CREATE TABLE keyed (a INT NOT NULL, b VARCHAR(10) NOT NULL, c INT, UNIQUE KEY (c), PRIMARY KEY (b, a))",
    "CREATE TABLE serials (id SERIAL PRIMARY KEY, note VARCHAR(5))",
    "ALTER TABLE keyed ADD COLUMN first_one INT FIRST, ADD after_a BIT AFTER a, ADD (x1 INT, x2 CHAR(2))",
    "ALTER TABLE keyed MODIFY c BIGINT UNSIGNED NOT NULL AFTER first_one, CHANGE COLUMN b bee VARCHAR(12) NOT NULL",
    "ALTER TABLE keyed RENAME COLUMN x1 TO y1, DROP COLUMN x2, ALTER after_a SET DEFAULT b'1'",
    "ALTER TABLE keyed DROP PRIMARY KEY, ADD PRIMARY KEY (c, a)",
    "ALTER ONLINE TABLE keyed ADD COLUMN IF NOT EXISTS z ENUM('p','q') DEFAULT 'q', ALGORITHM=INPLACE",
    "ALTER TABLE keyed MODIFY COLUMN IF EXISTS z SET('p','q','r')",
    "ALTER TABLE charsets CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci",
    "ALTER TABLE charsets DEFAULT CHARSET latin1, ADD later VARCHAR(3)",
    "CREATE TABLE copy LIKE keyed",
    "RENAME TABLE copy TO copied, serials TO serial_numbers",
    "ALTER TABLE copied RENAME TO copied_again",
    "CREATE TABLE parts (id INT, ts DATE) PARTITION BY RANGE (YEAR(ts)) (PARTITION p0 VALUES LESS THAN (2000), "
    "PARTITION p1 VALUES LESS THAN MAXVALUE)",
    "ALTER TABLE parts ADD note VARCHAR(10)",
    "ALTER TABLE parts REORGANIZE PARTITION p1 INTO (PARTITION p1 VALUES LESS THAN (3000), "
    "PARTITION p2 VALUES LESS THAN MAXVALUE)",
    "CREATE INDEX by_ts ON parts (ts)",
    "/* a comment */ CREATE TABLE /*!32312 IF NOT EXISTS*/ hinted (a INT) /*!50100 COMMENT 'hint' */",
    "ALTER DATABASE CHARACTER SET latin2",
    "CREATE TABLE after_db (v VARCHAR(2))",
    "TRUNCATE TABLE after_db",
    "DROP TABLE copied_again, hinted",
)


@pytest.fixture
def db(mariadb: MariaDb) -> Iterator[MySqlDatabase]:
    with mysql_database(mariadb) as database:
        yield database


def _comparable(column: CatalogColumn, *, parsed: bool) -> tuple[object, ...]:
    """A column as both views can say it: information_schema writes display widths the statements left
    out, BOOLEAN as tinyint(1) and (MariaDB) JSON as a utf8mb4 longtext."""
    column_type, charset = column.column_type, column.charset
    if parsed and column_type == "boolean":
        column_type = "tinyint"
    if parsed and column_type == "json":
        column_type, charset = "longtext", "utf8mb4"
    column_type = re.sub(r"^(tinyint|smallint|mediumint|int|bigint|year)\(\d+\)", r"\1", column_type)
    return (column.name, column_type, charset, column.nullable, column.key_position)


def test_each_statement_as_the_binlog_has_it_gives_information_schema_s_columns(
    mariadb: MariaDb, db: MySqlDatabase
) -> None:
    [(charset, collation)] = mariadb.query("SELECT @@character_set_server, @@collation_server")
    [(db_charset,)] = mariadb.query(
        f"SELECT DEFAULT_CHARACTER_SET_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = '{db.name}'"
    )
    state = SchemaState(lambda database: database == db.name)
    state.apply(parse_ddl(f"SET character_set_server={charset}, collation_server={collation}", ""))
    state.apply(parse_ddl(f"CREATE DATABASE {db.name} CHARACTER SET {db_charset}", ""))
    [(file, pos, *_)] = mariadb.query("SHOW MASTER STATUS")
    catalog = connect(mariadb.host, mariadb.port, USER, PASSWORD)
    seen: list[str] = []
    try:
        for statement in STATEMENTS:
            db.execute(statement)
            reader = mariadb.binlog_reader((file, pos), QueryEvent)
            try:
                for event in reader:
                    if event.schema == db.name.encode() or event.schema == db.name:
                        query = event.query if isinstance(event.query, str) else event.query.decode()
                        if query != "BEGIN":
                            seen.append(query)
                            state.apply(parse_ddl(query, db.name))
                file, pos = reader.log_file, reader.log_pos
            finally:
                reader.close()
            tables = [
                str(row[0]) for row in mariadb.query(f"SHOW FULL TABLES IN {db.name} WHERE Table_type = 'BASE TABLE'")
            ]
            assert sorted(t for d, t in state.tables if d == db.name) == sorted(tables), statement
            for table in tables:
                expected = [_comparable(c, parsed=False) for c in information_schema_columns(catalog, db.name, table)]
                held = [_comparable(c, parsed=True) for c in state.tables[(db.name, table)].catalog()]
                assert held == expected, (
                    f"{table} after {statement}: {[(h, e) for h, e in zip(held, expected, strict=False) if h != e]}"
                )
                from_show_create = parsed_table(catalog, db.name, table).catalog()
                assert [_comparable(c, parsed=True) for c in from_show_create] == expected, f"SHOW CREATE TABLE {table}"
    finally:
        catalog.close()
    assert len(seen) >= len(STATEMENTS)  # every statement was read from the binlog, none taken from the test
