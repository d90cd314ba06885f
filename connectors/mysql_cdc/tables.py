"""A table as the connector holds it at a binlog position, in the terms of Debezium's `io.debezium.relational`
model: its columns (name, type name, length, scale, character set, nullability, auto-increment, generated,
ENUM / SET values, default), its primary key and default character set; and the JSON Debezium's
`JsonTableChangeSerializer` writes a table as in the schema history topic, and reads back.

`Column.column_type` writes the column's type the way information_schema's `COLUMN_TYPE` does (`int(11)
unsigned`, `varchar(20)`, `decimal(10,2)`, `enum('a','b')`): what the type mapping (types.py) and the
priming of table map events (binlog.py) read. One difference, as in Debezium: a column declared `BOOLEAN`
(or `BOOL`) keeps that name (`boolean`, a Connect boolean), where information_schema and `SHOW CREATE
TABLE` say `tinyint(1)` (a number).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .catalog import CatalogColumn

TableId = tuple[str, str]  # (database, table)

_TEXT_TYPES = frozenset({"CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM", "SET"})
_WITH_WIDTH = frozenset({"TINYINT", "SMALLINT", "MEDIUMINT", "INT", "INTEGER", "BIGINT", "YEAR", "BIT"})
_WITH_LENGTH = frozenset({"CHAR", "VARCHAR", "BINARY", "VARBINARY", "BIT", "VECTOR"})
_WITH_PRECISION = frozenset({"TIME", "DATETIME", "TIMESTAMP"})
_WITH_SCALE = frozenset({"DECIMAL", "NUMERIC", "FLOAT", "DOUBLE"})

# java.sql.Types of Debezium's MySQL data type resolver, by type name (its history JSON requires jdbcType)
JDBC_TYPES = {
    "BIT": -7, "TINYINT": -6, "SMALLINT": 5, "MEDIUMINT": 4, "INT": 4, "INTEGER": 4, "BIGINT": -5, "YEAR": 4,
    "FLOAT": 6, "DOUBLE": 8, "REAL": 7, "DECIMAL": 3, "NUMERIC": 2, "BOOLEAN": 16, "BOOL": 16,
    "CHAR": 1, "ENUM": 1, "SET": 1, "VARCHAR": 12, "TINYTEXT": 12, "TEXT": 12, "MEDIUMTEXT": 12, "LONGTEXT": 12,
    "BINARY": -2, "VARBINARY": -3, "TINYBLOB": 2004, "BLOB": 2004, "MEDIUMBLOB": 2004, "LONGBLOB": 2004,
    "DATE": 91, "TIME": 92, "DATETIME": 93, "TIMESTAMP": 2014,
}  # fmt: skip
OTHER_JDBC_TYPE = 1111  # JSON, spatial types and the rest

_WIDEST = {  # bytes of a character set's widest character, where more than one
    "utf8mb4": 4, "utf8mb3": 3, "utf8": 3, "ucs2": 2, "utf16": 4, "utf16le": 4, "utf32": 4, "big5": 2,
    "sjis": 2, "cp932": 2, "gbk": 2, "gb2312": 2, "gb18030": 4, "euckr": 2, "ujis": 3, "eucjpms": 3,
}  # fmt: skip


def widest_character(charset: str | None) -> int:
    """The bytes of a character set's widest character (1 for the single-byte ones and binary)."""
    return _WIDEST.get(charset or "", 1)


def quote_label(label: str) -> str:
    return "'" + label.replace("'", "''") + "'"


