"""Producing the rows of one Spark write task to Kafka with confluent-kafka (executor side).

Rows arrive as Arrow batches. For each batch the topics not yet known to this process go through
topic creation in one step, then every row is produced (acks=all, idempotent, as the standalone
worker's producers). The task returns only after Kafka acknowledged every row; any rejected row
fails the task, so the batch's source offsets are not committed and its records will be sent again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pyarrow as pa
from confluent_kafka import KafkaError, Message, Producer

from connectworker.api.errors import ConnectError
from connectworker.runtime.source_offsets import newest_indexed
from connectworker.runtime.worker import PRODUCER_DEFAULTS
from connectworker.spark.columns import SinkColumns
from connectworker.spark.offset_commit import Newest, SinkCommitMessage
from connectworker.spark.options import SinkSettings
from connectworker.spark.topic_gates import creation_service, topic_gate
from connectworker.topics.admin import MISSING_CODES

log = logging.getLogger(__name__)

WRITER_NAME = "connect-kafka"


class KafkaRowWriter:
    """Writes the rows of one Spark task; create one per `write()` call."""

    def __init__(self, settings: SinkSettings, columns: SinkColumns) -> None:
        self._settings = settings
        self._columns = columns
        self._producer = Producer({**PRODUCER_DEFAULTS, **settings.kafka})
        service = creation_service(settings.kafka, enabled=settings.creation_enabled,
                                   timeout_ms=settings.creation_timeout_ms)
        self._gate = topic_gate(service, WRITER_NAME, settings.creation_props)
        self._ready: set[str] = set()
        self._failed = 0
        self._first_failure: tuple[str, KafkaError] | None = None
        self._failed_topics: set[str] = set()
        self.records = 0
        self.newest: Newest = {}

    def write(self, batches: Iterator[pa.RecordBatch]) -> SinkCommitMessage:
        for batch in batches:
            if batch.num_rows:
                self._write(batch)
        remaining = self._producer.flush()
        if remaining or self._failed:
            self._raise(remaining)
        return SinkCommitMessage(self.records, self.newest)

    def _write(self, batch: pa.RecordBatch) -> None:
        cols = {name.lower(): batch.column(i) for i, name in enumerate(batch.schema.names)}
        n = batch.num_rows
        c = self._columns
        topics = [self._settings.topic] * n if self._settings.topic else cols["topic"].to_pylist()
        values = cols["value"].to_pylist()
        keys = cols["key"].to_pylist() if c.key else [None] * n
        partitions = cols["partition"].to_pylist() if c.partition else [None] * n
        headers = cols["headers"].to_pylist() if c.headers else [None] * n
        timestamps = _millis(cols["timestamp"]) if c.timestamp else [None] * n
        self._ensure_topics(topics)
        produce, poll, report = self._producer.produce, self._producer.poll, self._on_delivery
        for topic, key, value, partition, header, ts in zip(topics, keys, values, partitions, headers,
                                                            timestamps, strict=True):
            kafka_headers = [(h["key"], h["value"]) for h in header] if header else None
            while True:
                try:
                    produce(topic, value, key, -1 if partition is None else partition, on_delivery=report,
                            timestamp=ts or 0, headers=kafka_headers)
                    break
                except BufferError:
                    poll(0.05)  # the local queue is full: serve delivery reports until there is room
        poll(0)
        self.records += n
        if c.source:
            self._track_offsets(cols)

    def _ensure_topics(self, topics: list[str | None]) -> None:
        unique = set(topics)
        if None in unique:
            raise ConnectError("A row has a null topic: set the topic column in every row, or give the "
                               "option topic")
        new = {t for t in unique if t is not None} - self._ready
        if new:
            self._gate.ensure(new, None, WRITER_NAME)  # a DataFrame has no task: the rules' settings apply
            self._ready |= new

    def _track_offsets(self, cols: dict[str, pa.Array]) -> None:
        rows = zip(cols["connector"].to_pylist(), cols["source_partition"].to_pylist(),
                   cols["source_index"].to_pylist(), cols["source_offset"].to_pylist(), strict=True)
        newest_indexed((((connector, "null" if partition is None else partition), index, offset)
                        for connector, partition, index, offset in rows), into=self.newest)

    def _on_delivery(self, err: KafkaError | None, msg: Message) -> None:
        if err is None:
            return
        self._failed += 1
        if self._first_failure is None:
            self._first_failure = (str(msg.topic()), err)
        if err.code() in MISSING_CODES:
            self._failed_topics.add(str(msg.topic()))

    def _raise(self, remaining: int) -> None:
        for topic in self._failed_topics:
            self._gate.forget(topic)  # deleted at run time? check (and create) it again on retry
        if self._first_failure is None:
            raise ConnectError(f"{remaining} record(s) were still unacknowledged by Kafka after flush")
        topic, err = self._first_failure
        raise ConnectError(f"Kafka rejected {self._failed} of {self.records} record(s); first for topic "
                           f"{topic!r}: {err.str()} ({err.name()}). The batch's source offsets are not "
                           f"committed, so its records are sent again when the batch is retried.")


def _millis(column: pa.Array) -> list[int | None]:
    """Epoch milliseconds of a timestamp column (Spark sends microseconds)."""
    unit = column.type.unit
    raw = column.cast(pa.int64()).to_pylist()
    if unit == "s":
        return [None if v is None else v * 1000 for v in raw]
    divisor = {"ms": 1, "us": 1000, "ns": 1_000_000}[unit]
    return [None if v is None else v // divisor for v in raw]
