"""The `hstore` extension's type as Debezium writes it, by `hstore.handling.mode`.

Debezium reads an hstore's text (``"a"=>"b", "c"=>NULL``) with pgjdbc's `HStoreConverter.fromString` into a
Java `HashMap`, and writes
- `json` (its default): string `io.debezium.data.Json`, the map as Jackson writes it (``{"a":"b","c":null}``);
- `map`: a Connect map of strings to optional strings.
The entries come in the `HashMap`'s iteration order, which is neither the text's order nor a sorted one:
`java_hash_map_order` computes it (Java's `String.hashCode`, spread and bucketed as `HashMap` does), so the
JSON text is Debezium's byte for byte.
"""

from __future__ import annotations

import re
from typing import Any

from connectworker.api.schema import Schema, SchemaType

JSON_SCHEMA = Schema(SchemaType.STRING, name="io.debezium.data.Json", version=1)
MAP_SCHEMA = Schema.map(Schema(SchemaType.STRING), Schema(SchemaType.STRING, optional=True))
_QUOTED = r'"((?:[^"\\]|\\.)*)"'
_PAIR = re.compile(rf"\s*{_QUOTED}\s*=>\s*(?:NULL|{_QUOTED})\s*(?:,|$)")
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


def _unescape(text: str) -> str:
    return _ESCAPE.sub(r"\1", text) if "\\" in text else text


def pairs(text: str) -> list[tuple[str, str | None]]:
    """The entries of an hstore's text, in the text's order."""
    out: list[tuple[str, str | None]] = []
    position = 0
    while position < len(text):
        match = _PAIR.match(text, position)
        if match is None:
            raise ValueError(f"not an hstore: {text[:80]!r}")
        key, value = match.group(1), match.group(2)
        out.append((_unescape(key), None if value is None else _unescape(value)))
        position = match.end()
    return out


def _java_string_hash(text: str) -> int:
    """Java's `String.hashCode` (over UTF-16 code units), as a signed 32-bit integer."""
    value = 0
    units = text.encode("utf-16-be")
    for i in range(0, len(units), 2):
        value = (value * 31 + (units[i] << 8 | units[i + 1])) & 0xFFFFFFFF
    return value


def java_hash_map_order(entries: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
    """`entries` put in a new `java.util.HashMap` one by one, in the order it iterates them: by bucket
    (the spread hash masked by the table's size, 16 doubled while the entries exceed three quarters of it),
    then in the order they were put."""
    latest = dict(entries)  # a key put twice keeps its first place and its last value
    capacity = 16
    while len(latest) > capacity * 3 // 4:
        capacity *= 2

    def bucket(key: str) -> int:
        code = _java_string_hash(key)
        return (code ^ (code >> 16)) & (capacity - 1)

    ordered = sorted(enumerate(latest), key=lambda item: (bucket(item[1]), item[0]))
    return [(key, latest[key]) for _, key in ordered]


def as_json(text: str) -> str:
    """`hstore.handling.mode=json`."""
    entries = java_hash_map_order(pairs(text))
    return "{" + ",".join(f"{_json(key)}:{_json(value)}" for key, value in entries) + "}"


def as_map(text: str) -> dict[str, str | None]:
    """`hstore.handling.mode=map`."""
    return dict(java_hash_map_order(pairs(text)))


_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_ESCAPED = re.compile(r'["\\\x00-\x1f]')


def _json(value: str | None) -> str:
    """A JSON string as Jackson writes it: quotes, backslashes and control characters escaped (the latter as
    ``\\u00XX`` in upper-case hex unless they have a short form), everything else as is."""
    if value is None:
        return "null"
    escaped = _ESCAPED.sub(lambda m: _SHORT_ESCAPES.get(m.group(), f"\\u{ord(m.group()):04X}"), value)
    return f'"{escaped}"'


def unavailable(placeholder: str, mode: str) -> Any:
    """Debezium's value of an unchanged TOASTed hstore: a map of the placeholder to itself."""
    return {placeholder: placeholder} if mode == "map" else "{" + f"{_json(placeholder)}:{_json(placeholder)}" + "}"
