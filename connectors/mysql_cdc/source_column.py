"""A MySQL / MariaDB column as Debezium's relational model describes it to its column mappers
(`debezium.column_mappers.SourceColumn`), from information_schema's `COLUMN_TYPE` (which is how
`SHOW CREATE TABLE`, the DDL Debezium's snapshot parses, writes the type).

As Debezium's DDL parser makes a column of it (its data type resolver and column definition listener):
the type name is the type's keyword in upper case followed by ` UNSIGNED` or ` UNSIGNED ZEROFILL`
(`INT UNSIGNED`); the length is the type's first number (display width, characters, bytes, digits, bits,
fractional-second digits: `int(10)` 10, `datetime(6)` 6), DECIMAL's default 10, BIT's 1, an ENUM's 1 and a SET's
labels and commas between them; the scale is the second number, DECIMAL's default 0; no number, no length
(`text`, `datetime`, MySQL 8's `int`). The character columns are those of JDBC type CHAR or VARCHAR there:
CHAR, VARCHAR, the TEXT types, ENUM and SET; the binary ones BINARY, VARBINARY and the BLOB types.
"""

from __future__ import annotations

import re

from ..debezium.column_mappers import SourceColumn
from .types import labels

_TYPE = re.compile(r"(?P<name>[a-z0-9_]+)(?:\((?P<args>.*)\))?(?P<rest>.*)", re.DOTALL)
_CHARACTER = frozenset({"CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM", "SET"})
_BINARY = frozenset({"BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB"})
_DECIMALS = frozenset({"DECIMAL", "NUMERIC", "DEC", "FIXED"})
_JAVA_INT_MAX = 2_147_483_647  # the parser's largest length


def source_column(table: str, name: str, column_type: str, comment: str | None = None) -> SourceColumn:
    """The column `name` of `table` ("database.table") whose COLUMN_TYPE is `column_type`; `comment` is its
    comment where Debezium reads comments (include.schema.comments=true)."""
    match = _TYPE.fullmatch(column_type.strip().lower())
    if match is None:
        return SourceColumn(table, name, column_type.strip().upper(), None, None, character=False, comment=comment)
    base, args, rest = match["name"].upper(), match["args"], match["rest"].split()
    length: int | None = None
    scale: int | None = None
    if base in ("ENUM", "SET"):
        count = len(labels(args or ""))
        length = 1 if base == "ENUM" else max(0, 2 * count - 1)
    else:
        numbers = [int(n) for n in re.findall(r"\d+", args or "")]
        length = min(numbers[0], _JAVA_INT_MAX) if numbers else None
        scale = numbers[1] if len(numbers) > 1 else None
        if base in _DECIMALS:  # DECIMAL alone is DECIMAL(10,0); DECIMAL(M) is DECIMAL(M,0)
            length, scale = (10 if length is None else length), (0 if scale is None else scale)
        elif base == "BIT" and length is None:
            length = 1
    modifiers = " UNSIGNED ZEROFILL" if "zerofill" in rest else " UNSIGNED" if "unsigned" in rest else ""
    return SourceColumn(
        table,
        name,
        base + modifiers,
        length,
        scale,
        character=base in _CHARACTER,
        binary=base in _BINARY,
        comment=comment,
    )