def unquote_label(text: str) -> str:
    """A label as Debezium writes it in `enumValues` (`'a'`, quotes doubled inside) back to its value."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1].replace(text[0] * 2, text[0])
    return text


@dataclass(frozen=True)
class Column:
    """One column, as Debezium's `Column`: `type_name` is the MySQL type in upper case with its `UNSIGNED` /
    `ZEROFILL` (`INT UNSIGNED`, `VARCHAR`, `ENUM`, `BOOLEAN`); `length` the display width, character
    length, precision or fractional-second digits the type was given; `charset` a text column's character
    set (its own, or the table's default it took), None for the others."""

    name: str
    type_name: str
    length: int | None = None
    scale: int | None = None
    charset: str | None = None
    optional: bool = True
    auto_incremented: bool = False
    generated: bool = False
    enum_values: tuple[str, ...] = ()
    has_default: bool = False
    default: str | None = None
    comment: str | None = None

    @property
    def base_type(self) -> str:
        return self.type_name.split()[0]

    @property
    def is_text(self) -> bool:
        return self.base_type in _TEXT_TYPES

    @property
    def column_type(self) -> str:
        """The type as information_schema's COLUMN_TYPE writes it (BOOLEAN kept, see the module's doc)."""
        base, *modifiers = self.type_name.lower().split()
        if base in ("enum", "set"):
            text = f"{base}({','.join(quote_label(v) for v in self.enum_values)})"
        elif self.length is not None and base.upper() in _WITH_SCALE and self.scale is not None:
            text = f"{base}({self.length},{self.scale})"
        elif self.length is not None and base.upper() in _WITH_WIDTH | _WITH_LENGTH | _WITH_PRECISION | _WITH_SCALE:
            text = f"{base}({self.length})" if self.length or base.upper() not in _WITH_PRECISION else base
        else:
            text = base
        return " ".join((text, *modifiers))

    @property
    def jdbc_type(self) -> int:
        return JDBC_TYPES.get(self.base_type, OTHER_JDBC_TYPE)


@dataclass(frozen=True)
class Table:
    database: str
    name: str
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...] = ()
    default_charset: str | None = None
    comment: str | None = None
    _by_name: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def id(self) -> TableId:
        return (self.database, self.name)

    def index_of(self, name: str) -> int | None:
        """A column's place (MySQL's column names are case-insensitive), None when it has none so named."""
        if not self._by_name:
            self._by_name.update((c.name.lower(), i) for i, c in enumerate(self.columns))
        return self._by_name.get(name.lower())

    def catalog(self) -> tuple[CatalogColumn, ...]:
        """The columns as the snapshot, the binlog priming and the table shapes read them."""
        keys = {name.lower(): place for place, name in enumerate(self.primary_key, 1)}
        return tuple(
            CatalogColumn(c.name, c.column_type, c.charset, c.optional, keys.get(c.name.lower(), 0))
            for c in self.columns
        )


def quoted_id(table: TableId) -> str:
    """Debezium's `TableId.toDoubleQuotedString` of a MySQL table: `"database"."table"`."""
    return f'"{table[0]}"."{table[1]}"'


def parse_quoted_id(text: str) -> TableId:
    """`"database"."table"` (or unquoted `database.table`) back to a table id."""
    parts: list[str] = []
    current, quoted, index = "", False, 0
    while index < len(text):
        char = text[index]
        if char == '"':
            if quoted and text[index + 1 : index + 2] == '"':
                current += '"'
                index += 1
            else:
                quoted = not quoted
        elif char == "." and not quoted:
            parts.append(current)
            current = ""
        else:
            current += char
        index += 1
    parts.append(current)
    if len(parts) != 2:
        raise ValueError(f"not a database.table id: {text!r}")
    return parts[0], parts[1]


def table_json(table: Table) -> dict[str, Any]:
    """A table as Debezium's JsonTableChangeSerializer writes it."""
    return {
        "defaultCharsetName": table.default_charset,
        "primaryKeyColumnNames": list(table.primary_key),
        "columns": [_column_json(c, number) for number, c in enumerate(table.columns, 1)],
        "attributes": [],
        "comment": table.comment,
    }


def _column_json(column: Column, position: int) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": column.name,
        "jdbcType": column.jdbc_type,
        "typeName": column.type_name,
        "typeExpression": column.type_name,
        "charsetName": column.charset,
    }
    if column.length is not None:
        out["length"] = column.length
    if column.scale is not None:
        out["scale"] = column.scale
    out |= {
        "position": position,
        "optional": column.optional,
        "autoIncremented": column.auto_incremented,
        "generated": column.generated,
        "comment": column.comment,
        "hasDefaultValue": column.has_default,
    }
    if column.default is not None:
        out["defaultValueExpression"] = column.default
    if column.enum_values:
        out["enumValues"] = [quote_label(v) for v in column.enum_values]
    return out


def table_of_json(table: TableId, value: Mapping[str, Any]) -> Table:
    """Debezium's JSON of a table (as table_json writes it) back to a Table; a text column without a
    `charsetName` (Debezium writes none where the column takes its table's) takes `defaultCharsetName`."""
    columns = sorted(value.get("columns") or (), key=lambda c: int(c.get("position") or 0))
    charset = value.get("defaultCharsetName")
    read = (_column_of_json(c) for c in columns)
    return Table(
        table[0],
        table[1],
        tuple(replace(c, charset=charset) if c.is_text and c.charset is None else c for c in read),
        tuple(str(name) for name in value.get("primaryKeyColumnNames") or ()),
        charset,
        value.get("comment"),
    )


def _column_of_json(value: Mapping[str, Any]) -> Column:
    def number(key: str) -> int | None:
        found = value.get(key)
        return int(found) if found is not None else None

    return Column(
        str(value["name"]),
        str(value.get("typeName") or value.get("typeExpression") or ""),
        number("length"),
        number("scale"),
        value.get("charsetName"),
        bool(value.get("optional", True)),
        bool(value.get("autoIncremented", False)),
        bool(value.get("generated", False)),
        tuple(unquote_label(str(v)) for v in value.get("enumValues") or ()),
        bool(value.get("hasDefaultValue", False)),
        value.get("defaultValueExpression"),
        value.get("comment"),
    )


def column_names(columns: Sequence[Column]) -> str:
    return ", ".join(c.name for c in columns) or "none"
