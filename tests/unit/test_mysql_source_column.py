"""MySQL / MariaDB columns as Debezium's MySQL DDL parser describes them to its column mappers (type name,
length, scale, and whether masks act on them), from information_schema's COLUMN_TYPE.

BinlogSourceTypeInSchemaIT's table (debezium-connector-binlog's source_type_as_schema_parameter_test.sql),
`c1 INT, c2 MEDIUMINT, c3a NUMERIC(5,2), c3b VARCHAR(128), f1 FLOAT(10), f2 FLOAT(8,4)`, has these COLUMN_TYPEs
on MariaDB 10.11: int(11), mediumint(9), decimal(5,2), varchar(128), float, float(8,4). They are what
`SHOW CREATE TABLE` writes, so Debezium's snapshot reads them so too; the IT, which creates the table while
streaming, reads the DDL as written instead: NUMERIC for c3a and length 10 for f1."""

from __future__ import annotations

import pytest

from connectworker.connectors.debezium.column_mappers import ColumnMappers, SourceColumn
from connectworker.connectors.mysql_cdc.source_column import source_column


@pytest.mark.parametrize(
    ("column_type", "type_name", "length", "scale"),
    [
        # BinlogSourceTypeInSchemaIT's columns
        ("int(11)", "INT", 11, None),
        ("mediumint(9)", "MEDIUMINT", 9, None),
        ("decimal(5,2)", "DECIMAL", 5, 2),
        ("varchar(128)", "VARCHAR", 128, None),
        ("float", "FLOAT", None, None),
        ("float(8,4)", "FLOAT", 8, 4),
        # MySQL 8 writes no display width
        ("int", "INT", None, None),
        ("int unsigned", "INT UNSIGNED", None, None),
        # the brief's forms
        ("varchar(255)", "VARCHAR", 255, None),
        ("int(10) unsigned", "INT UNSIGNED", 10, None),
        ("int(10) unsigned zerofill", "INT UNSIGNED ZEROFILL", 10, None),
        ("decimal(10,2)", "DECIMAL", 10, 2),
        ("decimal(10,2) unsigned", "DECIMAL UNSIGNED", 10, 2),
        ("decimal", "DECIMAL", 10, 0),  # the data type resolver's default dimension
        ("enum('a','b')", "ENUM", 1, None),  # an ENUM's length is 1
        ("set('a','b,c','it''s')", "SET", 5, None),  # a SET's: its labels and the commas between them
        ("datetime(6)", "DATETIME", 6, None),
        ("datetime", "DATETIME", None, None),
        ("timestamp(3)", "TIMESTAMP", 3, None),
        ("time(6)", "TIME", 6, None),
        ("year(4)", "YEAR", 4, None),
        ("char(3)", "CHAR", 3, None),
        ("text", "TEXT", None, None),
        ("longtext", "LONGTEXT", None, None),
        ("tinyint(1)", "TINYINT", 1, None),
        ("bit(1)", "BIT", 1, None),
        ("bit(12)", "BIT", 12, None),
        ("double(10,4)", "DOUBLE", 10, 4),
        ("binary(16)", "BINARY", 16, None),
        ("varbinary(255)", "VARBINARY", 255, None),
        ("blob", "BLOB", None, None),
        ("json", "JSON", None, None),
        ("geometry", "GEOMETRY", None, None),
        ("boolean", "BOOLEAN", None, None),
        ("datetime /* mariadb-5.3 */", "DATETIME", None, None),
    ],
)
def test_type_name_length_and_scale_are_debeziums(
    column_type: str, type_name: str, length: int | None, scale: int | None
) -> None:
    column = source_column("inventory.products", "c", column_type)
    assert (column.type_name, column.length, column.scale) == (type_name, length, scale)
    assert (column.table, column.name) == ("inventory.products", "c")


@pytest.mark.parametrize(
    ("column_type", "character", "binary"),
    [
        ("char(3)", True, False),
        ("varchar(255)", True, False),
        ("tinytext", True, False),
        ("text", True, False),
        ("mediumtext", True, False),
        ("longtext", True, False),
        ("enum('a','b')", True, False),  # Types.CHAR in Debezium: masks act on ENUM and SET columns
        ("set('a')", True, False),
        ("json", False, False),  # Types.OTHER
        ("int(11)", False, False),
        ("binary(4)", False, True),
        ("varbinary(4)", False, True),
        ("tinyblob", False, True),
        ("longblob", False, True),
        ("bit(8)", False, False),  # Debezium's Bits are a byte[], no ByteBuffer: truncation leaves them
    ],
)
def test_character_and_binary_columns_are_debeziums_char_varchar_and_binary_jdbc_types(
    column_type: str, character: bool, binary: bool
) -> None:
    column = source_column("db.t", "c", column_type)
    assert (column.character, column.binary) == (character, binary)


def test_the_it_columns_carry_debeziums_source_type_parameters() -> None:
    """BinlogSourceTypeInSchemaIT.shouldPropagateSourceTypeAsSchemaParameter's regular expressions."""
    mappers = ColumnMappers.from_props({"column.propagate.source.type": r".*\.c1,.*\.c2,.*\.c3.*,.*\.f."})
    table = "source_type_as_schema_parameter_test.dbz_644_source_type_mapped_as_schema_parameter_test"

    def parameters(name: str, column_type: str) -> dict[str, str]:
        return dict(mappers.schema_parameters(source_column(table, name, column_type)))

    assert parameters("id", "int(11)") == {}
    assert parameters("c2", "mediumint(9)")["__debezium.source.column.type"] == "MEDIUMINT"
    assert parameters("c3b", "varchar(128)") == {
        "__debezium.source.column.type": "VARCHAR",
        "__debezium.source.column.length": "128",
        "__debezium.source.column.name": "c3b",
    }
    assert parameters("f2", "float(8,4)") == {
        "__debezium.source.column.type": "FLOAT",
        "__debezium.source.column.length": "8",
        "__debezium.source.column.scale": "4",
        "__debezium.source.column.name": "f2",
    }


def test_a_comment_is_carried_for_the_source_type_parameters() -> None:
    column = source_column("db.t", "c", "varchar(5)", comment="the code")
    assert column == SourceColumn("db.t", "c", "VARCHAR", 5, None, character=True, comment="the code")
