"""The DDL parser (connectors/mysql_cdc/ddl_parser.py, sqlglot's MySQL dialect extended in ddl_dialect.py) on
the statements MySQL and MariaDB write to the binlog and in `SHOW CREATE TABLE`: executable comments,
types with lengths, scales, signs, ENUM / SET values and character sets, every ALTER TABLE action that
changes a column or key, the statements sqlglot reads only as raw commands (RENAME TABLE, ALTER DATABASE,
CONVERT TO, MariaDB's IF EXISTS forms), partitioning passed over, and the statements it cannot read
refused with the reason."""

from __future__ import annotations

import sys

import pytest

from connectworker.api.errors import ConnectError
from connectworker.connectors.mysql_cdc.ddl_edits import (
    AddColumn,
    AddPrimaryKey,
    AddUniqueKey,
    AlterTable,
    ChangeColumn,
    ColumnDefault,
    ColumnDefinition,
    CreateTable,
    DatabaseCharset,
    DropColumn,
    DropDatabase,
    DropPrimaryKey,
    DropTables,
    RenameColumn,
    RenameTables,
    RenameTo,
    ServerCharset,
    TableCharset,
    TruncateTable,
)
from connectworker.connectors.mysql_cdc.ddl_parser import UnparseableDdlError, parse_ddl, parse_statement
from connectworker.connectors.mysql_cdc.ddl_text import executable_text


def _columns(statement: str) -> list[tuple[object, ...]]:
    [edit] = parse_ddl(statement, "shop")
    assert isinstance(edit, CreateTable)
    return [(c.name, c.type_name, c.length, c.scale) for c in edit.columns]


def _alter(statement: str) -> AlterTable:
    [edit] = parse_ddl(statement, "shop")
    assert isinstance(edit, AlterTable)
    return edit


def test_executable_comments_keep_their_text_and_strings_and_other_comments_are_left_alone() -> None:
    assert executable_text("CREATE TABLE t (a INT) /*!50100 PARTITION BY HASH (a) */") == (
        "CREATE TABLE t (a INT)          PARTITION BY HASH (a)   "
    )
    assert executable_text("/*M!100100 ALTER TABLE t ADD b INT */").strip() == "ALTER TABLE t ADD b INT"
    kept = "CREATE TABLE t (a VARCHAR(9) DEFAULT '/*!1 x */') /* plain */ -- /*!1 y */"
    assert executable_text(kept) == kept


@pytest.mark.parametrize(
    ("declared", "type_name", "length", "scale"),
    [
        ("INT(11)", "INT", 11, None),
        ("int unsigned", "INT UNSIGNED", None, None),
        ("INTEGER(10) UNSIGNED ZEROFILL", "INT UNSIGNED ZEROFILL", 10, None),
        ("TINYINT(1)", "TINYINT", 1, None),
        ("BOOLEAN", "BOOLEAN", None, None),
        ("BOOL", "BOOLEAN", None, None),
        ("BIGINT(20) UNSIGNED", "BIGINT UNSIGNED", 20, None),
        ("SERIAL", "BIGINT UNSIGNED", None, None),
        ("DECIMAL", "DECIMAL", 10, 0),
        ("NUMERIC(7)", "DECIMAL", 7, 0),
        ("DECIMAL(65,30) UNSIGNED", "DECIMAL UNSIGNED", 65, 30),
        ("FIXED(5,2)", "DECIMAL", 5, 2),
        ("FLOAT", "FLOAT", None, None),
        ("FLOAT(7,3) UNSIGNED", "FLOAT", 7, 3),
        ("FLOAT(24)", "FLOAT", None, None),
        ("FLOAT(25)", "DOUBLE", None, None),
        ("REAL", "DOUBLE", None, None),
        ("DOUBLE PRECISION(10,2)", "DOUBLE", 10, 2),
        ("BIT(5)", "BIT", 5, None),
        ("DATETIME(6)", "DATETIME", 6, None),
        ("TIMESTAMP(3)", "TIMESTAMP", 3, None),
        ("TIME", "TIME", None, None),
        ("YEAR(4)", "YEAR", 4, None),
        ("CHAR", "CHAR", 1, None),
        ("NATIONAL VARCHAR(7)", "VARCHAR", 7, None),
        ("CHAR BYTE", "BINARY", 1, None),
        ("LONG VARCHAR", "MEDIUMTEXT", None, None),
        ("LONG VARBINARY", "MEDIUMBLOB", None, None),
        ("TEXT(300)", "TEXT", 300, None),
        ("VARBINARY(16)", "VARBINARY", 16, None),
        ("JSON", "JSON", None, None),
        ("POINT", "POINT", None, None),
        ("GEOMETRYCOLLECTION", "GEOMETRY", None, None),
    ],
)
def test_column_types_as_mysql_names_them(declared: str, type_name: str, length: int | None, scale: int | None) -> None:
    assert _columns(f"CREATE TABLE t (c {declared})") == [("c", type_name, length, scale)]


