"""The producing end of the benches' plain loops (their "raw" sides): confluent-kafka with the worker's
producer defaults, a record handed on even when the producer's queue is full (waited out, as a source task's
producer waits)."""

from __future__ import annotations

from confluent_kafka import Producer

from connectworker.runtime.clients.producer_settings import PRODUCER_DEFAULTS


def open_producer(bootstrap: str) -> Producer:
    return Producer({**PRODUCER_DEFAULTS, "bootstrap.servers": bootstrap})


def produce(producer: Producer, topic: str, value: bytes, key: bytes) -> None:
    """`value` and `key` queued for `topic`; while the queue is full, delivery reports are served first."""
    while True:
        try:
            producer.produce(topic, value, key)
            return
        except BufferError:
            producer.poll(0.05)
