"""A compacted Kafka topic the worker keeps its own state in: the offsets topic (`offset.storage.topic`),
and on Spark the config and status topics (`config.storage.topic`, `status.storage.topic`).

It creates the topic when it is missing (`cleanup.policy=compact`, with the given partitions and
replication factor; a factor above the cluster's broker count is refused before asking the broker,
naming the key to lower), produces records and waits until each is acknowledged (acks=all,
idempotent), and reads the topic to its end.

Reading to the end does not trust high watermarks (some Kafka-compatible brokers, Tansu among them,
report them wrongly after multi-record batches). Instead a read first writes a *barrier* to every
partition, a tombstone with a key of the owner's choosing that readers skip, and consumes until it has
seen its own barrier in every partition: everything acknowledged before the read started is then known,
which is what "the end offsets captured at start" means, without asking the broker for them. Barriers are
tombstones, so compaction removes them.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Message, Producer, TopicPartition

from connectworker.api.errors import ConnectError
from connectworker.api.topic_settings import CleanupPolicy, TopicSettings
from connectworker.runtime.clients.admin_client import open_topic_admin
from connectworker.runtime.observability.kafka_logging import client_log_settings
from connectworker.topics.admin import Outcome, TopicAdminError

log = logging.getLogger(__name__)

_QUIET_S = 0.5  # how long a read without writing goes on after the ends the broker reported


@dataclass(frozen=True)
class TopicShape:
    """How the topic is created when missing, and the worker keys that say so (for messages)."""

    partitions: int
    replication_factor: int
    partitions_key: str
    replication_key: str
    default_replication_factor: int = 3  # Kafka's, for the message that suggests lowering it


class CompactedTopic:
    """`topic` through one idempotent producer and one assigned consumer, both made on first use.
    Not thread-safe: its owner serialises the calls. Failures raise `error` (a ConnectError class) with
    a message naming the topic as `label` (e.g. "offsets topic")."""

    def __init__(
        self,
        topic: str,
        kafka: Mapping[str, Any],
        shape: TopicShape,
        *,
        label: str,
        error: type[ConnectError],
        barrier_key: Callable[[str], bytes],
        timeout_s: float = 30.0,
        read_committed: bool = False,
    ) -> None:
        self.topic = topic
        self.label = label
        self._kafka = dict(kafka)
        self._shape = shape
        self._error = error
        self._barrier_key = barrier_key
        self._timeout_s = timeout_s
        self._read_committed = read_committed
        self.partitions: list[int] = []
        self._producer: Producer | None = None
        self._consumer: Consumer | None = None

    # -- setup -----------------------------------------------------------------------------------
    def producer(self) -> Producer:
        """The producer, after creating the topic if missing and learning its partitions."""
        if self._producer is not None:
            return self._producer
        self._ensure_topic()
        producer = Producer(
            {
                **self._kafka,
                "acks": "all",
                "enable.idempotence": True,
                "linger.ms": 0,
                "allow.auto.create.topics": False,
                **client_log_settings(f"{self.label} producer ({self.topic})"),
            }
        )
        try:
            metadata = producer.list_topics(self.topic, timeout=self._timeout_s)
        except KafkaException as exc:
            raise self._error(
                f"Cannot read the metadata of the {self.label} {self.topic!r}: {exc.args[0].str() if exc.args else exc}"
            ) from None
        topic = metadata.topics.get(self.topic)
        if topic is None or topic.error is not None or not topic.partitions:
            raise self._error(
                f"The {self.label} {self.topic!r} has no partitions visible to the "
                f"worker ({topic.error if topic is not None else 'no metadata'})"
            )
        self.partitions = sorted(topic.partitions)
        self._producer = producer
        return producer

    def _ensure_topic(self) -> None:
        shape = self._shape
        config = {k: v for k, v in self._kafka.items() if k != "bootstrap.servers"}
        admin = open_topic_admin(
            self._kafka["bootstrap.servers"],
            config,
            request_timeout_s=self._timeout_s,
            client_name=f"{self.label} admin ({self.topic})",
        )
        try:
            _, missing = admin.describe([self.topic])
            if not missing:
                return
            brokers = admin.broker_count()
            if shape.replication_factor > brokers:
                raise self._error(
                    f"Cannot create the {self.label} {self.topic!r} with {shape.replication_key}="
                    f"{shape.replication_factor}: the cluster at {self._kafka['bootstrap.servers']} has only "
                    f"{brokers} broker(s). Set {shape.replication_key} to at most {brokers} (Kafka's default is "
                    f"{shape.default_replication_factor}; -1 takes the broker's default), or create the topic "
                    f"yourself (cleanup.policy=compact)."
                )
            settings = TopicSettings(self.topic, shape.partitions, shape.replication_factor)
            settings.with_cleanup_policy(CleanupPolicy.COMPACT)
            result = admin.create([settings], broker_count=brokers)[self.topic]
            if result.outcome is Outcome.FAILED:
                raise self._error(f"Cannot create the {self.label} {self.topic!r}: {result.error}")
            if result.outcome is Outcome.CREATED:
                log.info(
                    "Created the compacted %s %s (%d partition(s), replication factor %s)",
                    self.label,
                    self.topic,
                    shape.partitions,
                    "the broker's default" if shape.replication_factor == -1 else shape.replication_factor,
                )
            deadline = time.monotonic() + self._timeout_s
            while admin.describe([self.topic])[1]:
                if time.monotonic() > deadline:
                    raise self._error(f"The {self.label} {self.topic!r} did not become visible")
                time.sleep(0.05)
        except TopicAdminError as exc:
            raise self._error(f"Cannot check or create the {self.label} {self.topic!r}: {exc}") from None
        finally:
            admin.close()  # else librdkafka keeps it connected until a garbage collection finds it

    def consumer(self) -> Consumer:
        """The reader, assigned every partition from the beginning (made once, so reads after the first
        only fetch what is new)."""
        if self._consumer is None:
            self.producer()
            self._consumer = Consumer(
                {
                    **self._kafka,
                    "group.id": f"connectworker-{uuid.uuid4().hex}",
                    "enable.auto.commit": False,
                    "auto.offset.reset": "earliest",
                    "fetch.wait.max.ms": 50,
                    "isolation.level": "read_committed" if self._read_committed else "read_uncommitted",
                    "allow.auto.create.topics": False,
                    **client_log_settings(f"{self.label} consumer ({self.topic})"),
                }
            )
            self._consumer.assign([TopicPartition(self.topic, p, OFFSET_BEGINNING) for p in self.partitions])
        return self._consumer

    # -- reads -----------------------------------------------------------------------------------
    def read_to_end(self, apply: Callable[[Message], bool]) -> int:
        """Hand every record up to the topic's end (see the module doc) to `apply`, in each partition's
        order; returns how many `apply` accepted (returned True for)."""
        consumer = self.consumer()
        barrier = self._barrier_key(uuid.uuid4().hex)
        failures: list[KafkaError] = []
        for partition in self.partitions:
            self.produce(barrier, None, failures, partition=partition)
        self.wait_acks(failures, "writing a read barrier", self._timeout_s)
        waiting = set(self.partitions)
        applied = 0
        deadline = time.monotonic() + self._timeout_s
        while waiting:
            if time.monotonic() > deadline:
                raise self._error(
                    f"Could not read the {self.label} {self.topic!r} to its end: nothing "
                    f"arrived for {self._timeout_s:.0f}s (partitions {sorted(waiting)} lag behind)"
                )
            messages = consumer.consume(num_messages=10_000, timeout=0.05)
            if messages:  # a long topic may take longer than the timeout, as long as it flows
                deadline = time.monotonic() + self._timeout_s
            for msg in messages:
                err = msg.error()
                if err is not None:
                    if err.code() == KafkaError._PARTITION_EOF:
                        continue
                    raise self._error(f"Reading the {self.label} {self.topic!r} failed: {err.str()}")
                if msg.key() == barrier:
                    waiting.discard(msg.partition())
                elif apply(msg):
                    applied += 1
        return applied

    # -- writes ----------------------------------------------------------------------------------
    def produce(self, key: bytes, value: bytes | None, failures: list[KafkaError], partition: int = -1) -> None:
        """Queue one record; a failed delivery is appended to `failures` (see `wait_acks`)."""
        producer = self.producer()

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
                raise self._error(f"The {self.label} {self.topic!r} refused a record: {exc}") from None

    def wait_acks(self, failures: list[KafkaError], what: str, timeout_s: float) -> None:
        """Wait until every queued record is acknowledged; raise naming `what` if one failed or is late."""
        remaining = self.producer().flush(timeout_s)
        if failures or remaining:
            why = failures[0].str() if failures else f"{remaining} record(s) unacknowledged after {timeout_s:g}s"
            raise self._error(f"The {self.label} {self.topic!r} failed {what}: {why}")

    def close(self, flush_timeout_s: float) -> None:
        consumer, self._consumer = self._consumer, None
        producer, self._producer = self._producer, None
        if consumer is not None:
            consumer.close()
        if producer is not None and producer.flush(flush_timeout_s):
            log.warning("Records to the %s %s were still unacknowledged at close", self.label, self.topic)


def read_without_writing(
    topic: str,
    kafka: Mapping[str, Any],
    apply: Callable[[Message], object],
    *,
    label: str,
    error: type[ConnectError],
    timeout_s: float = 30.0,
    read_committed: bool = False,
) -> bool:
    """Hand every record of `topic` to `apply`, up to the end the broker reports for each partition (its
    last stable offset when `read_committed`), writing nothing: no barrier, and no topic created when it
    is missing (then False is returned; else True). For a dry run, which must leave the cluster as it
    found it; the worker itself reads with barriers (`CompactedTopic.read_to_end`), which do not rely on
    the broker's end offsets."""
    consumer = Consumer(
        {
            **kafka,
            "group.id": f"connectworker-dry-run-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "enable.partition.eof": True,
            "fetch.wait.max.ms": 50,
            "isolation.level": "read_committed" if read_committed else "read_uncommitted",
            "allow.auto.create.topics": False,
            **client_log_settings(f"{label} reader ({topic})"),
        }
    )
    try:
        try:
            metadata = consumer.list_topics(topic, timeout=timeout_s).topics.get(topic)
        except KafkaException as exc:
            raise error(f"Cannot read the metadata of the {label} {topic!r}: {exc}") from None
        if metadata is None or metadata.error is not None or not metadata.partitions:
            return False
        waiting = set(metadata.partitions)
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in waiting])
        deadline = time.monotonic() + timeout_s
        quiet_until = None  # once at every end: on, until a moment passes without a record (below)
        while quiet_until is None or time.monotonic() < quiet_until:
            if time.monotonic() > deadline:
                raise error(
                    f"Could not read the {label} {topic!r} to its end within {timeout_s:.0f}s "
                    f"(partitions {sorted(waiting)} lag behind)"
                )
            for msg in consumer.consume(num_messages=10_000, timeout=0.05):
                err = msg.error()
                if err is None:
                    apply(msg)
                    if quiet_until is not None:
                        quiet_until = time.monotonic() + _QUIET_S
                elif err.code() == KafkaError._PARTITION_EOF:
                    waiting.discard(msg.partition())
                else:
                    raise error(f"Reading the {label} {topic!r} failed: {err.str()}")
            if not waiting and quiet_until is None:
                # Some brokers (Tansu) report an end short of the records after multi-record batches: read on
                # until nothing more arrives for a moment, so the partitions' last records are not left out.
                quiet_until = time.monotonic() + _QUIET_S
        return True
    finally:
        consumer.close()