def test_a_column_s_attributes() -> None:
    [edit] = parse_ddl(
        "CREATE TABLE `t` (`id` int(10) unsigned NOT NULL AUTO_INCREMENT COMMENT 'the id', "
        "`e` enum('red','it''s') CHARACTER SET latin1 COLLATE latin1_bin DEFAULT 'red', "
        "`n` varchar(20) COLLATE utf8mb4_bin DEFAULT NULL, "
        "`u` timestamp NULL DEFAULT current_timestamp() ON UPDATE current_timestamp(), "
        "`g` int(11) GENERATED ALWAYS AS (`id` + 1) VIRTUAL, `p` int AS (1) PERSISTENT, "
        "PRIMARY KEY (`id`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci COMMENT='orders'",
        "shop",
    )
    assert isinstance(edit, CreateTable)
    assert (edit.table, edit.primary_key, edit.charset, edit.collation) == (
        ("shop", "t"),
        ("id",),
        "utf8mb4",
        "utf8mb4_general_ci",
    )
    identity, colour, name, updated, generated, persistent = edit.columns
    assert identity == ColumnDefinition(
        "id", "INT UNSIGNED", 10, nullable=False, auto_increment=True, generated=True, comment="the id"
    )
    assert colour == ColumnDefinition(
        "e",
        "ENUM",
        enum_values=("red", "it's"),
        charset="latin1",
        collation="latin1_bin",
        has_default=True,
        default="red",
    )
    assert name == ColumnDefinition("n", "VARCHAR", 20, collation="utf8mb4_bin", has_default=True, default=None)
    assert (updated.nullable, updated.default, updated.auto_increment) == (True, "CURRENT_TIMESTAMP", True)
    assert generated.generated and persistent.generated and not persistent.auto_increment


def test_keys_of_a_create_table() -> None:
    [edit] = parse_ddl(
        "CREATE TABLE t (a INT NOT NULL, b INT, c INT UNIQUE, UNIQUE KEY uk (b, a(4)), UNIQUE ((a + 1)), "
        "KEY ix (b), CONSTRAINT fk FOREIGN KEY (b) REFERENCES u (id), CHECK (a > 0))",
        "shop",
    )
    assert isinstance(edit, CreateTable)
    assert (edit.primary_key, edit.unique_keys) == ((), (("c",), ("b", "a")))
    [keyed] = parse_ddl("CREATE TABLE t (a INT, b INT PRIMARY KEY, CONSTRAINT pk PRIMARY KEY (a))", "shop")
    assert isinstance(keyed, CreateTable) and keyed.primary_key == ("a",)


def test_create_table_like_if_not_exists_or_replace_and_partitioned() -> None:
    assert parse_ddl("CREATE TABLE IF NOT EXISTS a.t LIKE b.u", "shop") == (
        CreateTable(("a", "t"), like=("b", "u"), if_not_exists=True),
    )
    assert parse_ddl("CREATE TABLE t (LIKE u)", "shop") == (CreateTable(("shop", "t"), like=("shop", "u")),)
    for partitioned in (
        "CREATE TABLE t (a INT) PARTITION BY RANGE (a) (PARTITION p0 VALUES LESS THAN (10), "
        "PARTITION p1 VALUES LESS THAN MAXVALUE)",
        "CREATE TABLE t (a INT) ENGINE=InnoDB /*!50100 PARTITION BY RANGE (a) "
        "(PARTITION p0 VALUES LESS THAN MAXVALUE ENGINE = InnoDB) */",
        "CREATE OR REPLACE TABLE `t` (`a` int) START TRANSACTION",  # MySQL 8's logged CREATE TABLE ... SELECT
    ):
        assert _columns(partitioned) == [("a", "INT", None, None)], partitioned
    assert parse_ddl("CREATE TEMPORARY TABLE t (a INT)", "shop") == ()


