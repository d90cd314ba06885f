"""One connector task for one micro-batch, in an executor's Python worker process.

The driver plans a `TaskPartition` per task, carrying the task's config and the connector's
committed offsets read on the driver (executors never read the offset store). Here the task is
created, started with an offset reader over those offsets (so it resumes exactly after the last
acknowledged record), polled until the micro-batch's record or time bound, and stopped. Between a
poll and its rows, the poll's new topics go through topic creation with *this* task instance, so its
`settings_for_new_topic` applies as in standalone mode. Keys and values leave here serialised by the
connector's converters, as Arrow record batches.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Collection, Iterator, Mapping
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import InputPartition

from connectworker.api.record import SourceOffset, SourcePartition, SourceRecord, SourceRecordBatch
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import JSON_CONVERTER
from connectworker.converters.base import Converter
from connectworker.converters.registry import resolve_converter
from connectworker.plugins import add_plugin_paths
from connectworker.runtime.offset_store import partition_key
from connectworker.spark.columns import HEADER_TYPE, SOURCE_ARROW_SCHEMA
from connectworker.spark.options import SourceSettings
from connectworker.spark.topic_gates import creation_service, topic_gate

log = logging.getLogger(__name__)


class TaskPartition(InputPartition):
    """Spark's input partition for one task of one micro-batch."""

    def __init__(self, batch: int, task_id: int, props: Mapping[str, str],
                 offsets: Mapping[str, Any]) -> None:
        super().__init__(task_id)
        self.batch = batch
        self.task_id = task_id
        self.props = dict(props)
        self.offsets = dict(offsets)  # the connector's committed offsets, by canonical partition JSON


class CommittedOffsetsReader:
    """The task's `offset_storage_reader`: the offsets the driver read for this micro-batch."""

    def __init__(self, offsets: Mapping[str, Any]) -> None:
        self._offsets = offsets

    def offset(self, partition: SourcePartition) -> SourceOffset | None:
        return self._offsets.get(partition_key(partition))

    def offsets(self, partitions: Collection[SourcePartition]) -> dict[str, SourceOffset | None]:
        return {partition_key(p): self._offsets.get(partition_key(p)) for p in partitions}


class SparkTaskContext:
    def __init__(self, offsets: Mapping[str, Any], props: Mapping[str, str]) -> None:
        self._reader = CommittedOffsetsReader(offsets)
        self._props = dict(props)

    @property
    def offset_storage_reader(self) -> CommittedOffsetsReader:
        return self._reader

    def configs(self) -> Mapping[str, str]:
        return self._props


