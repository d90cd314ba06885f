"""Committed source offsets in a compacted Kafka topic, for Spark runs on a cluster.

The record format is Kafka Connect's (distributed mode): key ``["<connector>", <source partition>]``
and value the offset, both JSON, a null value forgetting the partition. Keys are written in canonical
form (sorted, compact), so compaction keeps exactly one record per partition.

Reading to the end does not trust high watermarks (some Kafka-compatible brokers report them wrongly
after multi-record batches). Instead every read first writes a *barrier* to each partition, a
tombstone keyed ``["__connectworker_barrier__", "<random id>"]``, and consumes until it has seen its
own barrier everywhere: everything committed before the read is then known. Barriers are tombstones
of a connector that does not exist, so compaction removes them and readers skip them.
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Mapping
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, Message, Producer, TopicPartition

from connectworker.api.errors import ConnectError
from connectworker.api.record import SourceOffset
from connectworker.api.topic_settings import CleanupPolicy, TopicSettings
from connectworker.runtime.offset_store import OffsetStoreError, partition_key
from connectworker.topics.admin import Outcome, TopicAdmin

log = logging.getLogger(__name__)

BARRIER = "__connectworker_barrier__"


def record_key(connector: str, key: str) -> bytes:
    """The Kafka record key of `connector`'s source partition (`key` is its canonical JSON)."""
    return json.dumps([connector, json.loads(key)], sort_keys=True, separators=(",", ":")).encode()


