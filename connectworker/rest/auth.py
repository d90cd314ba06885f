"""Optional HTTP basic authentication for the REST API.

`rest.basic.auth.credentials.file` names a Java properties file with one ``user=password`` (or
``user: password``) entry per line: the format of the file Kafka's `PropertyFileLoginModule` reads, so a
Kafka user's credentials file carries over. Every request, the OpenAPI document included, must then
carry valid credentials; others get 401 with a ``WWW-Authenticate`` challenge.
"""

from __future__ import annotations

import base64
import binascii
import hmac
from collections.abc import Mapping

from starlette.types import ASGIApp, Receive, Scope, Send

from connectworker.rest.errors import error_response

REALM = "connectworker"


def check_basic(header: str | None, credentials: Mapping[str, str]) -> bool:
    """Whether an ``Authorization`` header carries a known user and its password."""
    if not header or header[:6].lower() != "basic ":
        return False
    try:
        decoded = base64.b64decode(header[6:].strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return False
    user, sep, password = decoded.partition(":")
    expected = credentials.get(user)
    if not sep or expected is None:
        return False
    return hmac.compare_digest(password.encode("utf-8"), expected.encode("utf-8"))


class BasicAuthMiddleware:
    """ASGI middleware: lets a request through only with valid basic credentials."""

    def __init__(self, app: ASGIApp, credentials: Mapping[str, str]) -> None:
        self.app = app
        self.credentials = dict(credentials)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"authorization"), None)
        if check_basic(header, self.credentials):
            await self.app(scope, receive, send)
            return
        response = error_response(
            401, "User cannot access the resource.", headers={"WWW-Authenticate": f'Basic realm="{REALM}"'}
        )
        await response(scope, receive, send)
