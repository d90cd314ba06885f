"""`ByteArrayConverter` (Kafka's `org.apache.kafka.connect.converters.ByteArrayConverter`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connectworker.api.schema import OPTIONAL_BYTES_SCHEMA, Schema, SchemaType
from connectworker.converters.base import Converter


class ByteArrayConverter(Converter):
    """Passes raw bytes through untouched; any other value is an error, as in Kafka."""

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        self.is_key = is_key

    def from_connect_data(self, topic: str, schema: Schema | None, value: Any) -> bytes | None:
        if schema is not None and schema.type is not SchemaType.BYTES:
            raise self._error(topic, f"Invalid schema type for ByteArrayConverter: {schema.type.name}")
        if value is None:
            return None
        if isinstance(value, bytes):
            return value
        if isinstance(value, bytearray | memoryview):
            return bytes(value)
        raise self._error(
            topic, f"ByteArrayConverter is not compatible with objects of type {type(value).__qualname__}"
        )

    def to_connect_data(self, topic: str, data: bytes | None) -> tuple[Schema | None, Any]:
        return OPTIONAL_BYTES_SCHEMA, None if data is None else bytes(data)
