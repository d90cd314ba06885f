"""Row events decoded with the table schema the connector knows, not the binlog's metadata.

MariaDB (10.11: `binlog_row_metadata=NO_LOG` by default) and MySQL without `binlog_row_metadata=FULL` send
no column names, unsigned flags or ENUM / SET labels in a table map event; a binlog reader left alone
names columns `UNKNOWN_COL0` (or asks information_schema, which answers as of now, not as of the event),
reads ENUM and SET as nothing, and fails on BLOB bytes that are not UTF-8. `prime_columns` gives the table
map's columns what the connector knows of the table at that binlog position: names, unsigned flags, labels,
each text column's character set (information_schema's CHARACTER_SET_NAME), and for binary columns a
charset that leaves the bytes undecoded.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from connectworker.api.errors import ConnectError

RAW_BYTES = "connectworker-raw-bytes"
"""A charset name no codec has: mysql-replication then hands on a value's bytes undecoded (its LookupError path)."""

_BINARY = re.compile(r"(tiny|medium|long)?blob|(var)?binary\b.*")
_LABELS = re.compile(r"'((?:[^']|'')*)'")


class SchemaMismatchError(ConnectError):
    """A row event's table has other columns than the schema the connector holds for it at that position."""


def _labels(column_type: str) -> list[str]:
    return [label.replace("''", "'") for label in _LABELS.findall(column_type)]


def prime_columns(table: str, columns: Sequence[Any], known: Sequence[tuple[str, str, str | None]]) -> None:
    """Fill in `columns` (a table map event's) from `known`: the table's (name, information_schema
    COLUMN_TYPE, CHARACTER_SET_NAME) in column order."""
    if len(columns) != len(known):
        raise SchemaMismatchError(
            f"The binlog's row events of {table} have {len(columns)} column(s); the schema the connector holds "
            f"for it at this position has {len(known)} ({', '.join(name for name, _, _ in known)})"
        )
    for column, (name, column_type, charset) in zip(columns, known, strict=True):
        text = column_type.strip().lower()
        column.name = name
        column.unsigned = "unsigned" in text
        if text.startswith("enum("):
            column.enum_values = ["", *_labels(column_type)]
        elif text.startswith("set("):
            column.set_values = _labels(column_type)
        elif _BINARY.fullmatch(text):
            column.character_set_name = RAW_BYTES
        elif charset is not None:
            column.character_set_name = charset
