"""Schemas for record keys and values, the subset of Kafka Connect's `Schema` the converters need."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any


class SchemaType(StrEnum):
    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT32 = "float"
    FLOAT64 = "double"
    BOOLEAN = "boolean"
    STRING = "string"
    BYTES = "bytes"
    ARRAY = "array"
    MAP = "map"
    STRUCT = "struct"


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    schema: Schema


@dataclass(frozen=True, slots=True)
class Schema:
    """A Connect schema. Struct values are plain dicts keyed by field name."""

    type: SchemaType
    optional: bool = False
    name: str | None = None
    version: int | None = None
    doc: str | None = None
    fields: tuple[Field, ...] = field(default_factory=tuple)
    key_schema: Schema | None = None
    value_schema: Schema | None = None
    parameters: tuple[tuple[str, str], ...] = ()  # Connect's schema parameters, in order (Decimal's `scale`)

    def as_optional(self) -> Schema:
        return replace(self, optional=True)

    @staticmethod
    def struct(name: str | None, *fields: tuple[str, Schema], optional: bool = False) -> Schema:
        return Schema(SchemaType.STRUCT, optional, name, fields=tuple(Field(n, s) for n, s in fields))

    @staticmethod
    def array(items: Schema, optional: bool = False) -> Schema:
        return Schema(SchemaType.ARRAY, optional, value_schema=items)

    @staticmethod
    def map(keys: Schema, values: Schema, optional: bool = False) -> Schema:
        return Schema(SchemaType.MAP, optional, key_schema=keys, value_schema=values)


STRING_SCHEMA = Schema(SchemaType.STRING)
OPTIONAL_STRING_SCHEMA = Schema(SchemaType.STRING, optional=True)
BYTES_SCHEMA = Schema(SchemaType.BYTES)
OPTIONAL_BYTES_SCHEMA = Schema(SchemaType.BYTES, optional=True)
INT32_SCHEMA = Schema(SchemaType.INT32)
INT64_SCHEMA = Schema(SchemaType.INT64)
FLOAT64_SCHEMA = Schema(SchemaType.FLOAT64)
BOOLEAN_SCHEMA = Schema(SchemaType.BOOLEAN)


@dataclass(frozen=True, slots=True)
class SchemaAndValue:
    """A value with the schema that describes it (Kafka Connect's `SchemaAndValue`).

    Record headers take one where the schema matters to the header converter: a float32, an int8, a
    struct, a Date/Time/Timestamp, or any value a schema-writing converter (JsonConverter with
    `schemas.enable`) should describe. A plain value in a header is schemaless, as Kafka's
    `headers.add(key, value, null)`."""

    schema: Schema | None
    value: Any
