"""The request body bound, at its exact boundary, over an in-process ASGI transport (the real server and
limit are exercised in tests/integration/test_rest_input_limits.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from starlette.types import Receive, Scope, Send

from connectworker.rest.body_limit import BodyLimitMiddleware

LIMIT = 10


async def echo_size(scope: Scope, receive: Receive, send: Send) -> None:
    """Answers with the size of the body it read: proves the body reached the app whole."""
    size, more = 0, True
    while more:
        message = await receive()
        size += len(message.get("body", b""))
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    await send({"type": "http.response.body", "body": str(size).encode()})


async def chunks(total: int, size: int = 3) -> AsyncIterator[bytes]:
    sent = 0
    while sent < total:
        piece = min(size, total - sent)
        sent += piece
        yield b"x" * piece


async def post(content: bytes | AsyncIterator[bytes]) -> httpx.Response:
    transport = httpx.ASGITransport(app=BodyLimitMiddleware(echo_size, max_bytes=LIMIT))
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        return await client.post("/connectors", content=content)


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_body_at_the_limit_passes_whole_and_one_byte_more_gets_413(chunked: bool) -> None:
    def send(total: int) -> httpx.Response:
        return asyncio.run(post(chunks(total) if chunked else b"x" * total))

    at_limit = send(LIMIT)
    assert at_limit.status_code == 200 and at_limit.text == str(LIMIT)
    over = send(LIMIT + 1)
    assert over.status_code == 413
    assert over.json() == {"error_code": 413, "message": "The request body is larger than the limit of 10 bytes"}
    assert send(0).text == "0"  # no body at all (a GET, a DELETE) passes untouched
