"""Row events decoded with the table schema the connector knows, not the binlog's metadata.

MariaDB (10.11: `binlog_row_metadata=NO_LOG` by default) and MySQL without `binlog_row_metadata=FULL` send
no column names, unsigned flags or ENUM / SET labels in a table map event; a binlog reader left alone
names columns `UNKNOWN_COL0` (or asks information_schema, which answers as of now, not as of the event),
reads ENUM and SET as nothing, and fails on BLOB bytes that are not UTF-8. `prime_columns` gives the table
map's columns what the connector knows of the table at that binlog position (parsed from the DDL): names,
unsigned flags, labels, each text column's character set, and for binary columns a charset that leaves the
bytes undecoded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from connectworker.api.errors import ConnectError

from .types import SPATIAL, labels

RAW_BYTES = "connectworker-raw-bytes"
"""A charset name no codec has: mysql-replication then hands on a value's bytes undecoded (its LookupError path)."""

_BINARY = re.compile(r"(tiny|medium|long)?blob|(var)?binary\b.*")


REMEDY = (
    "The schema the connector parsed from the DDL does not fit the binlog here: a DDL statement it skipped "
    "(schema.history.internal.skip.unparseable.ddl) or read wrongly, or a schema history rebuilt by "
    "snapshot.mode=recovery after the table was altered. Take a new snapshot: delete the connector's offsets "
    "and its history topic (or start it with a new topic.prefix)"
)


class SchemaMismatchError(ConnectError):
    """A row event's table has other columns than the schema the connector holds for it at that position."""


# The binlog's column type codes (MySQL's enum_field_types), by the COLUMN_TYPE base names they stand for.
_INTEGERS = frozenset({"tinyint", "smallint", "mediumint", "int", "integer", "bigint", "bool", "boolean"})
_TEXTS = frozenset({"char", "varchar", "binary", "varbinary"})
_BLOBS = frozenset({"tinytext", "text", "mediumtext", "longtext", "tinyblob", "blob", "mediumblob", "longblob"})
_DECIMALS = frozenset({"decimal", "numeric", "dec", "fixed"})
_BINLOG_TYPES: dict[int, frozenset[str]] = {
    **dict.fromkeys((1, 2, 3, 8, 9), _INTEGERS),  # TINY, SHORT, LONG, LONGLONG, INT24
    **dict.fromkeys((0, 246), _DECIMALS),  # DECIMAL, NEWDECIMAL
    4: frozenset({"float"}),
    5: frozenset({"double", "real"}),
    **dict.fromkeys((7, 17), frozenset({"timestamp"})),  # TIMESTAMP, TIMESTAMP2
    **dict.fromkeys((10, 14), frozenset({"date"})),  # DATE, NEWDATE
    **dict.fromkeys((11, 19), frozenset({"time"})),  # TIME, TIME2
    **dict.fromkeys((12, 18), frozenset({"datetime"})),  # DATETIME, DATETIME2
    13: frozenset({"year"}),
    16: frozenset({"bit"}),
    245: frozenset({"json"}),
    247: frozenset({"enum"}),
    248: frozenset({"set"}),
    **dict.fromkeys((15, 253, 254), _TEXTS),  # VARCHAR, VAR_STRING, STRING
    **dict.fromkeys((249, 250, 251, 252), _BLOBS | {"json"}),  # the BLOBs (MariaDB's JSON is a LONGTEXT)
    255: SPATIAL,
}
_BASE = re.compile(r"[a-z]+")
_SCALE = re.compile(r"\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\)")


def _check_type(table: str, column: Any, name: str, column_type: str) -> None:
    """Refuse a held column whose type is not the one the binlog's table map gives it (or, for a DECIMAL,
    whose scale is not): its values would be mapped with the wrong type."""
    text = column_type.strip().lower()
    base = _BASE.match(text)
    expected = _BINLOG_TYPES.get(int(getattr(column, "type", -1)))
    if base is None or expected is None:
        return  # a type code this table does not know: mysql-replication decodes it, the mapping decides
    differs = base[0] not in expected
    if not differs and base[0] in _DECIMALS and hasattr(column, "decimals"):
        scale = _SCALE.search(text)
        differs = int(column.decimals) != (int(scale[2]) if scale and scale[2] else 0)
    if differs:
        raise SchemaMismatchError(
            f"The binlog's row events of {table} give column {name!r} another type than {column_type}, the one the "
            f"connector holds for it at this position. {REMEDY}"
        )


def prime_columns(table: str, columns: Sequence[Any], known: Sequence[tuple[str, str, str | None]]) -> None:
    """Fill in `columns` (a table map event's) from `known`: the table's (name, information_schema
    COLUMN_TYPE, CHARACTER_SET_NAME) in column order; raises SchemaMismatchError when they do not match
    the table map's columns in number, or in type."""
    if len(columns) != len(known):
        raise SchemaMismatchError(
            f"The binlog's row events of {table} have {len(columns)} column(s); the schema the connector holds "
            f"for it at this position has {len(known)} ({', '.join(name for name, _, _ in known)}). {REMEDY}"
        )
    for column, (name, column_type, charset) in zip(columns, known, strict=True):
        _check_type(table, column, name, column_type)
        text = column_type.strip().lower()
        column.name = name
        column.unsigned = "unsigned" in text
        if text.startswith("enum("):
            column.enum_values = ["", *labels(column_type)]
        elif text.startswith("set("):
            column.set_values = list(labels(column_type))
        elif _BINARY.fullmatch(text):
            column.character_set_name = RAW_BYTES
        elif charset is not None:
            column.character_set_name = charset
