"""A REST port that is already taken stops start-up with a message naming the key (or the CONNECT_*
variable) the port came from (`listeners`, or Kafka's `rest.port`) and what to do, not a traceback, and
not called an invalid configuration."""

from __future__ import annotations

import socket

import pytest

from connectworker.config.worker_config import WorkerConfig
from connectworker.rest.server import ListenerError, RestServer


@pytest.mark.parametrize("key", ["listeners", "rest.port"])
def test_a_taken_port_names_the_key_it_came_from(key: str) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        props = {"listeners": f"http://127.0.0.1:{port}"} if key == "listeners" else {"rest.port": str(port)}
        server = RestServer.for_worker(WorkerConfig.from_properties(props))
        assert server is not None
        with pytest.raises(ListenerError) as info:
            server.bind()
    message = str(info.value)
    assert message.startswith(
        f"The REST API cannot listen on http://127.0.0.1:{port} (from {key}): Address already in use"
    )
    assert "choose another port, port 0 for a free one, or an empty listeners= to run without REST" in message
    assert "Invalid configuration" not in message


def test_a_taken_port_set_through_the_environment_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        monkeypatch.setenv("CONNECT_LISTENERS", f"http://127.0.0.1:{port}")
        server = RestServer.for_worker(WorkerConfig.from_properties({"listeners": "http://127.0.0.1:1"}))
        assert server is not None
        with pytest.raises(ListenerError, match=r"\(from CONNECT_LISTENERS \(sets listeners\)\)"):
            server.bind()


def test_an_empty_listeners_means_no_rest_server() -> None:
    assert RestServer.for_worker(WorkerConfig.from_properties({"listeners": ""})) is None
