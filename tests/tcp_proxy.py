"""A loopback TCP proxy that a test can cut and restore, to take a broker away from the worker.

`cut()` closes every proxied connection and the listening socket, so new connections are refused
(what a client sees when a broker process dies); `restore()` listens on the same port again. Kafka
clients connect to the address a broker *advertises*, not only to the bootstrap address: the broker
behind the proxy must advertise the proxy's port (see `EmbeddedBroker(advertised_port=...)`).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from connectworker.embedded_broker import EmbeddedBroker

_ACCEPT_TICK_S = 0.05
_CHUNK = 256 * 1024


def _bind(port: int) -> socket.socket:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    listener.settimeout(_ACCEPT_TICK_S)
    return listener


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked in recv() on it
    sock.close()


class TcpProxy:
    """Forwards 127.0.0.1:`port` to 127.0.0.1:`upstream_port`. Use as a context manager."""

    def __init__(self, upstream_port: int | None = None) -> None:
        self.upstream_port = upstream_port
        self._listener: socket.socket | None = _bind(0)
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._closed = False
        self._cut = False
        self._applied = threading.Condition(self._lock)
        self._generation = 0  # bumped by cut()/restore(); the accept thread echoes it once applied
        self._applied_generation = 0
        self.accepted = 0
        self._thread = threading.Thread(target=self._accept_loop, name="tcp-proxy", daemon=True)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, upstream_port: int | None = None) -> TcpProxy:
        if upstream_port is not None:
            self.upstream_port = upstream_port
        if self.upstream_port is None:
            raise ValueError("the proxy needs the port it forwards to")
        self._thread.start()
        return self

    def cut(self) -> None:
        """Close every connection and stop listening; returns once new connections are refused."""
        self._change(cut=True)

    def restore(self) -> None:
        """Listen again on the same port; returns once new connections are accepted."""
        self._change(cut=False)

    def close(self) -> None:
        with self._lock:
            self._closed = True
        self._thread.join(timeout=5)
        self._drop_connections()

    def __enter__(self) -> TcpProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- internals -----------------------------------------------------------------------------
    def _change(self, *, cut: bool) -> None:
        with self._lock:
            self._cut = cut
            self._generation += 1
            wanted = self._generation
        if cut:
            self._drop_connections()
        with self._applied:
            if not self._applied.wait_for(lambda: self._applied_generation >= wanted, timeout=5):
                raise RuntimeError("the proxy's accept thread did not apply the change within 5 s")

    def _drop_connections(self) -> None:
        with self._lock:
            connections, self._connections = self._connections, set()
        for sock in connections:
            _close(sock)

    def _accept_loop(self) -> None:
        """Owns the listening socket: only this thread binds, accepts on and closes it."""
        try:
            while True:
                with self._lock:
                    if self._closed:
                        return
                    cut, generation = self._cut, self._generation
                if cut and self._listener is not None:
                    self._listener.close()
                    self._listener = None
                elif not cut and self._listener is None:
                    self._listener = _bind(self.port)
                with self._applied:
                    self._applied_generation = generation
                    self._applied.notify_all()
                if self._listener is None:
                    threading.Event().wait(_ACCEPT_TICK_S)
                    continue
                try:
                    client, _ = self._listener.accept()
                except TimeoutError:
                    continue
                self._forward(client)
        finally:
            if self._listener is not None:
                self._listener.close()
                self._listener = None

    def _forward(self, client: socket.socket) -> None:
        client.settimeout(None)
        try:
            upstream = socket.create_connection(("127.0.0.1", self.upstream_port or 0), timeout=5)
        except OSError:
            client.close()
            return
        upstream.settimeout(None)
        for sock in (client, upstream):  # forward each chunk at once, as the Kafka clients' own sockets do
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        with self._lock:
            if self._cut or self._closed:  # cut while connecting: this connection must not survive
                _close(client)
                _close(upstream)
                return
            self._connections.update((client, upstream))
            self.accepted += 1
        for src, dst in ((client, upstream), (upstream, client)):
            threading.Thread(target=self._pipe, args=(src, dst), name="tcp-proxy-pipe", daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):  # the other side went, or cut() closed us: end both directions
            while data := src.recv(_CHUNK):
                dst.sendall(data)
        with self._lock:
            self._connections.discard(src)
            self._connections.discard(dst)
        _close(src)
        _close(dst)


@dataclass
class ProxiedBroker:
    proxy: TcpProxy
    broker: EmbeddedBroker

    @property
    def bootstrap_servers(self) -> str:
        return self.proxy.address


@contextmanager
def proxied_embedded_broker() -> Iterator[ProxiedBroker]:
    """A broker of its own that advertises the proxy's address, so every connection a client makes
    goes through the proxy (the session's broker advertises its own port, which no proxy can cut)."""
    with TcpProxy() as proxy, EmbeddedBroker(advertised_port=proxy.port) as broker:
        proxy.start(broker.port)
        yield ProxiedBroker(proxy, broker)