def test_alter_table_actions_in_order() -> None:
    edit = _alter(
        "ALTER TABLE other.t ADD COLUMN q INT AFTER id, ADD r BIT FIRST, DROP COLUMN name, DROP old, "
        "MODIFY e SET('x') NOT NULL, CHANGE b bb TINYINT(1) FIRST, RENAME COLUMN d TO dd, "
        "ALTER COLUMN q SET DEFAULT 5, ALTER r DROP DEFAULT, ADD PRIMARY KEY (q, r), DROP PRIMARY KEY, "
        "ADD CONSTRAINT uq UNIQUE KEY (bb), ADD INDEX ix (q), DROP INDEX ix, DROP FOREIGN KEY fk, RENAME TO x.u, "
        "ENGINE=InnoDB, ALGORITHM=INPLACE, LOCK=NONE"
    )
    assert edit.table == ("other", "t") and edit.signalled
    assert [type(a).__name__ for a in edit.actions] == [
        "AddColumn", "AddColumn", "DropColumn", "DropColumn", "ChangeColumn", "ChangeColumn", "RenameColumn",
        "ColumnDefault", "ColumnDefault", "AddPrimaryKey", "DropPrimaryKey", "AddUniqueKey", "RenameTo",
    ]  # fmt: skip
    add_q, add_r, drop_name, _, modify, change, rename, default, no_default, pk, _, unique, moved = edit.actions
    assert add_q == AddColumn(ColumnDefinition("q", "INT"), ("AFTER", "id"))
    assert isinstance(add_r, AddColumn) and add_r.position == ("FIRST", None)
    assert drop_name == DropColumn("name")
    assert modify == ChangeColumn("e", ColumnDefinition("e", "SET", enum_values=("x",), nullable=False))
    assert change == ChangeColumn("b", ColumnDefinition("bb", "TINYINT", 1), ("FIRST", None))
    assert rename == RenameColumn("d", "dd")
    assert (default, no_default) == (ColumnDefault("q", True, "5"), ColumnDefault("r", False))
    assert (pk, unique, moved) == (AddPrimaryKey(("q", "r")), AddUniqueKey(("bb",)), RenameTo(("x", "u")))


@pytest.mark.parametrize(
    ("statement", "actions"),
    [
        ("ALTER TABLE t DEFAULT CHARSET=latin1", (TableCharset("latin1", None),)),
        (
            "ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
            (TableCharset("utf8mb4", "utf8mb4_bin", True),),
        ),
        (
            "ALTER TABLE t ADD COLUMN (a INT, b VARCHAR(3))",
            (AddColumn(ColumnDefinition("a", "INT")), AddColumn(ColumnDefinition("b", "VARCHAR", 3))),
        ),
        ("ALTER ONLINE IGNORE TABLE t ADD c INT", (AddColumn(ColumnDefinition("c", "INT")),)),
        (
            "ALTER TABLE IF EXISTS t ADD COLUMN IF NOT EXISTS c INT",
            (AddColumn(ColumnDefinition("c", "INT"), None, True),),
        ),
        (
            "ALTER TABLE t MODIFY COLUMN IF EXISTS c BIGINT, ADD CHECK (c > 0)",
            (ChangeColumn("c", ColumnDefinition("c", "BIGINT")),),
        ),
        ("ALTER TABLE t CHANGE COLUMN IF EXISTS c d BIGINT", (ChangeColumn("c", ColumnDefinition("d", "BIGINT")),)),
        ("ALTER TABLE t RENAME AS d.u", (RenameTo(("d", "u")),)),
        ("ALTER TABLE t ADD x INT PARTITION BY HASH(id) PARTITIONS 4", (AddColumn(ColumnDefinition("x", "INT")),)),
        ("ALTER TABLE t ADD PARTITION (PARTITION p3 VALUES LESS THAN (2000))", ()),
        ("ALTER TABLE t PARTITION BY KEY() PARTITIONS 2", ()),
        ("ALTER TABLE t REMOVE PARTITIONING", ()),
        ("ALTER TABLE t DROP PARTITION p0, p1", ()),
        ("ALTER TABLE t STORAGE DISK, MODIFY c INT STORAGE MEMORY", (ChangeColumn("c", ColumnDefinition("c", "INT")),)),
        ("ALTER TABLE t DISABLE KEYS", ()),
        ("ALTER TABLE t FORCE", ()),
        ("ALTER TABLE t COMMENT 'x', AUTO_INCREMENT = 100", ()),
    ],
)
def test_alter_table_statements_sqlglot_reads_only_in_part(statement: str, actions: tuple[object, ...]) -> None:
    assert _alter(statement).actions == actions


