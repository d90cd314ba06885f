"""A bound on request bodies: anything larger than `MAX_BODY_BYTES` (1 MiB) gets 413 in Kafka's error
shape, before any route sees it, so an oversized config is never validated, started or persisted.

A declared ``Content-Length`` is checked up front, without reading the body (the HTTP server then
discards the rest of it, keeping the connection usable). A body without one (chunked transfer
encoding) is read and counted here, and handed on whole only while it stays within the bound: the
routes read every body completely anyway, so buffering it costs nothing extra.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from connectworker.rest.errors import error_response

MAX_BODY_BYTES = 1024 * 1024
TOO_LARGE = 413


def _declared_length(scope: Scope) -> int | None:
    for key, value in scope.get("headers", ()):
        if key == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the HTTP server rejects a malformed length before we run; count instead
    return None


class BodyLimitMiddleware:
    """Pure ASGI middleware answering 413 to HTTP requests whose body exceeds `max_bytes`."""

    def __init__(self, app: ASGIApp, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _declared_length(scope)
        if declared is not None:
            if declared > self.max_bytes:
                await self._refuse(scope, receive, send)
            else:
                await self.app(scope, receive, send)  # the server delivers exactly the declared length
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away before sending its whole request: nobody to answer
            body: bytes = message.get("body", b"")
            size += len(body)
            if size > self.max_bytes:
                await self._refuse(scope, receive, send)
                return
            chunks.append(body)
            if not message.get("more_body", False):
                break
        await self.app(scope, _replay(b"".join(chunks), receive), send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = error_response(TOO_LARGE, f"The request body is larger than the limit of {_size(self.max_bytes)}")
        await response(scope, receive, send)


def _size(count: int) -> str:
    mib, rest = divmod(count, 1024 * 1024)
    return f"{mib} MiB ({count} bytes)" if mib and not rest else f"{count} bytes"


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that first hands over the buffered body, then defers to the server's (disconnects)."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay
