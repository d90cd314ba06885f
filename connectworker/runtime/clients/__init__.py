"""Kafka client plumbing every room shares: producer defaults, the Admin client of topic creation and
the storage topics, Java's partitioner (for offsets-topic keys), connectivity tracking, the start-up
cluster check, GC tuning and retry backoff.

May import: api, topics (the Admin wrapper) and runtime's `observability.kafka_logging`; nothing else
of runtime.

Its public surface (`__all__`) is what other packages (Spark's among them) use; names resolve on
first use, so importing the package imports none of its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from connectworker.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from connectworker.runtime.clients.admin_client import open_topic_admin
    from connectworker.runtime.clients.gc_tuning import tune_gc_for_throughput
    from connectworker.runtime.clients.producer_settings import PRODUCER_DEFAULTS

_EXPORTS = {
    "open_topic_admin": "admin_client",
    "PRODUCER_DEFAULTS": "producer_settings",
    "tune_gc_for_throughput": "gc_tuning",
}
__all__ = [
    "PRODUCER_DEFAULTS",
    "open_topic_admin",
    "tune_gc_for_throughput",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
