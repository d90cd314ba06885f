"""The REST server's connections have Nagle's algorithm off (TCP_NODELAY).

A response goes out as two writes, headers then body. With Nagle on, the body waits until the client
ACKs the headers, and a client delays that ACK by up to 40 ms: every request on a kept-alive
connection (requests.Session, the kafkaconnect client, a browser) took ~44 ms instead of ~2 ms
(`python -m bench.bench_rest_latency`). asyncio turns Nagle off only on connections of a listening
socket created as IPPROTO_TCP, so the test looks at the accepted connection itself.
"""

from __future__ import annotations

import http.client
import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI

from connectworker.config.listeners import parse_listeners
from connectworker.rest.server import RestServer

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/fd")


def _server_side_of(client_address: tuple[str, int]) -> Iterator[socket.socket]:
    """This process's sockets whose peer is `client_address` (the server's end of that connection; a
    descriptor duplicated here may be listed again under a number the listing itself used)."""
    for fd in os.listdir("/proc/self/fd"):
        try:
            if not Path(f"/proc/self/fd/{fd}").readlink().name.startswith("socket:"):
                continue
        except OSError:
            continue  # the listing's own descriptor, closed meanwhile
        sock = socket.socket(fileno=os.dup(int(fd)))
        try:
            if sock.type == socket.SOCK_STREAM and sock.getpeername()[:2] == client_address:
                yield sock
                continue
        except OSError:
            pass  # a listening or unconnected socket has no peer: not the one looked for
        sock.close()


def test_a_kept_alive_connection_answers_without_waiting_for_delayed_acks() -> None:
    app = FastAPI()

    @app.get("/ping")
    def ping() -> dict[str, str]:
        return {"pong": "yes"}

    server = RestServer(parse_listeners("http://127.0.0.1:0", {})).start(app)
    try:
        host, port = server.urls[0].removeprefix("http://").split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=10)
        for _ in range(2):  # the second request reuses the connection, where Nagle would hold the body
            connection.request("GET", "/ping")
            response = connection.getresponse()
            assert (response.status, response.read()) == (200, b'{"pong":"yes"}')
        assert connection.sock is not None
        client_address = connection.sock.getsockname()[:2]
        server_side = list(_server_side_of(client_address))
        try:
            assert server_side, "the server's end of the connection is not in this process"
            assert all(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0 for sock in server_side)
        finally:
            for sock in server_side:
                sock.close()
        connection.close()
    finally:
        server.stop()
