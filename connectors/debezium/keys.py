"""The checks of the keys Debezium's connectors share (`topic.prefix`, the include / exclude lists,
`message.key.columns`, `skipped.operations`), each a `ConfigDef` validator raising a ValueError that says
what is allowed, and the values of the shared type keys."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Any

DECIMAL_MODES = ("precise", "double", "string")
BINARY_MODES = ("bytes", "base64", "base64-url-safe", "hex")
OPERATIONS = ("c", "u", "d", "t")  # create, update, delete, truncate: Debezium's `op` codes


def required_text(key: str, value: Any) -> None:
    if value is None or not str(value).strip():
        raise ValueError("must be set")


def topic_prefix(key: str, value: Any) -> None:
    if not re.fullmatch(r"[a-zA-Z0-9._-]+", str(value or "")):
        raise ValueError("must be set, with ASCII letters, digits, '.', '_' and '-' only (it begins topic names)")


def regex_list(key: str, value: Any) -> None:
    for pattern in value or []:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from None


def operations(key: str, value: Any) -> None:
    """skipped.operations: a list of c, u, d, t, or `none` alone."""
    items = [v.strip().lower() for v in value or []]
    if items == ["none"]:
        return
    wrong = [v for v in items if v not in OPERATIONS]
    if wrong:
        raise ValueError(f"Value must be a list of {', '.join(OPERATIONS)}, or none; got {', '.join(wrong)}")


def skipped_operations(value: list[str] | None) -> frozenset[str]:
    """The operations a valid skipped.operations leaves out (`none`: none)."""
    return frozenset(v.strip().lower() for v in value or []) - {"none"}


def parse_message_key_columns(value: str) -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    """message.key.columns as (table regex, key columns) pairs, in order."""
    pairs = []
    for entry in filter(None, (part.strip() for part in (value or "").split(";"))):
        pattern, colon, columns = entry.rpartition(":")
        names = tuple(filter(None, (name.strip() for name in columns.split(","))))
        if not colon or not pattern.strip() or not names:
            raise ValueError(f"{entry!r} is not <table regex>:<column>[,<column>...]")
        try:
            pairs.append((re.compile(pattern.strip()), names))
        except re.error as exc:
            raise ValueError(f"{pattern.strip()!r} is not a valid regular expression: {exc}") from None
    return tuple(pairs)


def message_key_columns(key: str, value: Any) -> None:
    parse_message_key_columns(value)


def listed_keys(props: Iterable[str], listed: Collection[str], declared: Collection[str]) -> list[str]:
    """The keys of `props` that `listed` names (exactly, or by a prefix ending in '.') and the connector does
    not declare, sorted: a connector's list of Debezium keys it does not implement."""
    return sorted(
        key
        for key in props
        if key not in declared and any(key == k or (k.endswith(".") and key.startswith(k)) for k in listed)
    )
