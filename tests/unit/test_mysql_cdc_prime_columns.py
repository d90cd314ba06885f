"""Priming a binlog table map with the schema the connector holds (connectors/mysql_cdc/binlog.py): names,
unsigned flags and labels filled in, and a held column whose type the table map contradicts refused (the
values would be mapped with the wrong type), a DECIMAL's scale included."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from connectworker.connectors.mysql_cdc.binlog import SchemaMismatchError, prime_columns

LONG, NEWDECIMAL, VARCHAR, ENUM, BLOB = 3, 246, 15, 247, 252


def table_map(*types: int, **extra: object) -> list[SimpleNamespace]:
    return [SimpleNamespace(type=t, name=None, unsigned=False, **extra) for t in types]


def test_the_held_schema_names_the_columns_and_sets_what_the_binlog_leaves_out() -> None:
    columns = table_map(LONG, VARCHAR, ENUM, BLOB)
    prime_columns(
        "d.t",
        columns,
        [
            ("id", "int(10) unsigned", None),
            ("name", "varchar(20)", "utf8mb4"),
            ("tier", "enum('a','b')", "utf8mb4"),
            ("doc", "longtext", "utf8mb4"),
        ],
    )
    assert [c.name for c in columns] == ["id", "name", "tier", "doc"]
    assert columns[0].unsigned and columns[2].enum_values == ["", "a", "b"]


def test_a_held_type_the_table_map_contradicts_is_refused_naming_the_column() -> None:
    with pytest.raises(SchemaMismatchError, match=r"give column 'note' another type than int\(11\)"):
        prime_columns("d.t", table_map(VARCHAR), [("note", "int(11)", None)])


def test_a_decimal_held_at_another_scale_is_refused() -> None:
    columns = table_map(NEWDECIMAL, precision=10, decimals=4)
    with pytest.raises(SchemaMismatchError, match=r"'price' another type than decimal\(8,2\)"):
        prime_columns("d.t", columns, [("price", "decimal(8,2)", None)])
    prime_columns("d.t", columns, [("price", "decimal(10,4)", None)])  # the same scale: fine
    assert columns[0].name == "price"
