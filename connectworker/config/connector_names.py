"""What a connector name may be, wherever the connector comes from (a file, the REST API, the store).

A name is part of REST paths, `Location` headers, log lines and producer client ids, so it must be
something every one of those can carry: at most `MAX_CONNECTOR_NAME_LENGTH` characters (249, the
bound Kafka puts on topic names), not empty or blank, no ISO control character (Kafka rejects them
too), no ``/`` (it would split the REST path), and valid Unicode (no lone surrogate, which a JSON
``\\ud800`` escape can produce but UTF-8 cannot encode).
"""

from __future__ import annotations

from typing import Any

MAX_CONNECTOR_NAME_LENGTH = 249
SHOWN_NAME_LENGTH = 60


def _is_iso_control(char: str) -> bool:
    """Java's `Character.isISOControl`: U+0000..U+001F and U+007F..U+009F."""
    code = ord(char)
    return code <= 0x1F or 0x7F <= code <= 0x9F


def connector_name_problem(name: str) -> str | None:
    """Why `name` cannot name a connector (a sentence starting with "Connector name"), or None."""
    if not name.strip():
        return "Connector name must not be empty or whitespace only"
    if len(name) > MAX_CONNECTOR_NAME_LENGTH:
        return f"Connector name must be at most {MAX_CONNECTOR_NAME_LENGTH} characters; it has {len(name)}"
    control = next(((i, c) for i, c in enumerate(name) if _is_iso_control(c)), None)
    if control is not None:
        index, char = control
        return (f"Connector name must not contain ISO control characters; it has U+{ord(char):04X} at "
                f"position {index + 1}")
    if "/" in name:
        return "Connector name must not contain '/'"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate, from a JSON escape such as "\ud800"
        return f"Connector name must be valid Unicode text; it has a lone surrogate at position {exc.start + 1}"
    return None


def valid_connector_name(key: str, value: Any) -> None:
    """The `name` key's validator (see `Validator` in connectworker.api.config_def)."""
    if value is None:
        return
    problem = connector_name_problem(str(value))
    if problem is not None:
        raise ValueError(problem)


def shown_name(name: str) -> str:
    """`name` quoted for a message, shortened when it is too long to be read (or to be logged whole)."""
    if len(name) <= SHOWN_NAME_LENGTH:
        return repr(name)
    return f"{name[:SHOWN_NAME_LENGTH]!r}… ({len(name)} characters)"
