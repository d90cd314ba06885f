"""A table's columns as the binlog's own table map event gives them, when the server writes full row
metadata (`binlog_row_metadata=FULL`: MariaDB 10.5+, MySQL 8.0.1+).

The connector holds each table's columns itself, parsed from the DDL (schema_state.py); with full metadata
each table map carries the names, signedness, character sets, ENUM / SET labels, nullability and primary
key of the table at that very event, against which the stream checks the columns it holds
(held_schemas.py: a difference fails the task, naming both).

`COLUMN_TYPE` is written as information_schema writes it, from the type code and its metadata (no display
widths: `int`, `int unsigned`, `decimal(10,2)`, `varchar(20)`, `datetime(3)`, `enum('a','b')`); the
character length of a CHAR or VARCHAR is its byte length over its character set's widest character.
"""

from __future__ import annotations

import re
from typing import Any

from .catalog import CatalogColumn
from .tables import widest_character

_INTEGERS = {1: "tinyint", 2: "smallint", 9: "mediumint", 3: "int", 8: "bigint"}
_PLAIN = {4: "float", 5: "double", 10: "date", 14: "date", 13: "year", 245: "json", 255: "geometry"}
_TEMPORAL = {17: "timestamp", 7: "timestamp", 18: "datetime", 12: "datetime", 19: "time", 11: "time"}
_BLOBS = {1: "tiny", 2: "", 3: "medium", 4: "long"}  # BLOB / TEXT by the size of their length prefix


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
        length = int(column.max_length) // widest_character(charset)
        if kind == 254:
            return f"{'char' if charset else 'binary'}({length})"
        return f"{'varchar' if charset else 'varbinary'}({length})"
    raise ValueError(f"the binlog's column type code {kind} is not one this connector knows")


_DISPLAY_WIDTH = re.compile(r"^(tinyint|smallint|mediumint|int|bigint|year)\(\d+\)")
_SPATIAL = frozenset({"point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon"})


def binlog_signature(column_type: str) -> str:
    """A COLUMN_TYPE as far as a table map event can tell it (how table_map_columns writes it): no display
    widths or ZEROFILL, BOOLEAN as the TINYINT it is, no FLOAT / DOUBLE precision or sign, JSON as the
    LONGTEXT MariaDB stores it as, the spatial types as GEOMETRY."""
    text = " ".join(column_type.lower().replace("zerofill", "").split())
    base = re.split(r"[\s(]", text, maxsplit=1)[0]
    if base in ("bool", "boolean"):
        return "tinyint"
    if base in ("float", "double"):
        return base
    if base == "json":
        return "longtext"
    if base in _SPATIAL or base.startswith("geom"):
        return "geometry"
    return _DISPLAY_WIDTH.sub(r"\1", text)
