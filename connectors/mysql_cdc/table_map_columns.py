"""A table's columns as the binlog's own table map event gives them, when the server writes full row
metadata (`binlog_row_metadata=FULL`: MariaDB 10.5+, MySQL 8.0.1+).

Without it the connector holds each table's columns itself (its schema history, read from
information_schema after each DDL), which is right as long as it reads DDL as they come. A connector that
was stopped while a table was altered twice reads, at the first ALTER, the columns after the second: its
held schema is then wrong for the rows in between. With full metadata each table map carries the names,
signedness, character sets, ENUM / SET labels, nullability and primary key of the table at that very
event, so the stream takes the table's columns from it when they differ from those it holds
(stream.BinlogStream), and records them in the history at that position.

`COLUMN_TYPE` is written as information_schema writes it, from the type code and its metadata (no display
widths: `int`, `int unsigned`, `decimal(10,2)`, `varchar(20)`, `datetime(3)`, `enum('a','b')`); the
character length of a CHAR or VARCHAR is its byte length over its character set's widest character.
"""

from __future__ import annotations

from typing import Any

from .catalog import CatalogColumn

_INTEGERS = {1: "tinyint", 2: "smallint", 9: "mediumint", 3: "int", 8: "bigint"}
_PLAIN = {4: "float", 5: "double", 10: "date", 14: "date", 13: "year", 245: "json", 255: "geometry"}
_TEMPORAL = {17: "timestamp", 7: "timestamp", 18: "datetime", 12: "datetime", 19: "time", 11: "time"}
_BLOBS = {1: "tiny", 2: "", 3: "medium", 4: "long"}  # BLOB / TEXT by the size of their length prefix
_WIDEST = {  # bytes of a character set's widest character, where more than one
    "utf8mb4": 4, "utf8mb3": 3, "utf8": 3, "ucs2": 2, "utf16": 4, "utf16le": 4, "utf32": 4, "big5": 2,
    "sjis": 2, "cp932": 2, "gbk": 2, "gb2312": 2, "gb18030": 4, "euckr": 2, "ujis": 3, "eucjpms": 3,
}  # fmt: skip


def table_map_columns(event: Any) -> tuple[CatalogColumn, ...] | None:
    """The columns a table map event describes, or None when it carries no full metadata (no names)."""
    metadata: Any = getattr(event, "optional_metadata", None)
    names = list(getattr(metadata, "column_name_list", None) or ())
    columns = list(event.columns)
    if not names or len(names) != len(columns):
        return None
    key_order = list(metadata.simple_primary_key_list or ()) or list(metadata.primary_keys_with_prefix or {})
    nulls = int.from_bytes(bytes(event.null_bitmask), "little")
    return tuple(
        CatalogColumn(
            str(name),
            _column_type(column),
            _charset(column),
            bool(nulls >> index & 1),
            key_order.index(index) + 1 if index in key_order else 0,
        )
        for index, (name, column) in enumerate(zip(names, columns, strict=True))
    )


def _charset(column: Any) -> str | None:
    """The column's character set as information_schema names it (none for binary strings and non-text)."""
    collation = getattr(column, "collation_name", None)
    if not collation or collation == "binary":
        return None
    return str(collation).split("_")[0]


def _column_type(column: Any) -> str:
    kind = int(column.type)
    unsigned = " unsigned" if getattr(column, "unsigned", False) else ""
    if kind in _INTEGERS:
        return _INTEGERS[kind] + unsigned
    if kind in (0, 246):
        return f"decimal({column.precision},{column.decimals})" + unsigned
    if kind in (4, 5):
        return _PLAIN[kind] + unsigned
    if kind in _PLAIN:
        return _PLAIN[kind]
    if kind in _TEMPORAL:
        fsp = int(getattr(column, "fsp", 0) or 0)
        return _TEMPORAL[kind] + (f"({fsp})" if fsp else "")
    if kind == 16:
        return f"bit({column.bits})"
    if kind in (247, 248):
        labels = column.enum_values[1:] if kind == 247 else column.set_values
        quoted = ",".join("'" + str(label).replace("'", "''") + "'" for label in labels or ())
        return f"{'enum' if kind == 247 else 'set'}({quoted})"
    charset = _charset(column)
    if kind == 252:
        return _BLOBS.get(int(column.length_size), "long") + ("text" if charset else "blob")
    if kind in (15, 253, 254):
        length = int(column.max_length) // _WIDEST.get(charset or "", 1)
        if kind == 254:
            return f"{'char' if charset else 'binary'}({length})"
        return f"{'varchar' if charset else 'varbinary'}({length})"
    raise ValueError(f"the binlog's column type code {kind} is not one this connector knows")
