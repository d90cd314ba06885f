"""`StringConverter` (Kafka's `org.apache.kafka.connect.storage.StringConverter`)."""

from __future__ import annotations

import codecs
from collections.abc import Mapping, Sequence
from typing import Any

from connectworker.api.errors import ConfigError, DataError
from connectworker.api.schema import OPTIONAL_STRING_SCHEMA, Schema
from connectworker.converters.base import Converter
from connectworker.converters.java_text import java_to_string

ENCODING_CONFIG = "converter.encoding"
DEFAULT_ENCODING = "UTF-8"


class StringConverter(Converter):
    """Writes values as text: `str` is encoded, `bytes` pass through, anything else is written as Java's
    `toString()` writes it (`java_text`: ``true``, ``1.0E10``, ``[a, b]``), as Kafka's does.

    Reading always yields an optional string schema, as in Kafka. The schema given when writing is ignored.
    """

    def __init__(self) -> None:
        self.encoding = DEFAULT_ENCODING

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        self.is_key = is_key
        encoding = str(configs.get(ENCODING_CONFIG, DEFAULT_ENCODING)).strip()
        try:
            codecs.lookup(encoding)
        except LookupError:
            raise ConfigError({ENCODING_CONFIG: f"Unknown character encoding '{encoding}'"}) from None
        # CPython encodes fastest when it meets the canonical spelling of the codec's name.
        self.encoding = self.str_encoding = codecs.lookup(encoding).name

    def from_connect_data(self, topic: str, schema: Schema | None, value: Any) -> bytes | None:
        if type(value) is str:  # the hot path: one type check, one encode
            try:
                return value.encode(self.encoding)
            except UnicodeEncodeError as exc:
                raise self._error(topic, f"the text cannot be encoded as {self.encoding}: {exc}") from exc
        if value is None:
            return None
        if isinstance(value, bytes | bytearray | memoryview):
            return bytes(value)
        try:
            text = value if isinstance(value, str) else java_to_string(value, schema)
        except DataError as exc:
            raise self._error(topic, str(exc)) from None
        try:
            return text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            raise self._error(topic, f"the text cannot be encoded as {self.encoding}: {exc}") from exc

    def from_connect_values(
        self, topics: Sequence[str], schemas: Sequence[Schema | None], values: Sequence[Any]
    ) -> list[bytes | None]:
        """A poll's keys (or values) at once. Records without a key are common (a null key spreads them
        over the partitions): a column of nulls is told by one C count, not a method call per record."""
        if isinstance(values, list) and values.count(None) == len(values):
            return [None] * len(values)
        return super().from_connect_values(topics, schemas, values)

    def to_connect_data(self, topic: str, data: bytes | None) -> tuple[Schema | None, Any]:
        if data is None:
            return OPTIONAL_STRING_SCHEMA, None
        try:
            return OPTIONAL_STRING_SCHEMA, bytes(data).decode(self.encoding)
        except UnicodeDecodeError as exc:
            raise self._error(topic, f"the bytes are not valid {self.encoding}: {exc}") from exc
