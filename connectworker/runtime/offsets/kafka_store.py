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

Reading to the end (`refresh`) writes a read barrier to every partition first (see
`runtime/clients/compacted_topic.py`): a tombstone keyed ``["__connectworker_barrier__", "<random id>"]``,
a connector that does not exist, so compaction removes it and readers (Kafka Connect's too) skip it.

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
from collections.abc import Collection, Mapping
from typing import Any

from confluent_kafka import KafkaError, Message

from connectworker.api.record import SourceOffset, SourcePartition
from connectworker.runtime.clients.compacted_topic import CompactedTopic, TopicShape
from connectworker.runtime.clients.java_partitioner import java_partition
from connectworker.runtime.offsets.file_store import OffsetStoreError, check_storable, partition_key

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

    def __init__(
        self,
        topic: str,
        kafka: Mapping[str, Any],
        *,
        partitions: int = DEFAULT_PARTITIONS,
        replication_factor: int = DEFAULT_REPLICATION_FACTOR,
        timeout_s: float = 30.0,
        flush_timeout_s: float | None = None,
    ) -> None:
        if not kafka.get("bootstrap.servers"):
            raise OffsetStoreError(f"The offsets topic {topic!r} needs bootstrap.servers")
        self.topic = topic
        self._log = CompactedTopic(
            topic,
            kafka,
            TopicShape(partitions, replication_factor, PARTITIONS_KEY, REPLICATION_KEY, DEFAULT_REPLICATION_FACTOR),
            label="offsets topic",
            error=OffsetStoreError,
            barrier_key=_barrier_key,
            timeout_s=timeout_s,
            read_committed=True,
        )
        self._flush_timeout_s = timeout_s if flush_timeout_s is None else flush_timeout_s
        self._lock = threading.Lock()  # the offsets in memory and the pending changes
        self._io_lock = threading.RLock()  # the clients: one flush or read at a time
        self._data: dict[str, dict[str, Any]] = {}
        self._pending: dict[tuple[str, str], SourceOffset | None] = {}
        self._loaded = False
        self.records_read = 0  # offset records applied by the last `refresh` (for logs and benchmarks)

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
        """Read the topic to its end: every commit acknowledged before this call is then in memory;
        changes not flushed yet stay on top. Reads are read_committed: an open transaction is waited for."""
        with self._io_lock:
            applied = self._log.read_to_end(self._read_record)
            with self._lock:
                for (connector, key), offset in self._pending.items():  # unflushed changes are newer
                    self._apply(connector, key, offset)
            self._loaded = True
            self.records_read = applied

    def _read_record(self, msg: Message) -> bool:
        try:
            connector, key, offset = parse_record(msg.key(), msg.value())
        except ValueError as exc:
            log.warning(
                "Skipping record %s[%s]@%s of the offsets topic: %s", self.topic, msg.partition(), msg.offset(), exc
            )
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
            self._log.consumer()

    def offset_records(self, connector: str, offsets: Mapping[str, Any]) -> list[tuple[int, bytes, bytes | None]]:
        """(partition, key, value) of the records that commit `offsets`, for a transactional producer."""
        check_storable(connector, offsets)
        if not self._log.partitions:  # known once, for good: no need to queue behind a read holding the lock
            self.ensure()
        partitions = len(self._log.partitions)
        records = []
        for key, offset in offsets.items():
            record = record_key(connector, key)
            records.append((java_partition(record, partitions), record, record_value(offset)))
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
            self._log.producer()
            with self._lock:
                pending, self._pending = self._pending, {}
            failures: list[KafkaError] = []
            try:
                partitions = len(self._log.partitions)
                for (connector, key), offset in pending.items():
                    record = record_key(connector, key)
                    self._log.produce(
                        record, record_value(offset), failures, partition=java_partition(record, partitions)
                    )
                connectors = len({connector for connector, _ in pending})
                self._log.wait_acks(
                    failures, f"committing {len(pending)} offset(s) of {connectors} connector(s)", self._flush_timeout_s
                )
            except BaseException:
                with self._lock:  # the next flush sends them again; changes made meanwhile are newer
                    self._pending = {**pending, **self._pending}
                raise

    def close(self) -> None:
        with self._io_lock:
            self._log.close(self._flush_timeout_s)

    def describe(self) -> str:
        return f"Kafka topic {self.topic}"


def _barrier_key(unique: str) -> bytes:
    return json.dumps([BARRIER, unique]).encode()