class RowBuilder:
    """Turns the records of one poll into an Arrow batch of `connect-source` rows."""

    def __init__(self, connector: str, task_id: int, key_converter: Converter,
                 value_converter: Converter) -> None:
        self._connector = connector
        self._task_id = task_id
        self._key = key_converter.from_connect_data
        self._value = value_converter.from_connect_data
        self._last_partition: SourcePartition | None = None
        self._last_key: str | None = None

    def _partition_key(self, partition: SourcePartition | None) -> str | None:
        if partition is None:
            return None
        # Connectors usually reuse one partition dict: serialise it once, not per record.
        if partition is not self._last_partition:
            self._last_partition, self._last_key = partition, partition_key(partition)
        return self._last_key

    def build(self, records: list[SourceRecord], first_index: int) -> pa.RecordBatch:
        # One comprehension per column: cheaper than one loop appending to eleven lists.
        n = len(records)
        key, value, partition_key_of, dumps = self._key, self._value, self._partition_key, json.dumps
        headers = ([_headers(r.headers) for r in records] if any(r.headers for r in records)
                   else [[]] * n)
        columns = [
            pa.array([r.topic for r in records], pa.string()),
            pa.array([key(r.topic, r.key_schema, r.key) for r in records], pa.binary()),
            pa.array([value(r.topic, r.value_schema, r.value) for r in records], pa.binary()),
            pa.array([r.partition for r in records], pa.int32()),
            pa.array(headers, HEADER_TYPE),
            pa.array([None if (ts := r.timestamp) is None else ts * 1000 for r in records],
                     pa.timestamp("us", tz="UTC")),
            pa.array([self._connector] * n, pa.string()),
            pa.array([self._task_id] * n, pa.int32()),
            pa.array([partition_key_of(r.source_partition) for r in records], pa.string()),
            pa.array([None if (o := r.source_offset) is None else dumps(o) for r in records], pa.string()),
            pa.array(range(first_index, first_index + n), pa.int64()),
        ]
        return pa.RecordBatch.from_arrays(columns, schema=SOURCE_ARROW_SCHEMA)


    def build_columns(self, batch: SourceRecordBatch, first_index: int) -> pa.RecordBatch:
        """Rows of a columnar poll: converted column by column, without a record object per row.

        Only the last row carries the batch's offset: the sink commits the newest offset per source
        partition, so earlier rows' offsets would never be used.
        """
        n = len(batch)
        key, value, topics = self._key, self._value, batch.topics
        key_schema, value_schema = batch.key_schema, batch.value_schema
        newest = batch.newest_offset()
        offsets: list[str | None] = [None] * n
        if n and newest is not None:
            offsets[-1] = json.dumps(newest)
        columns = [
            pa.array(topics, pa.string()),
            pa.array([key(t, key_schema, k) for t, k in zip(topics, batch.keys, strict=True)], pa.binary()),
            pa.array([value(t, value_schema, v) for t, v in zip(topics, batch.values, strict=True)], pa.binary()),
            pa.nulls(n, pa.int32()),
            pa.array([[]] * n, HEADER_TYPE),
            pa.nulls(n, pa.timestamp("us", tz="UTC")),
            pa.array([self._connector] * n, pa.string()),
            pa.array([self._task_id] * n, pa.int32()),
            pa.array([self._partition_key(batch.source_partition)] * n, pa.string()),
            pa.array(offsets, pa.string()),
            pa.array(range(first_index, first_index + n), pa.int64()),
        ]
        return pa.RecordBatch.from_arrays(columns, schema=SOURCE_ARROW_SCHEMA)


def _headers(headers: list[tuple[str, bytes | str | None]]) -> list[dict[str, str | bytes | None]]:
    return [{"key": k, "value": v.encode() if isinstance(v, str) else v} for k, v in headers]


def poll_task(settings: SourceSettings, part: TaskPartition) -> Iterator[pa.RecordBatch]:
    """Run the task of `part` for one micro-batch; yields one Arrow batch per non-empty poll."""
    add_plugin_paths(settings.plugin_path)
    config = parse_connector_config(settings.connector, source="connect-source options")
    name = f"{config.name}-{part.task_id}"
    key_converter = resolve_converter("key.converter", config.props, {}, default=JSON_CONVERTER)
    value_converter = resolve_converter("value.converter", config.props, {}, default=JSON_CONVERTER)
    service = creation_service(settings.kafka, enabled=settings.creation_enabled,
                               timeout_ms=settings.creation_timeout_ms)
    gate = topic_gate(service, config.name, config.props)
    rows = RowBuilder(config.name, part.task_id, key_converter, value_converter)
    task = config.connector_class().task_class()()
    task.initialize(SparkTaskContext(part.offsets, part.props))
    task.start(part.props)
    emitted = 0
    ready: set[str] = set()
    try:
        deadline = time.monotonic() + settings.max_ms / 1000
        while emitted < settings.max_records and time.monotonic() < deadline:
            records = task.poll()
            if not records:
                continue
            topics = set(records.topics) if isinstance(records, SourceRecordBatch) else {r.topic for r in records}
            if not topics <= ready:
                gate.ensure(topics - ready, task, name)
                ready |= topics
            if isinstance(records, SourceRecordBatch):
                yield rows.build_columns(records, emitted)
            else:
                yield rows.build(records, emitted)
            emitted += len(records)
    finally:
        task.stop()
        key_converter.close()
        value_converter.close()
        log.debug("Task %s polled %d records in micro-batch %d", name, emitted, part.batch)