class KafkaOffsetStorage:
    """Reads and commits offsets in `topic`, creating it (compacted) on first use."""

    def __init__(self, topic: str, kafka: Mapping[str, str], *, partitions: int = 1,
                 replication_factor: int = -1, timeout_s: float = 30.0) -> None:
        self.topic = topic
        self._kafka = dict(kafka)
        self._new_partitions = partitions
        self._replication_factor = replication_factor
        self._timeout_s = timeout_s
        self._partitions: list[int] = []
        self._producer: Producer | None = None
        self._consumer: Consumer | None = None
        self._data: dict[str, dict[str, Any]] = {}

    # -- setup -----------------------------------------------------------------------------------
    def _ready(self) -> Producer:
        if self._producer is not None:
            return self._producer
        self._ensure_topic()
        self._producer = Producer({**self._kafka, "acks": "all", "enable.idempotence": True,
                                   "linger.ms": 0, "partitioner": "murmur2_random",
                                   "allow.auto.create.topics": False})
        metadata = self._producer.list_topics(self.topic, timeout=self._timeout_s)
        topic = metadata.topics.get(self.topic)
        if topic is None or topic.error is not None or not topic.partitions:
            raise OffsetStoreError(f"The offsets topic {self.topic!r} has no partitions visible to the "
                                   f"worker ({topic.error if topic is not None else 'no metadata'})")
        self._partitions = sorted(topic.partitions)
        return self._producer

    def _ensure_topic(self) -> None:
        config = {k: v for k, v in self._kafka.items() if k != "bootstrap.servers"}
        admin = TopicAdmin(self._kafka["bootstrap.servers"], config, request_timeout_s=self._timeout_s)
        _, missing = admin.describe([self.topic])
        if not missing:
            return
        settings = TopicSettings(self.topic, self._new_partitions, self._replication_factor)
        settings.with_cleanup_policy(CleanupPolicy.COMPACT)
        result = admin.create([settings])[self.topic]
        if result.outcome is Outcome.FAILED:
            raise OffsetStoreError(f"Cannot create the offsets topic {self.topic!r}: {result.error}")
        if result.outcome is Outcome.CREATED:
            log.info("Created the compacted offsets topic %s (%d partition(s))", self.topic,
                     self._new_partitions)
        deadline = time.monotonic() + self._timeout_s
        while admin.describe([self.topic])[1]:
            if time.monotonic() > deadline:
                raise OffsetStoreError(f"The offsets topic {self.topic!r} did not become visible")
            time.sleep(0.05)

    # -- commits ---------------------------------------------------------------------------------
    def commit(self, connector: str, offsets: Mapping[str, SourceOffset | None]) -> None:
        if not offsets:
            return
        producer = self._ready()
        failures: list[KafkaError] = []

        def report(err: KafkaError | None, msg: Message) -> None:
            if err is not None:
                failures.append(err)

        for key, offset in offsets.items():
            value = None if offset is None else json.dumps(offset, sort_keys=True, separators=(",", ":"))
            producer.produce(self.topic, value, record_key(connector, key), on_delivery=report)
        self._flush(producer, failures, f"committing {len(offsets)} offset(s) of connector {connector}")
        self._apply(connector, offsets)

    def _flush(self, producer: Producer, failures: list[KafkaError], what: str) -> None:
        remaining = producer.flush(self._timeout_s)
        if failures or remaining:
            why = failures[0].str() if failures else f"{remaining} record(s) unacknowledged"
            raise OffsetStoreError(f"The offsets topic {self.topic!r} failed {what}: {why}")

    def _apply(self, connector: str, offsets: Mapping[str, Any]) -> None:
        stored = self._data.setdefault(connector, {})
        for key, offset in offsets.items():
            if offset is None:
                stored.pop(key, None)
            else:
                stored[key] = offset

    # -- reads -----------------------------------------------------------------------------------
    def read(self, connector: str) -> dict[str, SourceOffset]:
        self._catch_up()
        return dict(self._data.get(connector, {}))

    def _catch_up(self) -> None:
        producer = self._ready()
        if self._consumer is None:
            self._consumer = Consumer({**self._kafka, "group.id": f"connectworker-offsets-{uuid.uuid4().hex}",
                                       "enable.auto.commit": False, "auto.offset.reset": "earliest",
                                       "allow.auto.create.topics": False})
            self._consumer.assign([TopicPartition(self.topic, p, OFFSET_BEGINNING) for p in self._partitions])
        barrier = uuid.uuid4().hex
        barrier_key = json.dumps([BARRIER, barrier]).encode()
        failures: list[KafkaError] = []

        def report(err: KafkaError | None, msg: Message) -> None:
            if err is not None:
                failures.append(err)

        for partition in self._partitions:
            producer.produce(self.topic, None, barrier_key, partition=partition, on_delivery=report)
        self._flush(producer, failures, "writing a read barrier")
        waiting = set(self._partitions)
        deadline = time.monotonic() + self._timeout_s
        while waiting:
            if time.monotonic() > deadline:
                raise OffsetStoreError(f"Could not read the offsets topic {self.topic!r} to its end within "
                                       f"{self._timeout_s:.0f}s (partitions {sorted(waiting)} lag behind)")
            for msg in self._consumer.consume(num_messages=10_000, timeout=0.2):
                err = msg.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        continue
                    raise OffsetStoreError(f"Reading the offsets topic {self.topic!r} failed: {err.str()}")
                if msg.key() == barrier_key:
                    waiting.discard(msg.partition())
                else:
                    self._read_record(msg)

    def _read_record(self, msg: Message) -> None:
        where = f"{self.topic}[{msg.partition()}]@{msg.offset()}"
        try:
            key = json.loads(msg.key() or b"")
            value = msg.value()
            offset = None if value is None else json.loads(value)
        except ValueError as exc:
            log.warning("Skipping a malformed record at %s of the offsets topic: %s", where, exc)
            return
        if not (isinstance(key, list) and len(key) == 2 and isinstance(key[0], str)):
            log.warning("Skipping a record at %s of the offsets topic: its key is not [connector, partition]",
                        where)
            return
        connector, partition = key
        if connector == BARRIER:
            return
        if offset is not None and not isinstance(offset, dict):
            log.warning("Skipping a record at %s of the offsets topic: its offset is not a JSON object",
                        where)
            return
        self._apply(connector, {partition_key(partition): offset})

    def close(self) -> None:
        consumer, self._consumer = self._consumer, None
        producer, self._producer = self._producer, None
        if consumer is not None:
            consumer.close()
        if producer is not None and producer.flush(self._timeout_s):
            raise ConnectError(f"Records to the offsets topic {self.topic!r} were still unacknowledged "
                               f"at close")

    def describe(self) -> str:
        return f"Kafka topic {self.topic}"
