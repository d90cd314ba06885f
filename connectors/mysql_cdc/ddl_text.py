"""A DDL statement's text as the server ran it, before it is parsed: MySQL's and MariaDB's executable
comments unwrapped, and its tokens (sqlglot's MySQL tokenizer) where a statement is read token by token.

`/*!50100 PARTITION BY ... */` (MySQL, run by servers from that version on) and `/*M!100100 ... */`
(MariaDB only) are comments to any other SQL reader, but their text is part of the statement the server
ran: `SHOW CREATE TABLE` and mysqldump write table options, partitioning and character sets in them, and
sqlglot (as any SQL parser) would drop them. As Debezium's grammar does, their text is kept whatever the
version; the comment markers become spaces. Ordinary comments, quoted strings and quoted names are left
as they are.
"""

from __future__ import annotations

import re
from typing import Any

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
    """sqlglot's MySQL tokens of `text` (raises sqlglot's TokenError)."""
    from .ddl_dialect import BinlogMySql

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
