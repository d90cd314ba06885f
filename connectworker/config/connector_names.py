"""What a connector name may be, wherever the connector comes from (a file, the REST API, the store).

A name is part of REST paths, `Location` headers, log lines and producer client ids, so it must be
something every one of those can carry: at most `MAX_CONNECTOR_NAME_LENGTH` characters (249, the
bound Kafka puts on topic names), not empty or blank, no ISO control character (Kafka rejects them
too), no ``/`` (it would split the REST path), not ``.`` or ``..`` once percent-decoded, and valid
Unicode (no lone surrogate, which a JSON ``\\ud800`` escape can produce but UTF-8 cannot encode).

Why the dot rule decodes: ``/connectors/..`` is a dot segment, which URL parsers (RFC 3986, WHATWG) and
so every HTTP client remove before the request is sent, and WHATWG parsers treat ``%2e`` as ``.`` in a
segment; a server, a proxy or a client library that decodes once more turns ``%252e%252e`` into the same
thing. A name that decodes to ``.`` or ``..`` after any number of rounds could be created but never read,
changed or deleted by name, so it is refused; one round more than a sane stack applies costs nothing.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

MAX_CONNECTOR_NAME_LENGTH = 249
SHOWN_NAME_LENGTH = 60
DOT_SEGMENTS = (".", "..")


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
        return (
            f"Connector name must not contain ISO control characters; it has U+{ord(char):04X} at position {index + 1}"
        )
    if "/" in name:
        return "Connector name must not contain '/'"
    if (decoded := _fully_decoded(name)) in DOT_SEGMENTS:
        shown = shown_name(name) if name == decoded else f"{shown_name(name)} (it decodes to '{decoded}')"
        return f"Connector name {shown} is illegal, it cannot be '.' or '..': a URL path drops such a segment"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate, from a JSON escape such as "\ud800"
        return f"Connector name must be valid Unicode text; it has a lone surrogate at position {exc.start + 1}"
    return None


def _fully_decoded(name: str) -> str:
    """`name` percent-decoded until decoding changes nothing more (each round shortens a name that
    changes, so this ends)."""
    decoded = unquote(name, errors="surrogateescape")
    while decoded != name:
        name, decoded = decoded, unquote(decoded, errors="surrogateescape")
    return decoded


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
