"""The held schema (connectors/mysql_cdc/schema_state.py): DDL statements applied in order as MySQL applies
them (character sets inherited from the table, database and server; TEXT(n) sized; CHARACTER SET binary;
keys; positions; renames; CREATE TABLE LIKE; drops), the table changes each gives, as Debezium's, and the
history replayed to a position."""

from __future__ import annotations

import pytest

from connectworker.connectors.mysql_cdc.ddl_parser import parse_ddl
from connectworker.connectors.mysql_cdc.history import HistoryRecord, TableChange
from connectworker.connectors.mysql_cdc.schema_state import SchemaState, schemas_as_of
from connectworker.connectors.mysql_cdc.source import Position
from connectworker.connectors.mysql_cdc.tables import Table


def _state(*statements: str, holds: tuple[str, ...] = ("shop", "other")) -> SchemaState:
    state = SchemaState(lambda database: database in holds)
    for statement in ("SET character_set_server=latin1", "CREATE DATABASE shop CHARACTER SET utf8mb4", *statements):
        state.apply(parse_ddl(statement, "shop"))
    return state


def _view(table: Table) -> list[tuple[object, ...]]:
    return [(c.name, c.column_type, c.charset, c.optional) for c in table.columns]


def test_character_sets_come_from_the_column_the_table_the_database_or_the_server() -> None:
    state = _state(
        "CREATE DATABASE other",
        "CREATE TABLE a (v VARCHAR(3), l VARCHAR(3) CHARACTER SET latin1, c CHAR(2) COLLATE ucs2_bin, "
        "u VARCHAR(1) CHARSET utf8, e ENUM('x'), b VARCHAR(4) CHARACTER SET binary, t TEXT CHARSET binary, i INT)",
        "CREATE TABLE b (v VARCHAR(3)) DEFAULT CHARSET=cp1251",
        "CREATE TABLE c (v VARCHAR(3)) COLLATE=utf8mb3_bin",
        "CREATE TABLE other.d (v VARCHAR(3))",
    )
    assert _view(state.tables[("shop", "a")]) == [
        ("v", "varchar(3)", "utf8mb4", True),
        ("l", "varchar(3)", "latin1", True),
        ("c", "char(2)", "ucs2", True),
        ("u", "varchar(1)", "utf8mb3", True),
        ("e", "enum('x')", "utf8mb4", True),
        ("b", "varbinary(4)", None, True),
        ("t", "blob", None, True),
        ("i", "int", None, True),
    ]
    assert state.tables[("shop", "a")].default_charset == "utf8mb4"
    assert [c.charset for t in ("b", "c") for c in state.tables[("shop", t)].columns] == ["cp1251", "utf8mb3"]
    assert state.tables[("other", "d")].columns[0].charset == "latin1"  # CREATE DATABASE without one: the server's


@pytest.mark.parametrize(
    ("declared", "column_type"),
    [
        ("TEXT(255) CHARACTER SET latin1", "tinytext"),
        ("TEXT(63)", "tinytext"),  # the table's utf8mb4: 4 bytes a character
        ("TEXT(64)", "text"),
        ("TEXT(65535) CHARACTER SET latin1", "text"),
        ("TEXT(65536) CHARACTER SET latin1", "mediumtext"),
        ("BLOB(70000)", "mediumblob"),
        ("BLOB(20000000)", "longblob"),
    ],
)
def test_text_and_blob_of_a_length_are_the_smallest_type_holding_it(declared: str, column_type: str) -> None:
    state = _state(f"CREATE TABLE t (c {declared}) CHARSET utf8mb4")
    assert state.tables[("shop", "t")].columns[0].column_type == column_type


def test_alter_table_changes_columns_in_place_and_keys_follow() -> None:
    state = _state("CREATE TABLE t (id INT, name VARCHAR(20), qty INT, PRIMARY KEY (id, name))")
    changes = state.apply(
        parse_ddl(
            "ALTER TABLE t ADD COLUMN first_one BIT FIRST, ADD after_id TINYINT(1) AFTER id, "
            "MODIFY qty BIGINT NOT NULL, CHANGE name title VARCHAR(30) CHARACTER SET latin1 AFTER qty, "
            "RENAME COLUMN after_id TO flag, ALTER qty SET DEFAULT 1, ADD note TEXT",
            "shop",
        )
    )
    table = state.tables[("shop", "t")]
    assert changes == [TableChange("ALTER", ("shop", "t"), table)]
    assert _view(table) == [
        ("first_one", "bit(1)", None, True),
        ("id", "int", None, False),
        ("flag", "tinyint(1)", None, True),
        ("qty", "bigint", None, False),
        ("title", "varchar(30)", "latin1", False),
        ("note", "text", "utf8mb4", True),
    ]
    assert table.primary_key == ("id", "title") and (table.columns[3].has_default, table.columns[3].default) == (
        True,
        "1",
    )
    state.apply(parse_ddl("ALTER TABLE t DROP COLUMN title, DROP COLUMN first_one", "shop"))
    assert state.tables[("shop", "t")].primary_key == ("id",)
    state.apply(parse_ddl("ALTER TABLE t DROP PRIMARY KEY, ADD PRIMARY KEY (flag)", "shop"))
    assert state.tables[("shop", "t")].primary_key == ("flag",)


