"""A TLS listener on loopback in front of a plaintext broker: what a secured cluster looks like to a client.

The proxy terminates TLS (with the test's server certificate, and the client's certificate required when
asked) and forwards the plain bytes to the broker. Kafka clients connect to the address a broker
advertises, so the broker behind it advertises the proxy's port (`tls_embedded_broker`): every connection
a client makes is a TLS one. asyncio does the TLS (one thread, memory BIOs), so no SSL socket is read
and written from two threads at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from connectworker.embedded_broker import EmbeddedBroker

_CHUNK = 256 * 1024


class TlsProxy:
    """Accepts TLS on 127.0.0.1:`port` and forwards to 127.0.0.1:`upstream_port`. Use as a context manager."""

    def __init__(self, context: ssl.SSLContext) -> None:
        self.upstream_port: int | None = None
        self.client_subjects: list[str] = []  # the common name of each client certificate presented
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="tls-proxy", daemon=True)
        self._thread.start()
        start = asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=context)
        self._server = asyncio.run_coroutine_threadsafe(start, self._loop).result(timeout=5)
        self.port: int = self._server.sockets[0].getsockname()[1]

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peercert") or {}
        names = [value for rdn in peer.get("subject", ()) for key, value in rdn if key == "commonName"]
        self.client_subjects += names
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(self._pipe(reader, upstream_writer), self._pipe(upstream_reader, writer))

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, ssl.SSLError):  # either side went: end both directions
            while data := await reader.read(_CHUNK):
                writer.write(data)
                await writer.drain()
        writer.close()

    def close(self) -> None:
        async def stop() -> None:
            self._server.close()
            await self._server.wait_closed()

        with contextlib.suppress(TimeoutError):  # connections still open: the loop stops anyway
            asyncio.run_coroutine_threadsafe(stop(), self._loop).result(timeout=2)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)

    def __enter__(self) -> TlsProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class TlsBroker:
    proxy: TlsProxy
    broker: EmbeddedBroker

    @property
    def bootstrap_servers(self) -> str:
        return self.proxy.address


@contextmanager
def tls_embedded_broker(context: ssl.SSLContext) -> Iterator[TlsBroker]:
    """A broker of its own reached only over TLS, through a proxy with `context` (the server's side)."""
    with TlsProxy(context) as proxy, EmbeddedBroker(advertised_port=proxy.port) as broker:
        proxy.upstream_port = broker.port
        yield TlsBroker(proxy, broker)
