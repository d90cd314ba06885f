"""Debezium's change event envelope as its transforms read it: a value whose schema is named
`<something>.Envelope` (Debezium's `SmtManager.isValidEnvelope`), with `before`, `after`, `source`, `op`,
`ts_ms` and, in streaming, `transaction`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from connectworker.api.schema import Schema

__all__ = [
    "AFTER",
    "BEFORE",
    "ENVELOPE_SUFFIX",
    "OP",
    "SOURCE",
    "TRANSACTION",
    "TS_MS",
    "EnvelopePlans",
    "field_schema",
    "is_envelope",
]

ENVELOPE_SUFFIX = ".Envelope"
BEFORE, AFTER, SOURCE, OP, TS_MS, TRANSACTION = "before", "after", "source", "op", "ts_ms", "transaction"

T = TypeVar("T")


def is_envelope(schema: Schema | None) -> bool:
    """Whether `schema` is a change event's: named `….Envelope`, as Debezium tells them from heartbeats,
    schema changes and other records, which its transforms pass unchanged."""
    return schema is not None and schema.name is not None and schema.name.endswith(ENVELOPE_SUFFIX)


def field_schema(schema: Schema | None, name: str) -> Schema | None:
    """The schema of struct `schema`'s field `name`, None when it has no such field."""
    if schema is None:
        return None
    for field in schema.fields:
        if field.name == name:
            return field.schema
    return None


class EnvelopePlans(Generic[T]):
    """What a transform derives from each value schema it meets (None: not an envelope), built once.

    A connector reuses one `Schema` object per table, so a lookup by identity finds it in one dict access
    per record; the entry holds the schema, which keeps its id from being reused while it is cached."""

    def __init__(self, build: Callable[[Schema], T | None], max_size: int = 256) -> None:
        self._build = build
        self._max_size = max_size
        self._by_id: dict[int, tuple[Schema, T | None]] = {}

    def get(self, schema: Schema) -> T | None:
        hit = self._by_id.get(id(schema))
        if hit is not None and hit[0] is schema:
            return hit[1]
        built = self._build(schema) if is_envelope(schema) else None
        if len(self._by_id) >= self._max_size:
            self._by_id.clear()
        self._by_id[id(schema)] = (schema, built)
        return built
