"""What every producer the worker creates starts from (task producers, and on Spark the Kafka sink's):
at-least-once delivery that keeps per-partition order. A module of its own so that Spark's write
tasks get it without importing the worker."""

from __future__ import annotations

from typing import Any

PRODUCER_DEFAULTS: dict[str, Any] = {
    "acks": "all",
    "enable.idempotence": True,
    "linger.ms": 5,
    "compression.type": "none",
    "queue.buffering.max.messages": 500_000,
    "batch.num.messages": 10_000,
}
