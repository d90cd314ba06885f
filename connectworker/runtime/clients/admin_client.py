"""Building the worker's `TopicAdmin`s so that librdkafka's admin log lines reach Python logging.

`connectworker.topics` knows nothing of the worker's logging: the ``logger`` client setting and the
thread that polls the client (an AdminClient's log lines wait for ``poll()``, which nobody else
calls) are added here. Every TopicAdmin of the worker, the CLI, Spark and the benchmarks is built by
`open_topic_admin`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connectworker.runtime.observability.kafka_logging import client_log_settings, serve_logs_in_background
from connectworker.topics.admin import TopicAdmin


def open_topic_admin(
    bootstrap_servers: str,
    config: Mapping[str, Any] | None = None,
    *,
    request_timeout_s: float = 30.0,
    client_name: str = "admin",
) -> TopicAdmin:
    """A TopicAdmin whose librdkafka lines go to the ``connectworker.kafka`` logger as `client_name`,
    served by a background thread that ends once the admin is gone."""
    admin = TopicAdmin(bootstrap_servers, config, request_timeout_s, client_settings=client_log_settings(client_name))
    serve_logs_in_background(admin, client_name)
    return admin
