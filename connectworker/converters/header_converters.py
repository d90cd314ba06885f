"""Header converters (Kafka Connect's `org.apache.kafka.connect.storage.HeaderConverter`): what turns a
record header's value, and its schema if the task gave one, into the bytes Kafka stores.

- `SimpleHeaderConverter`, Kafka's default: the value as text, as Kafka's `Values.convertToString`
  writes it (`values_text`), UTF-8 encoded; null stays null. No schema is written.
- `StringConverter`, `ByteArrayConverter` and `JsonConverter` write a header as they write a record
  value, as in Kafka (whose three implement both interfaces): `ConverterHeaders` adapts them.
- A Python class: subclass `HeaderConverter`.

The worker only writes headers (it runs source connectors), so the contract is the writing half of
Kafka's. A converter that declares `str_encoding` has its plain `str` values encoded inline by the
worker, without a call.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from connectworker.api.errors import DataError
from connectworker.api.schema import Schema
from connectworker.converters.base import ConversionError, Converter
from connectworker.converters.values_text import value_text

__all__ = ["ConverterHeaders", "HeaderConverter", "SimpleHeaderConverter", "header_error"]


class HeaderConverter(ABC):
    """Converts one header value (Connect data: a schema, or None, and a value) into Kafka bytes."""

    str_encoding: str | None = None
    """Set by converters that write every plain `str` value as `value.encode(str_encoding)`: the worker
    then encodes such values itself, skipping the call."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        """Apply the converter's own settings (the `header.converter.*` sub-keys, without the prefix)."""

    @abstractmethod
    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        """Serialise the value of header `header_key` of a record for `topic`; None is a null header."""

    def close(self) -> None:
        """Release what `configure` acquired."""


def header_error(converter: object, topic: str, header_key: str, problem: str) -> ConversionError:
    """A `ConversionError` naming the converter, the header and the topic."""
    return ConversionError(
        f"{type(converter).__name__} could not convert header '{header_key}' of a record for "
        f"topic '{topic}': {problem}",
        topic=topic,
        problem=problem,
    )


class SimpleHeaderConverter(HeaderConverter):
    """Kafka's default header converter: header values as text (numbers as Java prints them, bytes in
    base64, dates in ISO 8601, lists, maps and structs in Kafka's JSON-like form)."""

    str_encoding = "utf-8"

    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        if value is None:
            return None
        try:
            text = value_text(value, schema)
        except DataError as exc:
            raise header_error(self, topic, header_key, str(exc)) from None
        assert text is not None  # only a null value has no text
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError as exc:  # a lone surrogate in a str
            raise header_error(self, topic, header_key, f"the text is not valid Unicode: {exc}") from None


class ConverterHeaders(HeaderConverter):
    """A record converter used for headers: each header value is written as the converter writes a
    record value (Kafka's `StringConverter`, `ByteArrayConverter` and `JsonConverter` do the same)."""

    def __init__(self, converter: Converter) -> None:
        self.converter = converter
        self.str_encoding = converter.str_encoding

    def configure(self, configs: Mapping[str, Any]) -> None:
        # Kafka hands a converter used for headers `converter.type=header`; none of ours reads it.
        self.converter.configure(configs, False)
        self.str_encoding = self.converter.str_encoding

    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        try:
            return self.converter.from_connect_data(topic, schema, value)
        except ConversionError as exc:
            raise header_error(self.converter, topic, header_key, exc.problem) from None

    def close(self) -> None:
        self.converter.close()
