"""Which tables and databases a statement of the binlog (a Query event's text) changes: enough of MySQL's
grammar to name them, read before the statement is parsed (ddl_parser.py), so that only the DDL of the
captured databases is: the statements of other databases are never parsed (a statement there that the
parser cannot read fails nothing)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .ddl_text import executable_text

TableId = tuple[str, str]  # (database, table)

_NAME = r"(?:`(?:[^`]|``)+`|[\w$]+)"
_QUALIFIED = rf"{_NAME}(?:\s*\.\s*{_NAME})?"
_COMMENT = re.compile(r"/\*.*?\*/|--[^\n]*|#[^\n]*", re.DOTALL)
_STATEMENTS = (
    (
        "CREATE",
        re.compile(rf"CREATE\s+(?:OR\s+REPLACE\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?({_QUALIFIED})", re.I),
    ),
    ("ALTER", re.compile(rf"ALTER\s+(?:ONLINE\s+)?(?:IGNORE\s+)?TABLE\s+(?:IF\s+EXISTS\s+)?({_QUALIFIED})", re.I)),
    (
        "ALTER",
        re.compile(
            rf"(?:CREATE|DROP)\s+(?:OR\s+REPLACE\s+)?(?:ONLINE\s+|OFFLINE\s+)?(?:UNIQUE\s+|FULLTEXT\s+|SPATIAL\s+)?INDEX\s+.*?\s+ON\s+({_QUALIFIED})",
            re.I | re.DOTALL,
        ),
    ),
)
_DROP = re.compile(r"DROP\s+TABLES?\s+(?:IF\s+EXISTS\s+)?(.*)", re.I | re.DOTALL)
_RENAME = re.compile(r"RENAME\s+TABLES?\s+(.*)", re.I | re.DOTALL)
_DROP_DATABASE = re.compile(rf"DROP\s+(?:DATABASE|SCHEMA)\s+(?:IF\s+EXISTS\s+)?({_NAME})", re.I)
_DATABASE = re.compile(
    rf"(?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:DATABASE|SCHEMA)\s+(?:IF\s+NOT\s+EXISTS\s+)?({_NAME})"
    rf"|ALTER\s+(?:DATABASE|SCHEMA)(?:\s+(?!DEFAULT\b|CHARACTER\b|CHARSET\b|COLLATE\b)({_NAME}))?)",
    re.I,
)
_TRUNCATE = re.compile(rf"TRUNCATE\s+(?:TABLE\s+)?({_QUALIFIED})", re.I)


def _unquote(name: str) -> str:
    name = name.strip()
    return name[1:-1].replace("``", "`") if name.startswith("`") else name


def _table_id(name: str, database: str) -> TableId:
    parts = re.findall(_NAME, name)
    return (_unquote(parts[0]), _unquote(parts[1])) if len(parts) == 2 else (database, _unquote(parts[0]))


@dataclass(frozen=True)
class DdlTables:
    """The tables a statement touches: (kind, table) with kind CREATE, ALTER or DROP; `renamed` (old, new)
    pairs; `dropped_database` for DROP DATABASE; `database` for CREATE / ALTER DATABASE; `truncated` for
    TRUNCATE."""

    changed: tuple[tuple[str, TableId], ...] = ()
    renamed: tuple[tuple[TableId, TableId], ...] = ()
    dropped_database: str | None = None
    truncated: TableId | None = None
    database: str | None = None

    def touches(self, holds: Callable[[str], bool]) -> bool:
        """Whether the statement changes a database `holds`: one whose schema the connector keeps."""
        tables = [t for _, t in self.changed] + [t for pair in self.renamed for t in pair]
        databases = [t[0] for t in tables] + [d for d in (self.dropped_database, self.database) if d is not None]
        return any(holds(database) for database in databases)


def ddl_tables(statement: str, database: str) -> DdlTables:
    """Which tables a DDL statement run in `database` changes (an empty answer: none, or not DDL)."""
    text = _COMMENT.sub(" ", executable_text(statement)).strip()
    for kind, pattern in _STATEMENTS:
        if match := pattern.match(text):
            return DdlTables(changed=((kind, _table_id(match[1], database)),))
    if match := _DROP.match(text):
        names = re.findall(_QUALIFIED, re.split(r"\s+(?:RESTRICT|CASCADE)\b", match[1], flags=re.I)[0])
        return DdlTables(changed=tuple(("DROP", _table_id(name, database)) for name in names))
    if match := _RENAME.match(text):
        pairs = re.findall(rf"({_QUALIFIED})\s+TO\s+({_QUALIFIED})", match[1], flags=re.I)
        return DdlTables(renamed=tuple((_table_id(a, database), _table_id(b, database)) for a, b in pairs))
    if match := _DROP_DATABASE.match(text):
        return DdlTables(dropped_database=_unquote(match[1]))
    if match := _TRUNCATE.match(text):
        return DdlTables(truncated=_table_id(match[1], database))
    if match := _DATABASE.match(text):
        return DdlTables(database=_unquote(match[1] or match[2]) if (match[1] or match[2]) else database)
    return DdlTables()


def is_transaction_control(statement: str) -> bool:
    """BEGIN, COMMIT, XA and savepoint statements: Query events that change no schema."""
    word = _COMMENT.sub(" ", statement).strip().split(None, 1)
    return bool(word) and word[0].upper() in ("BEGIN", "COMMIT", "ROLLBACK", "XA", "SAVEPOINT", "RELEASE")
