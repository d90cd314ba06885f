"""The standard library's C JSON encoder, made once instead of once per value.

`json.JSONEncoder.encode` builds a new C encoder, a closure and a table of the containers being written
(to detect cycles) on every call: for a small record value that is about 40 % of the cost. `CompactJson`
writes exactly what `encoder.encode` writes (same separators, escaping, `allow_nan` and `default`)
through one C encoder made up front, without the cycle table: a circular value then raises
`RecursionError` instead of `ValueError`, which callers treat as "ask the checking encoder why".
`many` encodes a whole list in C loops, with no Python call per value. Where the C encoder is missing
(Pythons other than CPython) or the encoder indents, both fall back to `encoder.encode`.

`native_dumps` (pydantic-core's serializer, which pydantic brings) writes UTF-8 bytes about twice as
fast, and byte for byte as `CompactJson` over a compact, `ensure_ascii=False` encoder followed by
`str.encode` does for exact `dict` (`str` keys), `list`, `str`, `int`, `bool` and None: the same escapes
(quote, backslash, `\\n`-style or `\\u00XX` escapes for control characters, everything else raw), the same integers,
and text holding a lone surrogate raises in both. It differs for floats (NaN, exponents), a None key,
`bytes`, tuples and subclasses; `writes_alike` names the schemas whose encoded values never hold those
(tests/unit/test_fast_json.py holds it to that).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from itertools import repeat
from json import encoder as _stdlib
from typing import Any

from pydantic_core import to_json as native_dumps

from connectworker.api.schema import Schema, SchemaType

__all__ = ["CompactJson", "native_dumps", "writes_alike"]


class CompactJson:
    def __init__(self, encoder: json.JSONEncoder) -> None:
        make: Callable[..., Callable[[Any, int], Sequence[str]]] | None = getattr(_stdlib, "c_make_encoder", None)
        self._encode = encoder.encode
        self._c: Callable[[Any, int], Sequence[str]] | None = None
        if make is not None and encoder.indent is None:
            escape = _stdlib.encode_basestring_ascii if encoder.ensure_ascii else _stdlib.encode_basestring
            self._c = make(
                None,
                encoder.default,
                escape,
                None,
                encoder.key_separator,
                encoder.item_separator,
                encoder.sort_keys,
                encoder.skipkeys,
                encoder.allow_nan,
            )

    def one(self, value: Any) -> str:
        """`value` as JSON text."""
        if self._c is None:
            return self._encode(value)
        return "".join(self._c(value, 0))

    def many(self, values: Sequence[Any]) -> list[str]:
        """Each of `values` as JSON text."""
        if self._c is None:
            return list(map(self._encode, values))
        return list(map("".join, map(self._c, values, repeat(0, len(values)))))


def writes_alike(schema: Schema) -> bool:
    """Whether `native_dumps` writes the plain form of every value of `schema` exactly as `CompactJson`
    does: the schema encoders (encoding.py, JSON dialect) make exact dicts, lists, strings, ints, bools
    and None of everything but floats, and a map keyed by an optional string may hold a None key."""
    kind = schema.type
    if kind is SchemaType.FLOAT32 or kind is SchemaType.FLOAT64:
        return False
    if kind is SchemaType.STRUCT:
        return all(writes_alike(field.schema) for field in schema.fields)
    if kind is SchemaType.ARRAY:
        return schema.value_schema is not None and writes_alike(schema.value_schema)
    if kind is SchemaType.MAP:
        keys, values = schema.key_schema, schema.value_schema
        if keys is None or values is None or keys.optional:
            return False
        return writes_alike(keys) and writes_alike(values)
    return True
