"""`metrics.listener`: `GET /metrics` on a port of its own, served by prometheus-client's own HTTP
server, so a worker without the REST API (`listeners=` empty) can still be scraped, or metrics can live
on a port the REST API does not share. Like the REST listeners, it is bound before the cluster is
contacted, so a port in use stops start-up with a line naming the key.
"""

from __future__ import annotations

import errno
import logging
import threading
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, start_http_server

from connectworker.rest.server import ListenerError

__all__ = ["MetricsListener"]

log = logging.getLogger(__name__)


class MetricsListener:
    """Serves a registry's metrics at `http://host:port/metrics` until `stop()`."""

    def __init__(self, server: WSGIServer, thread: threading.Thread, host: str) -> None:
        self._server = server
        self._thread = thread
        self.url = f"http://{host}:{server.server_port}/metrics"  # port 0 asked: the one chosen

    @classmethod
    def start(cls, address: tuple[str, int], registry: CollectorRegistry) -> MetricsListener:
        host, port = address
        try:
            server, thread = start_http_server(port, addr=host, registry=registry)
        except OSError as exc:
            message = f"Metrics cannot listen on http://{host}:{port} (from metrics.listener): {exc.strerror or exc}"
            if exc.errno == errno.EADDRINUSE:
                message += "; choose another port, port 0 for a free one, or remove metrics.listener"
            raise ListenerError(message) from None
        listener = cls(server, thread, host)
        log.info("Prometheus metrics at %s (metrics.listener)", listener.url)
        return listener

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
