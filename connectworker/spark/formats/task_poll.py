"""One connector task for one micro-batch, in an executor's Python worker process.

The driver plans a `TaskPartition` per task, carrying the task's config and the connector's
committed offsets read on the driver (executors never read the offset store). Here the task is
created, started with an offset reader over those offsets (so it resumes exactly after the last
acknowledged record), polled until the micro-batch's record or time bound, and stopped. Each poll goes
through the connector's transforms (the runtime's chain, as in standalone); then its new topics go
through topic creation with *this* task instance, so its
`settings_for_new_topic` applies as in standalone mode. Keys and values leave here serialised by the
connector's converters, as Arrow record batches.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import InputPartition

from connectworker.api.record import SourcePartition, SourceRecord, SourceRecordBatch
from connectworker.config.connector_config import parse_connector_config
from connectworker.plugins import add_plugin_paths
from connectworker.runtime.offsets import newest_offsets, partition_key
from connectworker.runtime.tasks import (
    ConvertedHeaders,
    ConvertedPoll,
    ConverterDefaults,
    RecordSerializer,
    TaskOffsetReader,
    TaskParts,
    WorkerTaskContext,
    check_poll_result,
)
from connectworker.runtime.topic_creation import creation_service, topic_gate
from connectworker.spark.formats.columns import HEADER_TYPE, SOURCE_ARROW_SCHEMA
from connectworker.spark.formats.options import SourceSettings

log = logging.getLogger(__name__)


class TaskPartition(InputPartition):
    """Spark's input partition for one task of one micro-batch."""

    def __init__(
        self, batch: int, task_id: int, props: Mapping[str, str], offsets: Mapping[str, Any], max_ms: int | None = None
    ) -> None:
        super().__init__(task_id)
        self.batch = batch
        self.task_id = task_id
        self.props = dict(props)
        self.offsets = dict(offsets)  # the connector's committed offsets, by canonical partition JSON
        self.max_ms = max_ms  # this micro-batch's poll time, when not `microbatch.max.ms`


class RowBuilder:
    """Turns one poll into an Arrow batch of `connect-source` rows, converted by the task's
    `RecordSerializer` (the standalone task's own, with its string fast path and `errors.tolerance`)."""

    def __init__(self, connector: str, task_id: int, serializer: RecordSerializer) -> None:
        self._connector = connector
        self._task_id = task_id
        self._serializer = serializer
        self._last_partition: SourcePartition | None = None
        self._last_key: str | None = None

    def _partition_key(self, partition: SourcePartition | None) -> str | None:
        if partition is None:
            return None
        # Connectors usually reuse one partition dict: serialise it once, not per record.
        if partition is not self._last_partition:
            self._last_partition, self._last_key = partition, partition_key(partition)
        return self._last_key

    def build(self, polled: Sequence[SourceRecord] | SourceRecordBatch, first_index: int) -> pa.RecordBatch:
        """The rows of one checked poll; records skipped under `errors.tolerance=all` have none."""
        if isinstance(polled, SourceRecordBatch):
            return self._columnar(polled, self._serializer.convert_batch(polled), first_index)
        converted = self._serializer.convert_records(polled)
        records = converted.records if converted.records is not None else polled
        n = len(records)
        dumps, partition_key_of = json.dumps, self._partition_key
        # One comprehension per column: cheaper than one loop appending to eleven lists.
        headers = [_headers(h) for h in converted.headers] if converted.headers is not None else [[]] * n
        return self._rows(
            converted,
            first_index,
            [
                pa.array([r.partition for r in records], pa.int32()),
                pa.array(headers, HEADER_TYPE),
                pa.array(
                    [None if (ts := r.timestamp) is None else ts * 1000 for r in records], pa.timestamp("us", tz="UTC")
                ),
            ],
            pa.array([partition_key_of(r.source_partition) for r in records], pa.string()),
            pa.array([None if (o := r.source_offset) is None else dumps(o) for r in records], pa.string()),
        )

    def _columnar(self, batch: SourceRecordBatch, converted: ConvertedPoll, first_index: int) -> pa.RecordBatch:
        """Rows of a columnar poll, without a record object per row.

        Only the last row carries the batch's offset: the sink commits the newest offset per source
        partition, so earlier rows' offsets would never be used.
        """
        n = len(converted.topics)
        newest = batch.newest_offset()
        offsets: list[str | None] = [None] * n
        if n and newest is not None:
            offsets[-1] = json.dumps(newest)
        return self._rows(
            converted,
            first_index,
            [
                pa.nulls(n, pa.int32()),
                pa.array([[]] * n, HEADER_TYPE),
                pa.nulls(n, pa.timestamp("us", tz="UTC")),
            ],
            pa.array([self._partition_key(batch.source_partition)] * n, pa.string()),
            pa.array(offsets, pa.string()),
        )

    def _rows(
        self,
        converted: ConvertedPoll,
        first_index: int,
        placement: list[pa.Array],
        partitions: pa.Array,
        offsets: pa.Array,
    ) -> pa.RecordBatch:
        n = len(converted.topics)
        columns = [
            pa.array(converted.topics, pa.string()),
            pa.array(converted.keys, pa.binary()),
            pa.array(converted.values, pa.binary()),
            *placement,
            pa.array([self._connector] * n, pa.string()),
            pa.array([self._task_id] * n, pa.int32()),
            partitions,
            offsets,
            pa.array(range(first_index, first_index + n), pa.int64()),
        ]
        return pa.RecordBatch.from_arrays(columns, schema=SOURCE_ARROW_SCHEMA)


