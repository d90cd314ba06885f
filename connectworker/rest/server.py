"""Serving the REST API with uvicorn, one server thread per listener, next to the running worker."""

from __future__ import annotations

import errno
import logging
import socket
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

import uvicorn
from fastapi import FastAPI

from connectworker.api.errors import ConfigError, ConnectError
from connectworker.config.connector_config import ConnectorConfig
from connectworker.rest.app import create_app
from connectworker.rest.auth import CREDENTIALS_KEY, load_credentials
from connectworker.rest.herder import StandaloneHerder
from connectworker.rest.listeners import Listener, parse_listeners
from connectworker.rest.log_redaction import SecretRedactor
from connectworker.runtime.connector_store import ConnectorStore, store_path_for

if TYPE_CHECKING:
    from connectworker.runtime.standalone import StandaloneRuntime

log = logging.getLogger(__name__)

START_TIMEOUT_S = 15.0
GRACEFUL_SHUTDOWN_S = 5


def _bind(listener: Listener, key: str = "listeners") -> socket.socket:
    """Bind in the caller's thread, so a busy port fails start-up with a clear message naming `key` (and
    port 0 yields the port actually chosen)."""
    family = socket.AF_INET6 if ":" in listener.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((listener.host, listener.port))
    except OSError as exc:
        sock.close()
        where = f"{listener.scheme}://{listener.host}:{listener.port}"
        message = f"cannot listen on {where}: {exc.strerror or exc}"
        if exc.errno == errno.EADDRINUSE:
            message += (" (another process, perhaps another worker, listens there; choose another port, or "
                        "port 0 for a free one)")
        raise ConfigError({key: message}) from None
    return sock


def _uvicorn_config(app: FastAPI, listener: Listener) -> uvicorn.Config:
    tls = listener.tls
    config = uvicorn.Config(
        app, log_config=None, lifespan="off", timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
        ssl_certfile=tls.certfile if tls else None, ssl_keyfile=tls.keyfile if tls else None,
        ssl_keyfile_password=tls.key_password if tls else None, ssl_ca_certs=tls.cafile if tls else None,
        ssl_cert_reqs=tls.client_auth if tls else 0)
    try:
        config.load()  # builds the SSL context here, so a bad certificate or key fails start-up
    except (OSError, ValueError) as exc:
        raise ConfigError({"listeners.https.ssl.certfile":
                           f"cannot use the certificate or key: {exc}"}) from None
    return config


class RestServer:
    """`start()` serves `app` on every listener; `stop()` shuts the servers down."""

    def __init__(self, app: FastAPI, listeners: Sequence[Listener], *,
                 redactor: SecretRedactor | None = None, listeners_key: str = "listeners") -> None:
        self.app = app
        self.listeners = list(listeners)
        self._listeners_key = listeners_key  # named in a message about a port that cannot be bound
        self.urls: list[str] = []
        self._redactor = redactor
        self._servers: list[tuple[uvicorn.Server, threading.Thread, socket.socket]] = []

    def start(self) -> RestServer:
        try:
            for listener in self.listeners:
                sock = _bind(listener, self._listeners_key)
                server = uvicorn.Server(_uvicorn_config(self.app, listener))
                thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True,
                                          name=f"rest-{listener.scheme}-{listener.port}")
                self._servers.append((server, thread, sock))
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
        for server, thread, _ in self._servers:
            while not server.started:
                if not thread.is_alive():
                    raise ConnectError(f"The REST server thread {thread.name} ended during start-up; "
                                       f"see the log")
                if time.monotonic() > deadline:
                    raise ConnectError(f"The REST server did not start within {START_TIMEOUT_S:.0f} s")
                time.sleep(0.02)

    def stop(self) -> None:
        for server, _, _ in self._servers:
            server.should_exit = True
        for _, thread, sock in self._servers:
            if thread.is_alive():
                thread.join(GRACEFUL_SHUTDOWN_S + 2)
            sock.close()
        self._servers = []
        # Let go of the herder (and through it the worker's Kafka clients), so that stopping an embedded
        # broker next does not wait for their connections to close.
        self.app.state.herder = None
        if self._redactor is not None:
            self._redactor.uninstall()

    @classmethod
    def start_for(cls, runtime: StandaloneRuntime, connectors: Sequence[ConnectorConfig]) -> RestServer:
        """Serve the API for a started standalone runtime whose command-line connectors are `connectors`."""
        config = runtime.config
        assert runtime.worker is not None
        listeners = parse_listeners(config.listeners, config.prefixed("listeners.https."))
        credentials = None
        if config.rest_basic_auth_credentials_file:
            credentials = load_credentials(config.rest_basic_auth_credentials_file)
            log.info("REST API requires HTTP basic authentication (%s)", CREDENTIALS_KEY)
        store = (ConnectorStore(store_path_for(config.offset_storage_file_filename))
                 if config.offset_storage_file_filename else None)
        redactor = SecretRedactor()
        redactor.install()
        try:
            herder = StandaloneHerder(runtime.worker, config, admin=runtime.admin, store=store,
                                      redactor=redactor, cluster_id=runtime.cluster_id)
            herder.start(connectors)
            return cls(create_app(herder, credentials=credentials), listeners, redactor=redactor,
                       listeners_key=config.listeners_key).start()
        except BaseException:
            redactor.uninstall()
            raise
