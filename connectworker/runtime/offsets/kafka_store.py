"""Committed source offsets in a compacted Kafka topic (`offset.storage.topic`): the Kafka `OffsetBackingStore`.

The record format is Kafka Connect's (distributed mode), so either can read the other's offsets: key
``["<connector>", <source partition>]`` and value the offset, both JSON, a null value (tombstone)
forgetting the partition. Keys are written in canonical form (sorted, compact), so compaction keeps
exactly one record per partition, and each record names the partition Java's partitioner (murmur2)
picks, so a key lands where Kafka Connect would put it.

The topic is created on first use when missing, ``cleanup.policy=compact``, with
`offset.storage.partitions` partitions (Kafka's default 25) and `offset.storage.replication.factor`
replicas (Kafka's default 3; -1 is the broker's default). A factor above the cluster's broker count
is refused before asking the broker, with a message saying which key to lower.

Reading to the end (`refresh`) does not trust high watermarks (some Kafka-compatible brokers, Tansu
among them, report them wrongly after multi-record batches). Instead a read first writes a *barrier*
to every partition, a tombstone keyed ``["__connectworker_barrier__", "<random id>"]``, and consumes
until it has seen its own barrier in every partition: everything acknowledged before the read started
is then known, which is what "the end offsets captured at start" means, without asking the broker for
them. Barriers are tombstones of a connector that does not exist, so compaction removes them and
readers (Kafka Connect's too) skip them.

`put` records changes in memory; `flush` produces the newest value of every changed partition and
waits until every record is acknowledged (acks=all, idempotent). What a failed flush did not get
acknowledged is produced again by the next one.

Exactly-once tasks write their offsets themselves, inside their transactions (`offset_records`), and
tell the store once a transaction committed (`note_committed`). Reads are `read_committed`, so offsets
of an open or aborted transaction are never seen; a read waits for open transactions to end.
"""

from __future__ import annotations

import json
import logging
import threading
import time
import uuid
from collections.abc import Collection, Mapping
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Message, Producer, TopicPartition

from connectworker.api.record import SourceOffset, SourcePartition
from connectworker.api.topic_settings import CleanupPolicy, TopicSettings
from connectworker.runtime.clients.java_partitioner import java_partition
from connectworker.runtime.observability.kafka_logging import client_log_settings
from connectworker.runtime.offsets.file_store import OffsetStoreError, check_storable, partition_key
from connectworker.runtime.topic_creation.admin_client import open_topic_admin
from connectworker.topics.admin import Outcome, TopicAdminError

log = logging.getLogger(__name__)

BARRIER = "__connectworker_barrier__"
DEFAULT_PARTITIONS = 25  # Kafka Connect's offset.storage.partitions
DEFAULT_REPLICATION_FACTOR = 3  # Kafka Connect's offset.storage.replication.factor
PARTITIONS_KEY = "offset.storage.partitions"
REPLICATION_KEY = "offset.storage.replication.factor"


def record_key(connector: str, key: str) -> bytes:
    """The Kafka record key of `connector`'s source partition (`key` is its canonical JSON)."""
    return json.dumps([connector, json.loads(key)], sort_keys=True, separators=(",", ":")).encode()


def record_value(offset: SourceOffset | None) -> bytes | None:
    """The Kafka record value of an offset: its JSON, or None (a tombstone) for a removed partition."""
    return None if offset is None else json.dumps(offset, sort_keys=True, separators=(",", ":")).encode()


def parse_record(key: bytes | None, value: bytes | None) -> tuple[str, str, SourceOffset | None]:
    """(connector, canonical partition JSON, offset or None) of an offsets-topic record; raises
    ValueError for a record that is not one (barriers included: their connector is `BARRIER`)."""
    parsed = json.loads(key or b"")
    if not (isinstance(parsed, list) and len(parsed) == 2 and isinstance(parsed[0], str)):
        raise ValueError("its key is not [connector, partition]")
    connector, partition = parsed
    if connector == BARRIER:  # another reader's barrier: its id is no partition
        return connector, "", None
    if partition is not None and not isinstance(partition, dict):
        raise ValueError("its source partition is not a JSON object or null")
    offset = None if value is None else json.loads(value)
    if offset is not None and not isinstance(offset, dict):
        raise ValueError("its offset is not a JSON object")
    return connector, partition_key(partition), offset


