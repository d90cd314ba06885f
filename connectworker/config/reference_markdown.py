"""Markdown cells and tables of the configuration reference (docs/configuration.md)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic_core import PydanticUndefined

from connectworker.api.config_def import NO_DEFAULT, config_text

__all__ = ["cell_code", "cell_default", "cell_text", "table"]

_CODE_SPAN = re.compile(r"(`[^`]*`)")


def cell_text(text: str) -> str:
    """Prose for a table cell: one line, Markdown's special characters escaped outside code spans."""
    parts = _CODE_SPAN.split(" ".join(text.split()))
    escaped = [
        part if part.startswith("`") else part.replace("*", r"\*").replace("<", "&lt;").replace(">", "&gt;")
        for part in parts
    ]
    return "".join(escaped).replace("|", r"\|")


def cell_code(value: object) -> str:
    text = str(value)
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}".replace("|", r"\|")


def cell_default(value: Any) -> str:
    if value is NO_DEFAULT or value is PydanticUndefined:
        return "*required*"
    if value is None:
        return "*none*"
    text = config_text(value)
    return cell_code(text) if text else '`""`'


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines
