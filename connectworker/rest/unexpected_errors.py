"""The last line of defence: an exception no route or handler expected still answers 500 in Kafka's error
shape, ``{"error_code": 500, "message": …}``, with secrets hidden and without a traceback (that goes to the
log, redacted like every log line).

Starlette's own last resort answers too, but then re-raises, and the server closes the connection: a
client reusing it for its next request gets a connection reset. Answering here keeps it usable.
"""

from __future__ import annotations

import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from connectworker.rest.errors import error_response, redacted

log = logging.getLogger(__name__)


class UnexpectedErrorMiddleware:
    """Pure ASGI middleware: turns an exception escaping the app into a 500 answer, if none was started."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception as exc:
            if started:
                raise  # too late to answer: the server ends the response and logs the error
            log.error("%s %s failed", scope.get("method"), scope.get("path"), exc_info=exc)
            message = redacted(scope.get("app"), f"Unexpected error: {type(exc).__name__}: {exc}")
            await error_response(500, message)(scope, receive, send)
