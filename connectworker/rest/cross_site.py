"""Refuses changes that a browser makes on behalf of another site.

A page on any site can make a visitor's browser send a plain form POST to the worker: CORS guards the
reading of an answer, not the sending of such a request, and the browser attaches the basic-auth
credentials it has cached for the worker (or reaches a loopback listener from the visitor's own
machine). Most of the API is safe from it anyway: bodies must be JSON (another content type is refused
with 400), and PUT and DELETE cannot be sent cross-site without a preflight the worker never grants.
What remained were the POSTs without a body: restarting a connector or its tasks.

Browsers mark every request with `Sec-Fetch-Site`: `same-origin` for the console's own calls, `none`
for what the user typed, `same-site` or `cross-site` for requests another page started. So a request
that may change something (anything but GET, HEAD and OPTIONS) marked `same-site` or `cross-site` is
refused with 403, before it reaches a route. Command-line clients and libraries send no such header
and are not affected; nor is anything behind a proxy, as the browser sets the header from the URLs it
sees. (Kafka Connect serves no browser console and has no such guard.)
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from connectworker.rest.errors import error_response

READ_ONLY = frozenset({"GET", "HEAD", "OPTIONS"})
FOREIGN = frozenset({b"cross-site", b"same-site"})


class CrossSiteWriteGuard:
    """ASGI middleware: a change a browser makes for another site's page gets 403."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in READ_ONLY:
            site = next((v.lower() for k, v in scope["headers"] if k == b"sec-fetch-site"), None)
            if site in FOREIGN:
                response = error_response(
                    403,
                    f"{scope['method']} {scope['path']} refused: the browser says a page of another site "
                    f"(Sec-Fetch-Site: {site.decode('latin-1')}) sent it. Use the console at /ui, or a "
                    f"client outside the browser.",
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
