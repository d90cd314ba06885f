"""A DDL statement's text as the server ran it, before it is parsed: MySQL's and MariaDB's executable
comments unwrapped, and its tokens (sqlglot's MySQL tokenizer) where a statement is read token by token.

`/*!50100 PARTITION BY ... */` (MySQL, run by servers from that version on) and `/*M!100100 ... */`
(MariaDB only) are comments to any other SQL reader, but their text is part of the statement the server
ran: `SHOW CREATE TABLE` and mysqldump write table options, partitioning and character sets in them, and
sqlglot (as any SQL parser) would drop them. As Debezium's grammar does, their text is kept whatever the
version; the comment markers become spaces. Ordinary comments, quoted strings and quoted names are left
as they are.

The token helpers serve the statements ddl_parser.py reads from their tokens: splitting at top-level
commas, the text of a run of tokens, table names, CHARACTER SET / COLLATE values, a CREATE TABLE cut before
its partitioning, and the attributes written as sqlglot reads them (`sqlglot_spellings`).
"""

from __future__ import annotations

import re
from typing import Any

from connectworker.api.errors import ConnectError

from .ddl_edits import TableId, UnparseableDdlError

_VERSION_HINT = re.compile(r"/\*M?!\d{0,6}")


def executable_text(statement: str) -> str:
    """`statement` with its executable comments' markers blanked (their text kept)."""
    if "/*" not in statement:
        return statement
    out: list[str] = []
    index, size, in_hint = 0, len(statement), False
    while index < size:
        char = statement[index]
        if char in "'\"`":
            end = _quoted_end(statement, index)
            out.append(statement[index:end])
            index = end
        elif statement.startswith("/*", index):
            hint = _VERSION_HINT.match(statement, index)
            if hint is not None and not in_hint:
                out.append(" " * (hint.end() - index))
                index, in_hint = hint.end(), True
            else:
                end = statement.find("*/", index + 2)
                end = size if end < 0 else end + 2
                out.append(statement[index:end])
                index = end
        elif in_hint and statement.startswith("*/", index):
            out.append("  ")
            index, in_hint = index + 2, False
        elif char == "#" or (
            statement.startswith("--", index) and statement[index + 2 : index + 3] in (" ", "\t", "\n", "")
        ):
            end = statement.find("\n", index)
            end = size if end < 0 else end
            out.append(statement[index:end])
            index = end
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _quoted_end(text: str, start: int) -> int:
    """Where the quoted string or name opening at `start` ends (after its closing quote): a quote doubled
    inside, or (in strings) a backslash, escapes the next character."""
    quote, index = text[start], start + 1
    while index < len(text):
        char = text[index]
        if char == "\\" and quote != "`":
            index += 2
            continue
        if char == quote:
            if text[index + 1 : index + 2] == quote:
                index += 2
                continue
            return index + 1
        index += 1
    return len(text)


def tokens(text: str) -> list[Any]:
    """sqlglot's MySQL tokens of `text` (raises sqlglot's TokenError). Every statement is tokenized before
    it is parsed: where sqlglot is missing, this says how to install it."""
    try:
        from .ddl_dialect import BinlogMySql
    except ImportError:
        raise ConnectError(
            "The MySQL CDC connector parses the binlog's DDL with sqlglot, which is not installed: "
            "pip install 'connectworker[sql]'"
        ) from None
    return list(BinlogMySql().tokenize(text))


def split_top_level(items: list[Any]) -> list[list[Any]]:
    """Tokens split at the commas outside parentheses."""
    parts: list[list[Any]] = [[]]
    depth = 0
    for token in items:
        kind = token.token_type.name
        if kind == "L_PAREN":
            depth += 1
        elif kind == "R_PAREN":
            depth -= 1
        elif kind == "COMMA" and depth == 0:
            parts.append([])
            continue
        parts[-1].append(token)
    return [part for part in parts if part]


def span(text: str, items: list[Any]) -> str:
    """The text the tokens `items` were read from (first to last, with what lies between)."""
    return text[items[0].start : items[-1].end + 1]


def words(items: list[Any], count: int) -> list[str]:
    """The first `count` tokens' texts, upper case ("" for those past the end)."""
    found = [t.text.upper() for t in items[:count]]
    return found + [""] * (count - len(found))


_TABLE_TAIL = ("PARTITION",)  # a CREATE TABLE's clause after its definitions that changes no column


def without_table_tail(text: str, items: list[Any]) -> str | None:
    """A CREATE TABLE's text cut before its partitioning or system versioning clause (None: it has none)."""
    depth, opened = 0, False
    for index, token in enumerate(items):
        kind = token.token_type.name
        if kind == "L_PAREN":
            depth, opened = depth + 1, True
        elif kind == "R_PAREN":
            depth -= 1
        elif opened and depth == 0 and token.text.upper().split()[0] in _TABLE_TAIL and index > 0:
            return text[: token.start]
    return None


def charset_tokens(items: list[Any]) -> tuple[str | None, str | None]:
    """CHARACTER SET / CHARSET and COLLATE values among tokens (`[=] value` after each)."""
    charset = collation = None
    for index, token in enumerate(items):
        word = token.text.upper()
        after = index + 1
        if word == "CHARACTER" and after < len(items) and items[after].text.upper() == "SET":
            after += 1
        elif word not in ("CHARSET", "COLLATE"):
            continue
        if after < len(items) and items[after].text == "=":
            after += 1
        if after < len(items):
            if word == "COLLATE":
                collation = items[after].text.lower()
            else:
                charset = items[after].text.lower()
    return charset, collation


def sqlglot_spellings(text: str, items: list[Any]) -> tuple[str, list[Any]]:
    """Attributes written as sqlglot reads them: MariaDB's `PERSISTENT` generated columns as `STORED`; left
    out (nothing the connector holds), MySQL 8's `SRID n` of a spatial column, NDB's `STORAGE DISK|MEMORY`
    and `COLUMN_FORMAT ...`, and an index's `USING BTREE|HASH|RTREE`."""
    edits: list[tuple[int, int, str]] = []
    for index, token in enumerate(items):
        word = token.text.upper() if token.token_type.name in ("VAR", "USING") else ""
        after = items[index + 1] if index + 1 < len(items) else None
        if word == "PERSISTENT":
            edits.append((token.start, token.end + 1, "STORED"))
        elif after is not None and (
            (word == "SRID" and after.token_type.name == "NUMBER")
            or (word == "STORAGE" and after.text.upper() in ("DISK", "MEMORY", "DEFAULT"))
            or (word == "COLUMN_FORMAT" and after.text.upper() in ("FIXED", "DYNAMIC", "DEFAULT"))
            or (word == "USING" and after.text.upper() in ("BTREE", "HASH", "RTREE"))
        ):
            edits.append((token.start, after.end + 1, ""))
    if not edits:
        return text, items
    for start, end, replacement in reversed(edits):
        text = text[:start] + replacement + text[end:]
    return text, tokens(text)


def table_id_of_tokens(items: list[Any], database: str) -> TableId:
    names = [t.text for t in items if t.token_type.name != "DOT"]
    if len(names) == 1:
        return (database, names[0])
    if len(names) == 2 and len(items) == 3:
        return (names[0], names[1])
    raise UnparseableDdlError(f"{' '.join(t.text for t in items)[:80]!r} is not a table name")
