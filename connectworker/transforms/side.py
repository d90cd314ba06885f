"""What the `$Key` and `$Value` variants of a built-in transform share: which half of the record they
work on, and Kafka's rules for the two shapes of data.

A value *with a schema* is a struct (a dict keyed by field name, under a STRUCT `Schema`); a
*schemaless* value is a dict (a Java Map) with no schema. Kafka's transforms take one or the other,
and say so when given anything else; `require_struct` and `require_map` raise `DataError` with the
transform's name and the record's topic, as Kafka's `Requirements` do.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from connectworker.api.errors import DataError
from connectworker.api.record import Headers, SourceRecord
from connectworker.api.schema import Schema, SchemaType

__all__ = [
    "Side",
    "copy_record",
    "require_map",
    "require_struct",
    "schema_of",
    "value_of",
    "with_headers",
    "with_side",
    "with_topic",
]


class Side(Enum):
    KEY = "key"
    VALUE = "value"


def value_of(record: SourceRecord, side: Side) -> Any:
    return record.key if side is Side.KEY else record.value


def schema_of(record: SourceRecord, side: Side) -> Schema | None:
    return record.key_schema if side is Side.KEY else record.value_schema


# Copies are built field by field: `dataclasses.replace` costs about 5 µs a call, which made it the
# largest single cost of a transform chain (bench/bench_transforms.py).
def with_side(record: SourceRecord, side: Side, value: Any, schema: Schema | None) -> SourceRecord:
    """A copy of `record` with its key (or value) and that half's schema replaced."""
    r = record
    if side is Side.KEY:
        return SourceRecord(
            r.source_partition,
            r.source_offset,
            r.topic,
            r.value,
            value,
            r.partition,
            r.value_schema,
            schema,
            r.timestamp,
            r.headers,
        )
    return SourceRecord(
        r.source_partition,
        r.source_offset,
        r.topic,
        value,
        r.key,
        r.partition,
        schema,
        r.key_schema,
        r.timestamp,
        r.headers,
    )


def copy_record(record: SourceRecord) -> SourceRecord:
    """A shallow copy (value, key and headers shared), for a chain step that may change it in place."""
    r = record
    return SourceRecord(
        r.source_partition,
        r.source_offset,
        r.topic,
        r.value,
        r.key,
        r.partition,
        r.value_schema,
        r.key_schema,
        r.timestamp,
        r.headers,
    )


def with_topic(record: SourceRecord, topic: str) -> SourceRecord:
    """A copy of `record` for another topic."""
    r = record
    return SourceRecord(
        r.source_partition,
        r.source_offset,
        topic,
        r.value,
        r.key,
        r.partition,
        r.value_schema,
        r.key_schema,
        r.timestamp,
        r.headers,
    )


def with_headers(record: SourceRecord, headers: Headers) -> SourceRecord:
    """A copy of `record` with other headers."""
    r = record
    return SourceRecord(
        r.source_partition,
        r.source_offset,
        r.topic,
        r.value,
        r.key,
        r.partition,
        r.value_schema,
        r.key_schema,
        r.timestamp,
        headers,
    )


def require_struct(record: SourceRecord, side: Side, purpose: str) -> tuple[dict[str, Any], Schema]:
    """The struct on `side` and its schema; `DataError` naming `purpose` for anything else."""
    value, schema = value_of(record, side), schema_of(record, side)
    if schema is None or schema.type is not SchemaType.STRUCT or not isinstance(value, dict):
        got = "no schema" if schema is None else f"a {schema.type.value} schema"
        raise DataError(
            f"Only Struct objects supported for [{purpose}], found: {_type_name(value)} with {got} "
            f"(record {side.value} on topic {record.topic!r})"
        )
    return value, schema


def require_map(record: SourceRecord, side: Side, purpose: str) -> dict[str, Any]:
    """The schemaless map on `side`; `DataError` naming `purpose` for anything else."""
    value = value_of(record, side)
    if not isinstance(value, dict):
        raise DataError(
            f"Only Map objects supported in absence of schema for [{purpose}], found: "
            f"{_type_name(value)} (record {side.value} on topic {record.topic!r})"
        )
    return value


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__