@pytest.mark.parametrize(
    ("statement", "edits"),
    [
        (
            "RENAME TABLE a TO b, `c`.`d``x` TO e.f",
            (RenameTables(((("shop", "a"), ("shop", "b")), (("c", "d`x"), ("e", "f")))),),
        ),
        ("DROP TABLE IF EXISTS `a`, b.c /* generated by server */", (DropTables((("shop", "a"), ("b", "c"))),)),
        ("DROP TEMPORARY TABLE IF EXISTS t", ()),
        ("TRUNCATE TABLE t", (TruncateTable(("shop", "t")),)),
        (
            "CREATE UNIQUE INDEX ux ON d.t (a, b(10))",
            (AlterTable(("d", "t"), (AddUniqueKey(("a", "b")),), signalled=False),),
        ),
        ("CREATE INDEX ix ON t (a)", (AlterTable(("shop", "t"), (), signalled=False),)),
        ("CREATE INDEX ix USING BTREE ON t (a)", (AlterTable(("shop", "t"), (), signalled=False),)),
        ("DROP INDEX `PRIMARY` ON t", (AlterTable(("shop", "t"), (DropPrimaryKey(),), signalled=False),)),
        (
            "CREATE DATABASE IF NOT EXISTS `d` /*!40100 DEFAULT CHARACTER SET latin1 */",
            (DatabaseCharset("d", "latin1", None, created=True),),
        ),
        ("ALTER DATABASE d CHARACTER SET = utf8mb4", (DatabaseCharset("d", "utf8mb4", None),)),
        ("ALTER SCHEMA DEFAULT COLLATE utf8mb4_bin", (DatabaseCharset("shop", None, "utf8mb4_bin"),)),
        ("DROP DATABASE IF EXISTS d", (DropDatabase("d"),)),
        (
            "SET character_set_server=utf8mb4, collation_server=utf8mb4_general_ci",
            (ServerCharset("utf8mb4", "utf8mb4_general_ci"),),
        ),
        ("/*!40101 SET character_set_client = utf8 */", ()),
        ("CREATE VIEW v AS SELECT 1", ()),
    ],
)
def test_other_statements(statement: str, edits: tuple[object, ...]) -> None:
    assert parse_ddl(statement, "shop") == edits


@pytest.mark.parametrize(
    ("statement", "reason"),
    [
        ("CREATE TABLE t (a INT) WITH SYSTEM VERSIONING", "reads it only as a raw command"),
        ("ALTER TABLE t ADD SYSTEM VERSIONING", "in its action 'ADD SYSTEM VERSIONING'"),
        ("ALTER TABLE t ADD COLUMN c FROBNICATE", "in its action 'ADD COLUMN c FROBNICATE'"),
        ("CREATE TABLE t SELECT 1 AS a", "without saying its columns"),
        ("CREATE TABLE t (a VARCHAR(3) DEFAULT 'unclosed)", "cannot read it"),
    ],
)
def test_what_the_parser_cannot_read_is_refused_with_the_reason(statement: str, reason: str) -> None:
    with pytest.raises(UnparseableDdlError, match=reason):
        parse_ddl(statement, "shop")


def test_an_unparseable_statement_fails_naming_its_start_and_position_or_is_skipped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    statement = "CREATE TABLE audit (a INT) WITH SYSTEM VERSIONING"
    with pytest.raises(ConnectError) as failed:
        parse_statement(statement, "shop", "binlog position binlog.000002:4711", skip_unparseable=False)
    assert f"Cannot parse the DDL statement {statement!r} at binlog position binlog.000002:4711" in str(failed.value)
    assert "schema.history.internal.skip.unparseable.ddl=true" in str(failed.value)
    assert parse_statement(statement, "shop", "binlog position binlog.000002:4711", skip_unparseable=True) is None
    assert "Skipping the DDL statement 'CREATE TABLE audit (a INT) WITH SYSTEM VERSIONING' at binlog position" in (
        caplog.text
    )


