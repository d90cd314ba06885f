"""A REST port that is already taken stops start-up with a message naming the key the port came from
(`listeners`, or Kafka's `rest.port`) and what to do, not a traceback."""

from __future__ import annotations

import socket

import pytest
from fastapi import FastAPI

from connectworker.api import ConfigError
from connectworker.config.worker_config import WorkerConfig
from connectworker.rest.listeners import parse_listeners
from connectworker.rest.server import RestServer


@pytest.mark.parametrize("key", ["listeners", "rest.port"])
def test_a_taken_port_names_the_key_it_came_from(key: str) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        props = {"listeners": f"http://127.0.0.1:{port}"} if key == "listeners" else {"rest.port": str(port)}
        config = WorkerConfig.from_properties(props)
        server = RestServer(FastAPI(), parse_listeners(config.listeners, {}), listeners_key=config.listeners_key)
        with pytest.raises(ConfigError) as info:
            server.start()
    assert set(info.value.problems) == {key}
    message = info.value.problems[key]
    assert message.startswith(f"cannot listen on http://127.0.0.1:{port}: Address already in use")
    assert "choose another port, or port 0 for a free one" in message