class KafkaOffsetStore:
    """Offsets of every connector in `topic`; the topic is created, and read to its end, on first use
    (`refresh`, or the first read). `kafka` is the client config (`bootstrap.servers` and security)."""

    def __init__(self, topic: str, kafka: Mapping[str, Any], *, partitions: int = DEFAULT_PARTITIONS,
                 replication_factor: int = DEFAULT_REPLICATION_FACTOR, timeout_s: float = 30.0,
                 flush_timeout_s: float | None = None) -> None:
        if not kafka.get("bootstrap.servers"):
            raise OffsetStoreError(f"The offsets topic {topic!r} needs bootstrap.servers")
        self.topic = topic
        self._kafka = dict(kafka)
        self._new_partitions = partitions
        self._replication_factor = replication_factor
        self._timeout_s = timeout_s
        self._flush_timeout_s = timeout_s if flush_timeout_s is None else flush_timeout_s
        self._partitions: list[int] = []
        self._producer: Producer | None = None
        self._consumer: Consumer | None = None
        self._lock = threading.Lock()  # the offsets in memory and the pending changes
        self._io_lock = threading.RLock()  # the clients: one flush or read at a time
        self._data: dict[str, dict[str, Any]] = {}
        self._pending: dict[tuple[str, str], SourceOffset | None] = {}
        self._loaded = False
        self.records_read = 0  # offset records applied by the last `refresh` (for logs and benchmarks)

    # -- setup -----------------------------------------------------------------------------------
    def _ready(self) -> Producer:
        if self._producer is not None:
            return self._producer
        self._ensure_topic()
        producer = Producer({**self._kafka, "acks": "all", "enable.idempotence": True, "linger.ms": 0,
                             "allow.auto.create.topics": False,
                             **client_log_settings(f"offsets producer ({self.topic})")})
        try:
            metadata = producer.list_topics(self.topic, timeout=self._timeout_s)
        except KafkaException as exc:
            raise OffsetStoreError(f"Cannot read the metadata of the offsets topic {self.topic!r}: "
                                   f"{exc.args[0].str() if exc.args else exc}") from None
        topic = metadata.topics.get(self.topic)
        if topic is None or topic.error is not None or not topic.partitions:
            raise OffsetStoreError(f"The offsets topic {self.topic!r} has no partitions visible to the "
                                   f"worker ({topic.error if topic is not None else 'no metadata'})")
        self._partitions = sorted(topic.partitions)
        self._producer = producer
        return producer

    def _ensure_topic(self) -> None:
        config = {k: v for k, v in self._kafka.items() if k != "bootstrap.servers"}
        admin = open_topic_admin(self._kafka["bootstrap.servers"], config, request_timeout_s=self._timeout_s,
                                 client_name=f"offsets admin ({self.topic})")
        try:
            _, missing = admin.describe([self.topic])
            if not missing:
                return
            brokers = admin.broker_count()
            if self._replication_factor > brokers:
                raise OffsetStoreError(
                    f"Cannot create the offsets topic {self.topic!r} with {REPLICATION_KEY}="
                    f"{self._replication_factor}: the cluster at {self._kafka['bootstrap.servers']} has only "
                    f"{brokers} broker(s). Set {REPLICATION_KEY} to at most {brokers} (Kafka's default is "
                    f"{DEFAULT_REPLICATION_FACTOR}; -1 takes the broker's default), or create the topic "
                    f"yourself (cleanup.policy=compact).")
            settings = TopicSettings(self.topic, self._new_partitions, self._replication_factor)
            settings.with_cleanup_policy(CleanupPolicy.COMPACT)
            result = admin.create([settings], broker_count=brokers)[self.topic]
            if result.outcome is Outcome.FAILED:
                raise OffsetStoreError(f"Cannot create the offsets topic {self.topic!r}: {result.error}")
            if result.outcome is Outcome.CREATED:
                log.info("Created the compacted offsets topic %s (%d partition(s), replication factor %s)",
                         self.topic, self._new_partitions,
                         "the broker's default" if self._replication_factor == -1 else self._replication_factor)
            deadline = time.monotonic() + self._timeout_s
            while admin.describe([self.topic])[1]:
                if time.monotonic() > deadline:
                    raise OffsetStoreError(f"The offsets topic {self.topic!r} did not become visible")
                time.sleep(0.05)
        except TopicAdminError as exc:
            raise OffsetStoreError(f"Cannot check or create the offsets topic {self.topic!r}: {exc}") from None

    # -- reads -----------------------------------------------------------------------------------
    def _ensure_loaded(self) -> None:
        if not self._loaded:
            self.refresh()

    def offset(self, connector: str, partition: SourcePartition | None) -> SourceOffset | None:
        self._ensure_loaded()
        with self._lock:
            return self._data.get(connector, {}).get(partition_key(partition))

    def offsets(self, connector: str) -> dict[str, Any]:
        self._ensure_loaded()
        with self._lock:
            return dict(self._data.get(connector, {}))

    def connectors(self) -> list[str]:
        self._ensure_loaded()
        with self._lock:
            return [name for name, stored in self._data.items() if stored]

    def refresh(self) -> None:
        """Read the topic to its end (see the module doc): every commit acknowledged before this call
        is then in memory; changes not flushed yet stay on top."""
        with self._io_lock:
            producer = self._ready()
            consumer = self._assigned_consumer()
            barrier_key = json.dumps([BARRIER, uuid.uuid4().hex]).encode()
            failures: list[KafkaError] = []
            for partition in self._partitions:
                self._produce(producer, barrier_key, None, failures, partition=partition)
            self._wait_acks(producer, failures, "writing a read barrier", self._timeout_s)
            waiting = set(self._partitions)
            applied = 0
            deadline = time.monotonic() + self._timeout_s
            while waiting:
                if time.monotonic() > deadline:
                    raise OffsetStoreError(f"Could not read the offsets topic {self.topic!r} to its end: nothing "
                                           f"arrived for {self._timeout_s:.0f}s (partitions {sorted(waiting)} "
                                           f"lag behind)")
                messages = consumer.consume(num_messages=10_000, timeout=0.05)
                if messages:  # a long topic may take longer than the timeout, as long as it flows
                    deadline = time.monotonic() + self._timeout_s
                for msg in messages:
                    err = msg.error()
                    if err is not None:
                        if err.code() == KafkaError._PARTITION_EOF:
                            continue
                        raise OffsetStoreError(f"Reading the offsets topic {self.topic!r} failed: {err.str()}")
                    if msg.key() == barrier_key:
                        waiting.discard(msg.partition())
                    elif self._read_record(msg):
                        applied += 1
            with self._lock:
                for (connector, key), offset in self._pending.items():  # unflushed changes are newer
                    self._apply(connector, key, offset)
            self._loaded = True
            self.records_read = applied

    def _read_record(self, msg: Message) -> bool:
        try:
            connector, key, offset = parse_record(msg.key(), msg.value())
        except ValueError as exc:
            log.warning("Skipping record %s[%s]@%s of the offsets topic: %s", self.topic, msg.partition(),
                        msg.offset(), exc)
            return False
        if connector == BARRIER:
            return False
        with self._lock:
            self._apply(connector, key, offset)
        return True

    def _apply(self, connector: str, key: str, offset: SourceOffset | None) -> None:
        if offset is None:
            stored = self._data.get(connector)
            if stored is not None:
                stored.pop(key, None)
        else:
            self._data.setdefault(connector, {})[key] = offset

    # -- writes ----------------------------------------------------------------------------------
    def put(self, connector: str, offsets: Mapping[str, Any]) -> None:
        if not offsets:
            return
        check_storable(connector, offsets)
        with self._lock:
            for key, offset in offsets.items():
                self._apply(connector, key, offset)
                self._pending[(connector, key)] = offset

    def ensure(self) -> None:
        """Create the topic if missing and learn its partitions, without reading it; the reader starts
        connecting meanwhile (its first fetch takes about half a second), so a later `refresh` is quick."""
        with self._io_lock:
            self._ready()
            self._assigned_consumer()

    def _assigned_consumer(self) -> Consumer:
        if self._consumer is None:
            self._consumer = Consumer({
                **self._kafka, "group.id": f"connectworker-offsets-{uuid.uuid4().hex}",
                "enable.auto.commit": False, "auto.offset.reset": "earliest", "fetch.wait.max.ms": 50,
                "isolation.level": "read_committed",
                "allow.auto.create.topics": False, **client_log_settings(f"offsets consumer ({self.topic})")})
            self._consumer.assign([TopicPartition(self.topic, p, OFFSET_BEGINNING) for p in self._partitions])
        return self._consumer

    def offset_records(self, connector: str, offsets: Mapping[str, Any]) -> list[tuple[int, bytes, bytes | None]]:
        """(partition, key, value) of the records that commit `offsets`, for a transactional producer."""
        check_storable(connector, offsets)
        if not self._partitions:  # known once, for good: no need to queue behind a read holding the lock
            self.ensure()
        records = []
        for key, offset in offsets.items():
            record = record_key(connector, key)
            records.append((java_partition(record, len(self._partitions)), record, record_value(offset)))
        return records

    def note_committed(self, connector: str, offsets: Mapping[str, Any]) -> None:
        """`offsets` were committed by another producer (an exactly-once task's transaction)."""
        with self._lock:
            for key, offset in offsets.items():
                self._apply(connector, key, offset)

    def remove(self, connector: str, partitions: Collection[str] | None = None) -> None:
        """Tombstones for `partitions`, or for every partition of `connector` this store knows (it reads
        the topic first, so that is every partition committed so far)."""
        self._ensure_loaded()
        with self._lock:
            keys = list(self._data.get(connector, {})) if partitions is None else list(partitions)
            for key in keys:
                self._apply(connector, key, None)
                self._pending[(connector, key)] = None

    def flush(self) -> None:
        with self._io_lock:
            with self._lock:
                if not self._pending:
                    return
            producer = self._ready()
            with self._lock:
                pending, self._pending = self._pending, {}
            failures: list[KafkaError] = []
            try:
                for (connector, key), offset in pending.items():
                    record = record_key(connector, key)
                    self._produce(producer, record, record_value(offset), failures,
                                  partition=java_partition(record, len(self._partitions)))
                connectors = len({connector for connector, _ in pending})
                self._wait_acks(producer, failures, f"committing {len(pending)} offset(s) of {connectors} "
                                f"connector(s)", self._flush_timeout_s)
            except BaseException:
                with self._lock:  # the next flush sends them again; changes made meanwhile are newer
                    self._pending = {**pending, **self._pending}
                raise

    def _produce(self, producer: Producer, key: bytes, value: bytes | None, failures: list[KafkaError],
                 partition: int = -1) -> None:
        def report(err: KafkaError | None, msg: Message) -> None:
            if err is not None:
                failures.append(err)

        while True:
            try:
                producer.produce(self.topic, value, key, partition, on_delivery=report)
                return
            except BufferError:
                producer.poll(0.05)  # the local queue is full: serve delivery reports until there is room
            except KafkaException as exc:
                raise OffsetStoreError(f"The offsets topic {self.topic!r} refused a record: {exc}") from None

    def _wait_acks(self, producer: Producer, failures: list[KafkaError], what: str, timeout_s: float) -> None:
        remaining = producer.flush(timeout_s)
        if failures or remaining:
            why = failures[0].str() if failures else f"{remaining} record(s) unacknowledged after {timeout_s:g}s"
            raise OffsetStoreError(f"The offsets topic {self.topic!r} failed {what}: {why}")

    def close(self) -> None:
        with self._io_lock:
            consumer, self._consumer = self._consumer, None
            producer, self._producer = self._producer, None
            if consumer is not None:
                consumer.close()
            if producer is not None and producer.flush(self._flush_timeout_s):
                log.warning("Records to the offsets topic %s were still unacknowledged at close", self.topic)

    def describe(self) -> str:
        return f"Kafka topic {self.topic}"
