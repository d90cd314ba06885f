"""Reading back what the worker wrote. Counts come from consuming, never from watermarks
(Tansu's watermarks are wrong after multi-record batches)."""

from __future__ import annotations

import time
import uuid

from confluent_kafka import Consumer, KafkaError, Message
from confluent_kafka.admin import AdminClient


def consume(
    bootstrap: str, topics: list[str], expected: int, timeout: float = 30.0, config: dict[str, str] | None = None
) -> list[Message]:
    """Consume `topics` from the beginning until `expected` records arrived or `timeout` passed; `config`
    adds client settings (e.g. TLS)."""
    consumer = Consumer(
        {
            **(config or {}),
            "bootstrap.servers": bootstrap,
            "group.id": f"test-{uuid.uuid4().hex}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "session.timeout.ms": 2000,
            "heartbeat.interval.ms": 500,
            "allow.auto.create.topics": False,
            # a topic the worker has not created yet when this subscribes (its task process is still starting)
            # is found within half a second, not at librdkafka's default refresh of five minutes
            "topic.metadata.refresh.interval.ms": 500,
        }
    )
    out: list[Message] = []
    try:
        consumer.subscribe(topics)
        deadline = time.monotonic() + timeout
        while len(out) < expected and time.monotonic() < deadline:
            for msg in consumer.consume(num_messages=10_000, timeout=0.5):
                err = msg.error()
                if err is None:
                    out.append(msg)
                elif err.code() not in (KafkaError._PARTITION_EOF, KafkaError.UNKNOWN_TOPIC_OR_PART):
                    raise RuntimeError(f"consume failed: {err}")
        # a short grace period shows duplicates or extra records beyond `expected`
        grace = time.monotonic() + 1.0
        while time.monotonic() < grace:
            for msg in consumer.consume(num_messages=10_000, timeout=0.2):
                if msg.error() is None:
                    out.append(msg)
    finally:
        consumer.close()
    return out


def existing_topics(admin: AdminClient) -> set[str]:
    return set(admin.list_topics(timeout=10).topics)


def delete_topics(admin: AdminClient, topics: list[str]) -> None:
    if not topics:
        return
    for fut in admin.delete_topics(topics, operation_timeout=10).values():
        try:
            fut.result()
        except Exception as exc:  # a topic that never got created is fine to skip
            if "UNKNOWN_TOPIC" not in str(exc):
                raise