MYSQL_8_SHOW_CREATE_TABLE = """CREATE TABLE `t1` (
  `id` int NOT NULL AUTO_INCREMENT,
  `c` varchar(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci DEFAULT NULL,
  `j` json DEFAULT NULL,
  `g` int GENERATED ALWAYS AS ((`id` * 2)) VIRTUAL,
  `ts` timestamp NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  `inv` int DEFAULT NULL /*!80023 INVISIBLE */,
  `d` decimal(10,2) unsigned zerofill DEFAULT '0000000.00',
  `b` bit(3) DEFAULT b'101',
  `bin` varbinary(16) DEFAULT (uuid_to_bin(uuid())),
  `p` point NOT NULL /*!80003 SRID 4326 */,
  PRIMARY KEY (`id`),
  UNIQUE KEY `c` (`c`(5)),
  KEY `idx` ((lower(`c`))),
  SPATIAL KEY `p` (`p`),
  FULLTEXT KEY `ft` (`c`),
  CONSTRAINT `fk` FOREIGN KEY (`id`) REFERENCES `t0` (`id`) ON DELETE CASCADE,
  CONSTRAINT `t1_chk_1` CHECK ((`id` > 0))
) ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci STATS_PERSISTENT=0
/*!50100 PARTITION BY HASH (`id`) PARTITIONS 2 */"""


def test_what_mysql_8_writes_in_show_create_table_and_the_binlog() -> None:
    [edit] = parse_ddl(MYSQL_8_SHOW_CREATE_TABLE, "shop")
    assert isinstance(edit, CreateTable) and edit.primary_key == ("id",)
    assert [(c.name, c.type_name, c.length, c.scale, c.nullable) for c in edit.columns] == [
        ("id", "INT", None, None, False),
        ("c", "VARCHAR", 10, None, None),
        ("j", "JSON", None, None, None),
        ("g", "INT", None, None, None),
        ("ts", "TIMESTAMP", None, None, True),
        ("inv", "INT", None, None, None),
        ("d", "DECIMAL UNSIGNED ZEROFILL", 10, 2, None),
        ("b", "BIT", 3, None, None),
        ("bin", "VARBINARY", 16, None, None),
        ("p", "POINT", None, None, False),
    ]
    assert parse_ddl(
        "CREATE DATABASE `d` /*!40100 DEFAULT CHARACTER SET utf8mb4 COLLATE utf8mb4_0900_ai_ci */ "
        "/*!80016 DEFAULT ENCRYPTION='N' */",
        "shop",
    ) == (DatabaseCharset("d", "utf8mb4", "utf8mb4_0900_ai_ci", created=True),)
    assert _columns(  # a CREATE TABLE ... SELECT, as MySQL 8.0.21+ logs it in row format
        "CREATE TABLE `t2` (`a` int DEFAULT NULL) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 START TRANSACTION"
    ) == [("a", "INT", None, None)]
    assert _alter("ALTER TABLE `t1` ADD COLUMN `y` int DEFAULT NULL /* xid=55 */").actions == (
        AddColumn(ColumnDefinition("y", "INT", has_default=True)),
    )
    assert _alter(
        "ALTER TABLE t1 CHANGE COLUMN `y` `z` bigint NOT NULL FIRST, ALGORITHM=INSTANT, LOCK=SHARED"
    ).actions == (ChangeColumn("y", ColumnDefinition("z", "BIGINT", nullable=False), ("FIRST", None)),)
    assert _alter("ALTER TABLE t1 ALTER COLUMN y SET INVISIBLE, ADD INDEX ix ((a + 1)) INVISIBLE").actions == ()


def test_without_sqlglot_the_error_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "connectworker.connectors.mysql_cdc.ddl_dialect", None)  # import fails
    with pytest.raises(ConnectError, match=r"^The MySQL CDC connector parses the binlog's DDL with sqlglot") as failed:
        parse_statement("ALTER TABLE t ADD c INT", "shop", "binlog position b.000001:4", skip_unparseable=True)
    assert not isinstance(failed.value, UnparseableDdlError)  # not a statement to skip: every one would be
    assert "pip install 'connectworker[sql]'" in str(failed.value)
