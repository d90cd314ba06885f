"""The start-up check that the Kafka cluster answers, before any connector starts.

A worker pointed at the wrong address must say so and exit, not report its connectors RUNNING while
librdkafka retries behind it. The check asks for the cluster's id (DescribeCluster, which librdkafka
sends as a metadata request naming no topic: nothing is listed or auto-created) and waits at most
``bootstrap.timeout.ms``, or until `interrupt` raises (a Ctrl-C or SIGTERM meanwhile).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from connectworker.api.errors import ConfigError, ConnectError
from connectworker.runtime.observability.kafka_logging import client_log_settings, without_timing

_POLL_S = 0.1


class ClusterUnreachableError(ConnectError):
    pass


def check_cluster(
    bootstrap_servers: str,
    admin_config: Mapping[str, Any],
    timeout_ms: int,
    *,
    interrupt: Callable[[], None] | None = None,
) -> str | None:
    """The cluster id (None if the broker does not tell one); raises `ClusterUnreachableError` if no
    broker answered within `timeout_ms`. `admin_config` carries the worker's Admin settings (the
    security keys, ``admin.*``), so the check connects the way the worker will. `interrupt` is called every
    tenth of a second while the check waits; what it raises ends the wait."""
    errors: deque[KafkaError] = deque(maxlen=20)
    settings: dict[str, Any] = {
        **admin_config,
        **client_log_settings("bootstrap check"),
        "bootstrap.servers": bootstrap_servers,
        "error_cb": errors.append,
    }
    try:
        client = AdminClient(settings)
    except KafkaException as exc:
        raise ConfigError({"admin.*": f"the Kafka client refused the settings: {exc.args[0].str()}"}) from None
    future = client.describe_cluster(request_timeout=timeout_ms / 1000)
    deadline = time.monotonic() + timeout_ms / 1000 + 1.0  # the request's own timeout ends it first
    while not future.done() and time.monotonic() < deadline:
        if interrupt is not None:
            interrupt()
        client.poll(_POLL_S)  # serves error_cb and the log lines
    client.poll(0)
    failure = future.exception() if future.done() else None
    if future.done() and failure is None:
        return future.result().cluster_id
    cause = _cause(errors) or (failure.args[0].str() if isinstance(failure, KafkaException) else "no answer")
    raise ClusterUnreachableError(
        f"Cannot reach the Kafka cluster at bootstrap.servers={bootstrap_servers} within "
        f"bootstrap.timeout.ms={timeout_ms}: {cause}. Check bootstrap.servers (and the security settings: "
        f"security.protocol, ssl.*, sasl.*, admin.*), or raise bootstrap.timeout.ms for a slow cluster."
    )


def _cause(errors: Iterable[KafkaError]) -> str:
    """The most telling error the client reported: the last one about a connection."""
    seen = list(errors)
    for err in reversed(seen):
        if err.code() != KafkaError._ALL_BROKERS_DOWN:
            return without_timing(err.str() or err.name())
    return seen[-1].str() if seen else ""