def test_a_table_without_primary_key_is_keyed_by_its_first_unique_key_as_in_debezium() -> None:
    state = _state("CREATE TABLE t (a INT, b INT NOT NULL, UNIQUE KEY (b), UNIQUE KEY (a))")
    assert state.tables[("shop", "t")].primary_key == ("b",)
    state = _state("CREATE TABLE t (a INT, b INT)", "CREATE UNIQUE INDEX ua ON t (a)")
    assert state.tables[("shop", "t")].primary_key == ("a",) and not state.tables[("shop", "t")].columns[0].optional
    assert state.apply(parse_ddl("CREATE UNIQUE INDEX ub ON t (b)", "shop")) == []  # already keyed: no change


def test_convert_to_character_set_widens_text_that_would_no_longer_fit() -> None:
    state = _state("CREATE TABLE t (a TINYTEXT, b TEXT, c VARCHAR(10), d INT) CHARSET latin1")
    state.apply(parse_ddl("ALTER TABLE t CONVERT TO CHARACTER SET utf8mb4", "shop"))
    table = state.tables[("shop", "t")]
    assert _view(table) == [
        ("a", "text", "utf8mb4", True),
        ("b", "mediumtext", "utf8mb4", True),
        ("c", "varchar(10)", "utf8mb4", True),
        ("d", "int", None, True),
    ]
    state.apply(parse_ddl("ALTER TABLE t DEFAULT CHARSET latin1, ADD e CHAR(1)", "shop"))
    assert [c.charset for c in state.tables[("shop", "t")].columns] == ["utf8mb4", "utf8mb4", "utf8mb4", None, "latin1"]


def test_renames_likes_and_drops_give_debezium_s_table_changes() -> None:
    state = _state("CREATE TABLE t (id INT PRIMARY KEY)")
    t = state.tables[("shop", "t")]
    assert state.apply(parse_ddl("CREATE TABLE u LIKE t", "shop")) == [
        TableChange("CREATE", ("shop", "u"), Table("shop", "u", t.columns, ("id",), "utf8mb4"))
    ]
    renamed = state.apply(parse_ddl("RENAME TABLE t TO other.t2, u TO elsewhere.u", "shop"))
    assert renamed == [
        TableChange("ALTER", ("other", "t2"), Table("other", "t2", t.columns, ("id",), "utf8mb4"), ("shop", "t")),
        TableChange("DROP", ("shop", "u")),  # to a database not captured: out of view
    ]
    assert state.apply(parse_ddl("ALTER TABLE other.t2 RENAME TO shop.t3", "shop"))[0].previous == ("other", "t2")
    assert state.apply(parse_ddl("CREATE TABLE v LIKE nowhere.x", "shop")) == []  # its schema is read when needed
    assert state.apply(parse_ddl("CREATE TABLE IF NOT EXISTS t3 (other INT)", "shop")) == []
    assert state.apply(parse_ddl("DROP TABLE IF EXISTS t3, missing", "shop")) == [TableChange("DROP", ("shop", "t3"))]
    state.apply(parse_ddl("CREATE TABLE a (x INT)", "shop"))
    assert state.apply(parse_ddl("DROP DATABASE shop", "shop")) == [TableChange("DROP", ("shop", "a"))]
    assert state.tables == {}


def test_tables_of_databases_not_captured_are_not_held_and_unknown_tables_change_nothing() -> None:
    state = _state("CREATE TABLE elsewhere.t (a INT)", "ALTER TABLE nothere ADD b INT")
    assert state.tables == {}


def test_the_history_replayed_to_a_position_uses_table_changes_or_else_parses_the_ddl() -> None:
    start, later = Position("binlog.000001", 100), Position("binlog.000001", 900)
    state = _state("CREATE TABLE t (id INT PRIMARY KEY)")
    created = state.tables[("shop", "t")]
    records = [
        HistoryRecord(start, "", "SET character_set_server=latin1", ()),
        HistoryRecord(start, "shop", "CREATE DATABASE shop CHARACTER SET utf8mb4", ()),
        HistoryRecord(start, "shop", "CREATE TABLE t (...)", (TableChange("CREATE", ("shop", "t"), created),)),
        HistoryRecord(later, "shop", "ALTER TABLE t ADD v VARCHAR(3)", ()),  # no tableChanges: parsed again
    ]
    assert schemas_as_of(records, Position("binlog.000001", 500)).tables == {("shop", "t"): created}
    replayed = schemas_as_of(records, later)
    assert _view(replayed.tables[("shop", "t")]) == [("id", "int", None, False), ("v", "varchar(3)", "utf8mb4", True)]
