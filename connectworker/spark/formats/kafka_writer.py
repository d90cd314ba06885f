"""Producing the rows of one Spark write task to Kafka with confluent-kafka (executor side).

Rows arrive as Arrow batches. For each batch the topics not yet known to this process go through
topic creation in one step, then every row is produced (acks=all, idempotent, as the standalone
worker's producers). The task returns only after Kafka acknowledged every row; any rejected row
fails the task, so the batch's source offsets are not committed and its records will be sent again.

Each Python worker process keeps one producer per set of `kafka.*` options (`shared_producer`, see
`connectworker/process_cache.py`) instead of connecting, fetching metadata and getting a producer id again for every
micro-batch. A write that
ends with any failure closes that producer: the retry starts from a new one.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from confluent_kafka import KafkaError, KafkaException, Message, Producer

from connectworker.api.errors import ConnectError
from connectworker.process_cache import ProcessCache
from connectworker.runtime.clients import PRODUCER_DEFAULTS
from connectworker.runtime.offsets import newest_indexed
from connectworker.runtime.topic_creation import creation_service, topic_gate
from connectworker.spark.formats.columns import SinkColumns
from connectworker.spark.formats.offset_commit import Newest, SinkCommitMessage
from connectworker.spark.formats.options import SinkSettings
from connectworker.topics.admin import MISSING_CODES

log = logging.getLogger(__name__)

WRITER_NAME = "connect-kafka"


class KafkaRowWriter:
    """Writes the rows of one Spark task; create one per `write()` call."""

    def __init__(self, settings: SinkSettings, columns: SinkColumns) -> None:
        self._settings = settings
        self._columns = columns
        self._producer, self._failures = shared_producer(settings.kafka)
        service = creation_service(
            settings.kafka,
            enabled=settings.creation_enabled,
            timeout_ms=settings.creation_timeout_ms,
            policy=settings.policy,
        )
        self._gate = topic_gate(
            service, WRITER_NAME, settings.creation_props, extra_configs=settings.extra_topic_configs
        )
        self._ready: set[str] = set()
        self.records = 0
        self.newest: Newest = {}

    def write(self, batches: Iterator[pa.RecordBatch]) -> SinkCommitMessage:
        try:
            for batch in batches:
                if batch.num_rows:
                    self._write(batch)
            remaining = self._producer.flush()
            if remaining or self._failures.count:
                raise self._failure(remaining)
        except BaseException:
            drop_producer(self._settings.kafka)  # the retry starts on a new producer
            raise
        return SinkCommitMessage(self.records, self.newest)

    def _write(self, batch: pa.RecordBatch) -> None:
        cols = {name.lower(): batch.column(i) for i, name in enumerate(batch.schema.names)}
        n = batch.num_rows
        c = self._columns
        topics = [self._settings.topic] * n if self._settings.topic else cols["topic"].to_pylist()
        values = cols["value"].to_pylist()
        # Columns that are null (or empty lists) in every row, as connect-source's often are, cost no
        # Python object per row.
        keys = cols["key"].to_pylist() if c.key and _any_value(cols["key"]) else [None] * n
        self._ensure_topics(topics)  # no None in topics from here on
        placed = c.partition and _any_value(cols["partition"])
        with_headers = c.headers and _any_header(cols["headers"])
        stamped = c.timestamp and _any_value(cols["timestamp"])
        topic: str | None = None
        try:
            if not (placed or with_headers or stamped):
                produce = self._producer.produce
                for topic, key, value in zip(topics, keys, values, strict=True):
                    try:
                        produce(topic, value, key)  # the common case: positional arguments only, fastest
                    except BufferError:
                        self._produce_patiently(topic, key, value, None, None, None)
            else:
                partitions = cols["partition"].to_pylist() if placed else [None] * n
                headers = cols["headers"].to_pylist() if with_headers else [None] * n
                timestamps = _millis(cols["timestamp"]) if stamped else [None] * n
                for topic, key, value, partition, header, ts in zip(
                    topics, keys, values, partitions, headers, timestamps, strict=True
                ):
                    self._produce_patiently(topic, key, value, partition, header, ts)
        except KafkaException as exc:  # refused by the client before sending (known metadata, size)
            err = exc.args[0]
            raise ConnectError(
                f"Kafka refused a record for topic {topic!r}: {err.str()} ({err.name()}). The "
                f"batch's source offsets are not committed, so its records are sent again "
                f"when the batch is retried."
            ) from None
        self._producer.poll(0)
        self.records += n
        if c.source:
            self._track_offsets(cols)

    def _produce_patiently(
        self,
        topic: str,
        key: bytes | str | None,
        value: bytes | str | None,
        partition: int | None,
        header: list[dict[str, Any]] | None,
        ts: int | None,
    ) -> None:
        kafka_headers = [(h["key"], h["value"]) for h in header] if header else None
        while True:
            try:
                self._producer.produce(
                    topic, value, key, -1 if partition is None else partition, timestamp=ts or 0, headers=kafka_headers
                )
                return
            except BufferError:
                self._producer.poll(0.05)  # the local queue is full: serve delivery reports until there is room

    def _ensure_topics(self, topics: list[str | None]) -> None:
        unique = set(topics)
        if None in unique:
            raise ConnectError("A row has a null topic: set the topic column in every row, or give the option topic")
        new = {t for t in unique if t is not None} - self._ready
        if new:
            self._gate.ensure(new, None, WRITER_NAME)  # a DataFrame has no task: the rules' settings apply
            self._ready |= new

    def _track_offsets(self, cols: dict[str, pa.Array]) -> None:
        newest_indexed(newest_rows(cols), into=self.newest)

    def _failure(self, remaining: int) -> ConnectError:
        failures = self._failures
        for topic in failures.missing_topics:
            self._gate.forget(topic)  # deleted at run time? check (and create) it again on retry
        if failures.first is None:
            return ConnectError(f"{remaining} record(s) were still unacknowledged by Kafka after flush")
        topic, err = failures.first
        return ConnectError(
            f"Kafka rejected {failures.count} of {self.records} record(s); first for topic "
            f"{topic!r}: {err.str()} ({err.name()}). The batch's source offsets are not "
            f"committed, so its records are sent again when the batch is retried."
        )


class DeliveryFailures:
    """The delivery reports of one producer: only failures call back into Python (as the standalone
    worker's producers), since a callback per acknowledged row would cost more than producing it."""

    def __init__(self) -> None:
        self.count = 0
        self.first: tuple[str, KafkaError] | None = None
        self.missing_topics: set[str] = set()

    def __call__(self, err: KafkaError | None, msg: Message) -> None:
        if err is None:
            return
        self.count += 1
        if self.first is None:
            self.first = (str(msg.topic()), err)
        if err.code() in MISSING_CODES:
            self.missing_topics.add(str(msg.topic()))


_producers: ProcessCache[tuple[Producer, DeliveryFailures]] = ProcessCache()


def shared_producer(kafka: Mapping[str, str]) -> tuple[Producer, DeliveryFailures]:
    """This process's producer for `kafka`, with its failure reports (none yet: only a write that
    succeeded leaves a producer here)."""

    def create() -> tuple[Producer, DeliveryFailures]:
        failures = DeliveryFailures()
        producer = Producer({**PRODUCER_DEFAULTS, **kafka, "delivery.report.only.error": True, "on_delivery": failures})
        return producer, failures

    return _producers.get(tuple(sorted(kafka.items())), create)


def drop_producer(kafka: Mapping[str, str]) -> None:
    """Forget this process's producer for `kafka` (the next write makes a new one)."""
    entry = _producers.pop(tuple(sorted(kafka.items())))
    if entry is not None:
        producer = entry[0]
        producer.purge()  # rows of a failed write are sent again by its retry, not by this producer
        producer.flush(0)


def _any_value(column: pa.Array) -> bool:
    return column.null_count < len(column)


def _any_header(column: pa.Array) -> bool:
    return _any_value(column) and pc.sum(pc.list_value_length(column)).as_py() not in (None, 0)


def newest_rows(cols: dict[str, pa.Array]) -> list[tuple[tuple[str, str], int, str]]:
    """((connector, source partition), source_index, source_offset) of the row with the highest
    index per source partition, among the rows that carry an offset; computed with Arrow, so a batch
    costs a few Python objects per source partition, not per row."""
    table = pa.table(
        {
            "connector": cols["connector"],
            "partition": pc.fill_null(cols["source_partition"], "null"),
            "index": cols["source_index"],
            "offset": cols["source_offset"],
        }
    )
    table = table.filter(pc.and_(pc.is_valid(table["offset"]), pc.is_valid(table["connector"])))
    if table.num_rows == 0:
        return []
    newest = table.group_by(["connector", "partition"]).aggregate([("index", "max")])
    rows = []
    for connector, partition, index in zip(
        newest["connector"].to_pylist(), newest["partition"].to_pylist(), newest["index_max"].to_pylist(), strict=True
    ):
        match = pc.and_(
            pc.and_(pc.equal(table["connector"], connector), pc.equal(table["partition"], partition)),
            pc.equal(table["index"], index),
        )
        rows.append(((connector, partition), index, table.filter(match)["offset"][0].as_py()))
    return rows


def _millis(column: pa.Array) -> list[int | None]:
    """Epoch milliseconds of a timestamp column (Spark sends microseconds)."""
    unit = column.type.unit
    raw = column.cast(pa.int64()).to_pylist()
    if unit == "s":
        return [None if v is None else v * 1000 for v in raw]
    divisor = {"ms": 1, "us": 1000, "ns": 1_000_000}[unit]
    return [None if v is None else v // divisor for v in raw]
