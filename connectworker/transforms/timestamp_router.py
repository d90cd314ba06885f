"""`TimestampRouter`: the topic becomes a function of the topic and the record's timestamp.

Kafka's keys: `topic.format` (default ``${topic}-${timestamp}``) and `timestamp.format` (default
``yyyyMMdd``, a `java.text.SimpleDateFormat` pattern, formatted in UTC; see `java_date_format`). Every
``${topic}`` of the format is replaced by the topic first, then every ``${timestamp}`` by the formatted
timestamp, as Kafka does. A record without a timestamp is a `DataError`.

The pattern is checked when the configuration is validated, so a letter Java would refuse is reported
against `timestamp.format` rather than when the first record arrives.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance
from connectworker.api.errors import DataError
from connectworker.api.record import SourceRecord
from connectworker.api.transform import Transformation
from connectworker.converters.java_date_format import JavaDateFormat, TimestampOutOfRange
from connectworker.transforms.side import with_topic

__all__ = ["TimestampRouter"]

TOPIC_FORMAT_CONFIG = "topic.format"
TIMESTAMP_FORMAT_CONFIG = "timestamp.format"
_TOPIC, _TIMESTAMP = "${topic}", "${timestamp}"


def _valid_date_format(key: str, value: Any) -> None:
    if value is not None:
        JavaDateFormat.compile(value)  # its ValueError says what is wrong


class TimestampRouter(Transformation):
    """Update the record's topic as a function of the original topic and the record timestamp."""

    def __init__(self) -> None:
        self._topic_format = f"{_TOPIC}-{_TIMESTAMP}"
        self._timestamp_format = JavaDateFormat.compile("yyyyMMdd")

    def config_def(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(
                TOPIC_FORMAT_CONFIG,
                ConfigType.STRING,
                f"{_TOPIC}-{_TIMESTAMP}",
                importance=Importance.HIGH,
                documentation="Format string which can contain ${topic} and ${timestamp} as placeholders "
                "for the topic and timestamp, respectively.",
            )
            .define(
                TIMESTAMP_FORMAT_CONFIG,
                ConfigType.STRING,
                "yyyyMMdd",
                validator=_valid_date_format,
                importance=Importance.HIGH,
                documentation="Format string for the timestamp that is compatible with "
                "java.text.SimpleDateFormat (formatted in UTC).",
            )
        )

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        self._topic_format = config[TOPIC_FORMAT_CONFIG]
        self._timestamp_format = JavaDateFormat.compile(config[TIMESTAMP_FORMAT_CONFIG])

    def apply(self, record: SourceRecord) -> SourceRecord:
        if record.timestamp is None:
            # Kafka prints the whole record; the key and value are left out here, as they may be large or
            # sensitive and do not help find the record.
            raise DataError(
                f"Timestamp missing on record: topic={record.topic!r}, partition={record.partition}, "
                f"source_partition={record.source_partition}, source_offset={record.source_offset}"
            )
        try:
            formatted = self._timestamp_format.format(record.timestamp)
        except TimestampOutOfRange as exc:
            raise DataError(
                f"Cannot format the timestamp of a record on topic {record.topic!r} with "
                f"{TIMESTAMP_FORMAT_CONFIG}={self._timestamp_format.pattern!r}: {exc}"
            ) from None
        topic = self._topic_format.replace(_TOPIC, record.topic).replace(_TIMESTAMP, formatted)
        return with_topic(record, topic)
