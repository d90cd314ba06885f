"""`TopicAdmin.close()`: a stopped worker's Admin client lets go of librdkafka at once, even while the
wrapper lives on in a reference cycle, so it stops reconnecting (and logging "Connection refused") to a
cluster that is gone; its log-serving thread ends; a later call says the client was closed."""

from __future__ import annotations

import socket
import weakref

import pytest

from connectworker.runtime.observability.kafka_logging import client_log_settings, serve_logs_in_background
from connectworker.topics.admin import TopicAdmin, TopicAdminError


def a_closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_close_releases_the_client_ends_its_log_thread_and_refuses_later_calls() -> None:
    admin = TopicAdmin(
        f"127.0.0.1:{a_closed_port()}", request_timeout_s=1.0, client_settings=client_log_settings("closing admin")
    )
    thread = serve_logs_in_background(admin, "closing-admin", interval_s=0.05)
    cycle = {"admin": admin}
    cycle["self"] = cycle  # kept alive by a cycle, as a stopped runtime's admin is
    client = weakref.ref(admin._client)

    admin.close()

    thread.join(5)  # a poll under way when it closed holds the client until it returns
    assert not thread.is_alive()
    assert client() is None  # librdkafka's handle is destroyed: it stops connecting
    with pytest.raises(TopicAdminError, match=r"The Admin client was closed \(its worker stopped\); list_topics"):
        admin.broker_count()
    assert admin.poll() == 0
