"""`connect-kafka`: write a DataFrame to Kafka, batch or streaming, creating missing topics.

Takes Spark's Kafka-sink columns (`topic` or the option `topic`, `key`, `value`, and optionally
`partition`, `headers`, `timestamp`) and `kafka.<librdkafka key>` options, as Spark's own Kafka sink
does; missing topics are created by the same `topic.creation.*` options and rules as a connector's,
when `topic.creation.enable=true`. Rows from `connect-source` also carry their source offsets: the
writer commits them on the driver once every write task of the batch was acknowledged (see
`offset_commit.py`), to the storage named by the `offset.storage.*` options.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence

import pyarrow as pa
from pyspark.sql.datasource import (
    DataSource,
    DataSourceArrowWriter,
    DataSourceStreamArrowWriter,
    WriterCommitMessage,
)
from pyspark.sql.types import StructType

from connectworker.api.errors import ConfigError
from connectworker.runtime.offsets import FILE_KEY, TOPIC_KEY
from connectworker.spark.formats.columns import SinkColumns
from connectworker.spark.formats.kafka_writer import WRITER_NAME, KafkaRowWriter
from connectworker.spark.formats.offset_commit import SinkCommitMessage, commit_offsets
from connectworker.spark.formats.options import SinkSettings
from connectworker.topics.rule_parser import parse_topic_creation

log = logging.getLogger(__name__)


def plan_write(options: Mapping[str, str], schema: StructType) -> tuple[SinkSettings, SinkColumns]:
    """Check options and columns on the driver, before any row is written."""
    settings = SinkSettings.from_options(options)
    columns = SinkColumns.of(schema, topic_option=settings.topic)
    if columns.source and settings.offsets is None:
        raise ConfigError(
            {
                FILE_KEY: f"these rows come from connect-source and carry source offsets: give "
                f"{FILE_KEY} or {TOPIC_KEY} (the same as the source's) so they are "
                f"committed, or drop the source_offset column"
            },
            source=WRITER_NAME,
        )
    if settings.creation_enabled:
        parse_topic_creation(  # bad rules fail here
            settings.creation_props, source=WRITER_NAME, extra_configs=settings.extra_topic_configs
        )
    return settings, columns


class ConnectKafka(DataSource):
    """``df.write.format("connect-kafka")`` and ``df.writeStream.format("connect-kafka")``."""

    @classmethod
    def name(cls) -> str:
        return "connect-kafka"

    def writer(self, schema: StructType, overwrite: bool) -> KafkaBatchWriter:
        if overwrite:
            raise ConfigError("Kafka topics cannot be overwritten: use mode('append')", source=WRITER_NAME)
        return KafkaBatchWriter(*plan_write(self.options, schema))

    def streamWriter(self, schema: StructType, overwrite: bool) -> KafkaStreamWriter:
        return KafkaStreamWriter(*plan_write(self.options, schema))


class KafkaBatchWriter(DataSourceArrowWriter):
    def __init__(self, settings: SinkSettings, columns: SinkColumns) -> None:
        self._settings = settings
        self._columns = columns

    def write(self, iterator: Iterator[pa.RecordBatch]) -> SinkCommitMessage:
        return KafkaRowWriter(self._settings, self._columns).write(iterator)

    def commit(self, messages: Sequence[WriterCommitMessage | None]) -> None:
        commit_offsets(self._settings.offsets, messages, "connect-kafka batch write")

    def abort(self, messages: Sequence[WriterCommitMessage | None]) -> None:
        log.warning(
            "connect-kafka batch write aborted: rows of the successful tasks may be in Kafka; no "
            "source offsets were committed"
        )


class KafkaStreamWriter(DataSourceStreamArrowWriter):
    def __init__(self, settings: SinkSettings, columns: SinkColumns) -> None:
        self._settings = settings
        self._columns = columns

    def write(self, iterator: Iterator[pa.RecordBatch]) -> SinkCommitMessage:
        return KafkaRowWriter(self._settings, self._columns).write(iterator)

    def commit(self, messages: Sequence[WriterCommitMessage | None], batchId: int) -> None:
        commit_offsets(self._settings.offsets, messages, f"connect-kafka micro-batch {batchId}")

    def abort(self, messages: Sequence[WriterCommitMessage | None], batchId: int) -> None:
        log.warning(
            "connect-kafka micro-batch %d aborted: rows of the successful tasks may be in Kafka; "
            "no source offsets were committed, so they are delivered again",
            batchId,
        )