COALESCE_ROWS = 10_000
"""Rows per Arrow batch handed to Spark (at most one poll more): the JVM pays per batch, and a poll is
often a few hundred records."""


class Coalescer:
    """Collects the Arrow batches of consecutive polls into one of `COALESCE_ROWS` rows or more."""

    def __init__(self, rows: int = COALESCE_ROWS) -> None:
        self._rows = rows
        self._pending: list[pa.RecordBatch] = []
        self._count = 0

    def add(self, batch: pa.RecordBatch) -> pa.RecordBatch | None:
        """The combined batch once enough rows are pending, else None (kept for later)."""
        self._pending.append(batch)
        self._count += batch.num_rows
        return self.flush() if self._count >= self._rows else None

    def flush(self) -> pa.RecordBatch | None:
        pending, self._pending, self._count = self._pending, [], 0
        if not pending:
            return None
        return pending[0] if len(pending) == 1 else pa.concat_batches(pending)


def _headers(headers: ConvertedHeaders | None) -> list[dict[str, Any]]:
    """Converted headers as rows of Spark's `headers` column (binary values, as the producer gets them)."""
    if headers is None:
        return []
    return [{"key": k, "value": v.encode() if isinstance(v, str) else v} for k, v in headers]


def poll_task(settings: SourceSettings, part: TaskPartition) -> Iterator[pa.RecordBatch]:
    """Run the task of `part` for one micro-batch; yields its rows as Arrow batches of about
    `COALESCE_ROWS` rows (consecutive polls combined; the last batch may be smaller)."""
    # An entry missing on this executor was shipped by `connectworker spark` (plugin_shipping.py) or
    # reported by its executor check; warning about it in every worker process would only add noise.
    add_plugin_paths([entry for entry in settings.plugin_path if os.path.exists(entry)])
    config = parse_connector_config(
        settings.connector, source="connect-source options", extra_topic_configs=settings.extra_topic_configs
    )
    name = f"{config.name}-{part.task_id}"
    service = creation_service(
        settings.kafka,
        enabled=settings.creation_enabled,
        timeout_ms=settings.creation_timeout_ms,
        policy=settings.policy,
    )
    gate = topic_gate(service, config.name, config.props, extra_configs=settings.extra_topic_configs)
    # built as a worker builds its tasks' parts, with the worker's default converters
    parts = TaskParts.build(config, ConverterDefaults(), gate)
    tolerance = parts.tolerance(name, threading.Event())
    chain = parts.transform_chain()
    rows = RowBuilder(config.name, part.task_id, parts.serializer(tolerance))
    task = config.connector_class().task_class()()
    task.initialize(WorkerTaskContext(TaskOffsetReader(part.offsets), part.props))
    task.start(part.props)
    emitted = 0
    ready: set[str] = set()
    pending = Coalescer()
    try:
        max_ms = settings.max_ms if part.max_ms is None else part.max_ms
        deadline = time.monotonic() + max_ms / 1000
        while emitted < settings.max_records and time.monotonic() < deadline:
            result = task.poll()
            if not result:
                continue
            records = check_poll_result(result, name)
            newest_offsets(records)  # raises naming the offset that could not be committed
            polled = len(records)  # counts toward max.records, whatever the transforms keep
            if chain is not None:  # records leave connect-source transformed, as they leave a worker
                records = chain.apply_poll(records, tolerance).records
            if records:
                topics = set(records.topics) if isinstance(records, SourceRecordBatch) else {r.topic for r in records}
                if not topics <= ready:
                    gate.ensure(topics - ready, task.settings_for_new_topic, name)
                    ready |= topics
                if (ready_rows := pending.add(rows.build(records, emitted))) is not None:
                    yield ready_rows
            emitted += polled
        if (last := pending.flush()) is not None:
            yield last
    finally:
        task.stop()
        if chain is not None:
            chain.close()
        parts.close(name)
        log.debug("Task %s polled %d records in micro-batch %d", name, emitted, part.batch)
