"""Reading back what Debezium's transforms wrote: each message's key, value, headers, timestamp and
partition, JSON-decoded."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from confluent_kafka import Consumer

from tests.integration.cdc_helpers import assign_all
from tests.integration.harness import wait_until


@dataclass(frozen=True)
class Message:
    key: Any
    value: Any  # None: a tombstone
    headers: dict[str, str]
    timestamp: int
    partition: int


def read_messages(
    bootstrap: str, topic: str, done: Callable[[list[Message]], bool], timeout: float = 90
) -> list[Message]:
    """The topic's messages from its start (every partition, in each one's order) until `done(messages)`."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"smt-{topic}",
            "auto.offset.reset": "earliest",
            "enable.auto.commit": False,
            "topic.metadata.refresh.interval.ms": 500,
        }
    )
    out: list[Message] = []
    try:
        assign_all(consumer, topic, timeout)

        def step() -> bool:
            for message in consumer.consume(500, timeout=0.5):
                if message.error():
                    continue
                out.append(
                    Message(
                        json.loads(message.key()) if message.key() else None,
                        json.loads(message.value()) if message.value() is not None else None,
                        {name: value.decode() for name, value in message.headers() or []},
                        message.timestamp()[1],
                        message.partition(),
                    )
                )
            return done(out)

        wait_until(step, timeout, lambda: f"{topic}'s messages ({len(out)} read: {out[-3:]})")
    finally:
        consumer.close()
    return out


def count_of(n: int) -> Callable[[list[Message]], bool]:
    return lambda messages: len(messages) >= n
