"""Serving the REST API with uvicorn, one server thread per listener, over the runtime's herder.

The server is a door, not the house: the CLI starts the runtime and its herder, and binds the REST
ports first (`bind`), so a port in use is reported before any connector starts; then `start` serves.
"""

from __future__ import annotations

import errno
import logging
import socket
import threading
import time
from collections.abc import Sequence

import uvicorn
from fastapi import FastAPI

from connectworker.api.errors import ConfigError, ConnectError
from connectworker.config.listeners import CREDENTIALS_KEY, Listener
from connectworker.config.worker_config import WorkerConfig
from connectworker.rest.app import create_app
from connectworker.runtime.herder.protocol import Herder

log = logging.getLogger(__name__)

START_TIMEOUT_S = 15.0
GRACEFUL_SHUTDOWN_S = 5
IDLE_TIMEOUT_S = 30
"""How long an idle keep-alive connection stays open: Jetty's default idle timeout, which Kafka Connect's REST
server keeps. uvicorn's own default (5 s) equals the keep-alive expiry of common clients (httpx's is 5 s): a
request sent on a pooled connection just as the server closes it is reset (seen in a test on a loaded machine);
with the server waiting longer, such clients close their idle connections first."""


class ListenerError(ConnectError):
    """A REST listener cannot be bound (port in use, address not available): not a configuration
    mistake as such, so the message names the key (or variable) the address came from."""


def _bind(listener: Listener, key: str = "listeners") -> socket.socket:
    """Bind in the caller's thread, so a busy port fails start-up with a clear message naming `key` (and
    port 0 yields the port actually chosen)."""
    family = socket.AF_INET6 if ":" in listener.host else socket.AF_INET
    # IPPROTO_TCP named, not left 0: asyncio turns Nagle off (TCP_NODELAY) only on connections of a TCP
    # socket that says so, and with Nagle on, a response's body waits for the client's delayed ACK of its
    # headers: 40 ms on every request of a kept-alive connection.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((listener.host, listener.port))
    except OSError as exc:
        sock.close()
        where = f"{listener.scheme}://{listener.host}:{listener.port}"
        message = f"The REST API cannot listen on {where} (from {key}): {exc.strerror or exc}"
        if exc.errno == errno.EADDRINUSE:
            message += (
                "; another process, perhaps another worker, listens there: choose another port, "
                "port 0 for a free one, or an empty listeners= to run without REST"
            )
        raise ListenerError(message) from None
    return sock


def _uvicorn_config(app: FastAPI, listener: Listener) -> uvicorn.Config:
    tls = listener.tls
    config = uvicorn.Config(
        app,
        log_config=None,
        lifespan="off",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
        timeout_keep_alive=IDLE_TIMEOUT_S,
        ssl_certfile=tls.certfile if tls else None,
        ssl_keyfile=tls.keyfile if tls else None,
        ssl_keyfile_password=tls.key_password if tls else None,
        ssl_ca_certs=tls.cafile if tls else None,
        ssl_cert_reqs=tls.client_auth if tls else 0,
    )
    try:
        config.load()  # builds the SSL context here, so a bad certificate or key fails start-up
    except (OSError, ValueError) as exc:
        raise ConfigError({"listeners.https.ssl.certfile": f"cannot use the certificate or key: {exc}"}) from None
    return config


class RestServer:
    """`bind()` takes the ports, `start(app)` serves `app` on them, `stop()` shuts the servers down."""

    def __init__(
        self,
        listeners: Sequence[Listener],
        *,
        listeners_key: str = "listeners",
        credentials: dict[str, str] | None = None,
    ) -> None:
        self.listeners = list(listeners)
        self._listeners_key = listeners_key  # named in a message about a port that cannot be bound
        self.credentials = credentials
        self.app: FastAPI | None = None
        self.urls: list[str] = []
        self._sockets: list[socket.socket] = []
        self._servers: list[tuple[uvicorn.Server, threading.Thread]] = []

    @classmethod
    def for_worker(cls, config: WorkerConfig) -> RestServer | None:
        """The server the worker's `listeners` ask for, or None when `listeners` is empty (no REST)."""
        access = config.rest_access
        if not access.listeners:
            return None
        if access.credentials is not None:
            log.info("REST API requires HTTP basic authentication (%s)", CREDENTIALS_KEY)
        return cls(access.listeners, listeners_key=access.listeners_key, credentials=access.credentials)

    def bind(self) -> RestServer:
        """Take every listener's port now, before anything else starts."""
        if self._sockets:
            return self
        try:
            for listener in self.listeners:
                self._sockets.append(_bind(listener, self._listeners_key))
        except BaseException:
            self._close_sockets()
            raise
        return self

    def serve(self, herder: Herder) -> RestServer:
        """Serve Kafka Connect's REST API over `herder`."""
        return self.start(create_app(herder, credentials=self.credentials))

    def start(self, app: FastAPI) -> RestServer:
        self.app = app
        try:
            self.bind()
            for listener, sock in zip(self.listeners, self._sockets, strict=True):
                server = uvicorn.Server(_uvicorn_config(app, listener))
                thread = threading.Thread(
                    target=server.run,
                    kwargs={"sockets": [sock]},
                    daemon=True,
                    name=f"rest-{listener.scheme}-{listener.port}",
                )
                self._servers.append((server, thread))
                thread.start()
                host, port = sock.getsockname()[:2]
                shown = f"[{host}]" if ":" in host else host
                self.urls.append(f"{listener.scheme}://{shown}:{port}")
            self._wait_started()
        except BaseException:
            self.stop()
            raise
        for url in self.urls:
            log.info("REST API listening on %s (OpenAPI document at %s/openapi.json)", url, url)
        return self

    def _wait_started(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        for server, thread in self._servers:
            while not server.started:
                if not thread.is_alive():
                    raise ConnectError(f"The REST server thread {thread.name} ended during start-up; see the log")
                if time.monotonic() > deadline:
                    raise ConnectError(f"The REST server did not start within {START_TIMEOUT_S:.0f} s")
                time.sleep(0.02)

    def stop(self) -> None:
        for server, _ in self._servers:
            server.should_exit = True
        for _, thread in self._servers:
            if thread.is_alive():
                thread.join(GRACEFUL_SHUTDOWN_S + 2)
        self._servers = []
        self._close_sockets()
        # Let go of the herder (and through it the worker's Kafka clients), so that stopping an embedded
        # broker next does not wait for their connections to close.
        if self.app is not None:
            self.app.state.herder = None

    def _close_sockets(self) -> None:
        for sock in self._sockets:
            sock.close()
        self._sockets = []
