"""A small Confluent-compatible Schema Registry over real HTTP (or HTTPS, optionally requiring a client
certificate), in a thread of the test process, for the Avro converter's tests.

It answers the calls the converter makes (register, look up, latest version, schema by id), under an
optional context prefix (`/contexts/.name/...`), with global ids by schema text as the real registry
gives them; it can demand basic or bearer credentials (401 otherwise), fail every request with a given
status, and issue OAuth tokens (client-credentials grant) at `/oauth/token`. Every request is logged.
"""

from __future__ import annotations

import base64
import json
import re
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"


@dataclass
class Request:
    method: str
    path: str  # without the context prefix and the query
    query: str
    context: str | None
    headers: dict[str, str]
    body: dict[str, Any] | None


@dataclass
class RegistryState:
    schemas: dict[int, str] = field(default_factory=dict)
    versions: dict[str, list[int]] = field(default_factory=dict)  # subject -> schema ids, oldest first
    requests: list[Request] = field(default_factory=list)
    basic: tuple[str, str] | None = None  # demanded credentials, if any
    bearer: str | None = None
    fail_status: int | None = None
    oauth_client: tuple[str, str] = ("connect", "client-secret")
    token: str = "issued-token"
    lock: threading.Lock = field(default_factory=threading.Lock)

    def register(self, subject: str, schema: str) -> int:
        """Register as the registry does (what the tests prepare; the HTTP handler uses it too)."""
        with self.lock:
            known = [i for i, text in self.schemas.items() if text == schema]
            schema_id = known[0] if known else len(self.schemas) + 1
            self.schemas[schema_id] = schema
            ids = self.versions.setdefault(subject, [])
            if schema_id not in ids:
                ids.append(schema_id)
            return schema_id

    def paths(self) -> list[tuple[str, str]]:
        return [(r.method, r.path) for r in self.requests if r.path != "/oauth/token"]


class _Handler(BaseHTTPRequestHandler):
    state: RegistryState

    def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
        return

    def _reply(self, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", CONTENT_TYPE)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _request(self) -> Request:
        parts = urlsplit(self.path)
        path, context = parts.path, None
        if match := re.fullmatch(r"/contexts/([^/]+)(/.*)", path):
            context, path = unquote(match.group(1)), match.group(2)
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        body = None
        if raw and self.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded"):
            body = {k: v[0] for k, v in parse_qs(raw.decode()).items()}
        elif raw:
            body = json.loads(raw)
        request = Request(
            self.command, path, parts.query, context, {k.lower(): v for k, v in self.headers.items()}, body
        )
        with self.state.lock:
            self.state.requests.append(request)
        return request

    def _authorized(self, request: Request) -> bool:
        given = request.headers.get("authorization", "")
        if self.state.basic is not None:
            expected = "Basic " + base64.b64encode(":".join(self.state.basic).encode()).decode()
            return given == expected
        if self.state.bearer is not None:
            return given == f"Bearer {self.state.bearer}"
        return True

    def _handle(self) -> None:
        request = self._request()
        if request.path == "/oauth/token":
            self._token(request)
            return
        if self.state.fail_status is not None:
            self._reply(self.state.fail_status, {"error_code": self.state.fail_status * 100, "message": "failing"})
            return
        if not self._authorized(request):
            self._reply(401, {"error_code": 40101, "message": "Unauthorized"})
            return
        self._answer(request)

    def _answer(self, request: Request) -> None:
        state, path, body = self.state, request.path, request.body or {}
        if request.method == "POST" and (match := re.fullmatch(r"/subjects/([^/]+)/versions", path)):
            self._reply(200, {"id": state.register(unquote(match.group(1)), body["schema"])})
        elif request.method == "POST" and (match := re.fullmatch(r"/subjects/([^/]+)", path)):
            subject = unquote(match.group(1))
            ids = state.versions.get(subject, [])
            found = [(v, i) for v, i in enumerate(ids, 1) if state.schemas[i] == body["schema"]]
            if not found:
                self._reply(404, {"error_code": 40403, "message": "Schema not found"})
            else:
                version, schema_id = found[0]
                self._reply(200, {"subject": subject, "version": version, "id": schema_id, "schema": body["schema"]})
        elif request.method == "GET" and (match := re.fullmatch(r"/subjects/([^/]+)/versions/latest", path)):
            subject = unquote(match.group(1))
            ids = state.versions.get(subject)
            if not ids:
                self._reply(404, {"error_code": 40401, "message": f"Subject '{subject}' not found."})
            else:
                self._reply(
                    200, {"subject": subject, "version": len(ids), "id": ids[-1], "schema": state.schemas[ids[-1]]}
                )
        elif request.method == "GET" and (match := re.fullmatch(r"/schemas/ids/(\d+)", path)):
            schema = state.schemas.get(int(match.group(1)))
            if schema is None:
                self._reply(404, {"error_code": 40403, "message": "Schema not found"})
            else:
                self._reply(200, {"schema": schema})
        else:
            self._reply(404, {"error_code": 404, "message": f"no route {request.method} {path}"})

    def _token(self, request: Request) -> None:
        form = request.body or {}
        given = request.headers.get("authorization", "")
        client = self.state.oauth_client
        basic = "Basic " + base64.b64encode(":".join(client).encode()).decode()
        if given != basic and (form.get("client_id"), form.get("client_secret")) != client:
            self._reply(401, {"error": "invalid_client"})
            return
        self._reply(200, {"access_token": self.state.token, "token_type": "Bearer", "expires_in": 3600})

    do_GET = do_POST = _handle


@contextmanager
def fake_registry(
    state: RegistryState | None = None, *, tls: ssl.SSLContext | None = None
) -> Iterator[tuple[str, RegistryState]]:
    """A registry on a free loopback port; yields its base URL and state."""
    state = state or RegistryState()
    server = ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Handler,), {"state": state}))
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    scheme = "https" if tls is not None else "http"
    try:
        yield f"{scheme}://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
