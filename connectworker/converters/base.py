"""The converter contract (Kafka Connect's `org.apache.kafka.connect.storage.Converter`).

A converter turns the (schema, value) pair a source task produced into the bytes written to Kafka, and
back. The worker keeps one key converter and one value converter per task.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from typing import Any

from connectworker.api.config_def import ConfigType, read_config
from connectworker.api.errors import ConnectError
from connectworker.api.schema import Schema


class ConversionError(ConnectError):
    """A key or value could not be converted (Kafka Connect's `DataException`).

    `topic` is the record's topic and `field` the dotted path of the offending field when one is known;
    `problem` is what was wrong, without the converter's and the record's names.
    """

    def __init__(self, message: str, *, topic: str, field: str | None = None, problem: str | None = None) -> None:
        super().__init__(message)
        self.topic = topic
        self.field = field
        self.problem = message if problem is None else problem


class Converter(ABC):
    """Converts between Connect data (a `Schema` and a plain Python value) and Kafka bytes."""

    is_key: bool = False
    str_encoding: str | None = None
    """Set by converters that turn every `str` value into `value.encode(str_encoding)`, whatever the
    topic and schema: the worker then encodes such values inline and skips the method call, a
    measurable share of the per-record cost. Other values still go through `from_connect_data`."""

    @abstractmethod
    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        """Apply the converter's own settings (the `key.converter.*` / `value.converter.*` sub-keys)."""

    @abstractmethod
    def from_connect_data(self, topic: str, schema: Schema | None, value: Any) -> bytes | None:
        """Serialise a key or value for `topic`; `None` means a Kafka null (e.g. a tombstone)."""

    def from_connect_values(
        self, topics: Sequence[str], schemas: Sequence[Schema | None], values: Sequence[Any]
    ) -> list[bytes | None]:
        """Serialise one poll's keys (or values) at once: item *i* is `from_connect_data(topics[i],
        schemas[i], values[i])`. The worker calls this for every poll; raising means "convert them one by
        one" (the worker then calls `from_connect_data` for each, so that the error names the record and
        `errors.tolerance` applies). Converters override it when they can do a whole poll faster."""
        return list(map(self.from_connect_data, topics, schemas, values))

    @abstractmethod
    def to_connect_data(self, topic: str, data: bytes | None) -> tuple[Schema | None, Any]:
        """Deserialise bytes read from `topic` back into a schema and a value."""

    def close(self) -> None:
        """Release what `configure` acquired (connections, clients). Most converters hold nothing."""

    def _error(self, topic: str, problem: str, *, field: str | None = None) -> ConversionError:
        """A `ConversionError` whose message names the converter, the key/value side and the topic."""
        side = "key" if self.is_key else "value"
        return ConversionError(
            f"{type(self).__name__} could not convert the record {side} for topic '{topic}': {problem}",
            topic=topic,
            field=field,
            problem=problem,
        )


def config_bool(configs: Mapping[str, Any], key: str, default: bool) -> bool:
    """Read a boolean setting the way Kafka's ConfigDef does: `true`/`false`, any case, trimmed."""
    value: bool = read_config(configs, key, ConfigType.BOOLEAN, default)
    return value


def config_int(configs: Mapping[str, Any], key: str, default: int, *, minimum: int = 0) -> int:
    """Read an integer setting, rejecting values below `minimum`."""
    value: int = read_config(configs, key, ConfigType.INT, default, minimum=minimum)
    return value
