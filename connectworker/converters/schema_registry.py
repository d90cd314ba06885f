"""Where the Avro converter gets schema ids: the `SchemaRegistryClient` protocol and an HTTP client for a
Confluent-compatible Schema Registry.

Only the three calls the converter needs are used: register a schema under a subject
(`POST /subjects/{subject}/versions`), find the id of an already registered schema
(`POST /subjects/{subject}`, for `auto.register.schemas=false`) and fetch a schema by id
(`GET /schemas/ids/{id}`). Answers are cached: a schema id never changes meaning.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable
from urllib.parse import quote

from connectworker.api.errors import ConfigError, ConnectError, RetriableError
from connectworker.converters.base import config_int

if TYPE_CHECKING:  # httpx costs ~70 ms to import: loaded when a client is built, not with the converters
    import httpx

CONTENT_TYPE = "application/vnd.schemaregistry.v1+json"

URL_CONFIG = "schema.registry.url"
AUTH_SOURCE_CONFIG = "basic.auth.credentials.source"
USER_INFO_CONFIG = "basic.auth.user.info"
CONNECT_TIMEOUT_CONFIG = "http.connect.timeout.ms"
READ_TIMEOUT_CONFIG = "http.read.timeout.ms"


class SchemaRegistryError(ConnectError):
    """The registry refused a request. `status` is the HTTP status, `error_code` the registry's own code."""

    def __init__(self, message: str, *, status: int | None = None, error_code: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.error_code = error_code


class SchemaRegistryUnavailableError(SchemaRegistryError, RetriableError):
    """The registry could not be reached or failed on its side (5xx): worth retrying."""


@runtime_checkable
class SchemaRegistryClient(Protocol):
    """What the Avro converter needs from a schema registry. Schemas are Avro schema JSON text."""

    def register(self, subject: str, schema: str) -> int:
        """Register `schema` under `subject` (idempotent) and return its global id."""
        ...

    def lookup(self, subject: str, schema: str) -> int:
        """The id of `schema` if it is already registered under `subject`; raise if it is not."""
        ...

    def get_schema(self, schema_id: int) -> str:
        """The schema text registered with `schema_id`."""
        ...


class HttpSchemaRegistryClient:
    """A `SchemaRegistryClient` for Confluent Schema Registry (and compatible servers) over HTTP.

    Several base URLs may be given; each request tries them in order until one answers.
    """

    def __init__(
        self,
        urls: str | Sequence[str],
        *,
        auth: tuple[str, str] | None = None,
        connect_timeout: float = 60.0,
        read_timeout: float = 60.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        given = [urls] if isinstance(urls, str) else list(urls)
        self.urls = [part.strip().rstrip("/") for url in given for part in url.split(",") if part.strip()]
        if not self.urls:
            raise ValueError("at least one Schema Registry URL is required")
        import httpx

        timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        headers = {"Accept": CONTENT_TYPE, "Content-Type": CONTENT_TYPE}
        self._http = httpx.Client(auth=auth, timeout=timeout, headers=headers, transport=transport)
        self._ids: dict[tuple[str, str], int] = {}
        self._schemas: dict[int, str] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, configs: Mapping[str, Any]) -> HttpSchemaRegistryClient:
        """Build from Confluent's converter settings (`schema.registry.url`, `basic.auth.*`, timeouts)."""
        raw_url = configs.get(URL_CONFIG)
        if raw_url is None or not str(raw_url).strip():
            raise ConfigError({URL_CONFIG: "is required: the Schema Registry base URL(s), comma-separated"})
        auth = None
        source = str(configs.get(AUTH_SOURCE_CONFIG, "URL")).strip().upper()
        if source == "USER_INFO":
            user_info = str(configs.get(USER_INFO_CONFIG, ""))
            user, sep, password = user_info.partition(":")
            if not sep:
                raise ConfigError({USER_INFO_CONFIG: "must be 'user:password' when "
                                                     f"{AUTH_SOURCE_CONFIG}=USER_INFO"})
            auth = (user, password)
        elif source != "URL":
            raise ConfigError({AUTH_SOURCE_CONFIG: f"'{source}' is not supported; use URL or USER_INFO"})
        connect_ms = config_int(configs, CONNECT_TIMEOUT_CONFIG, 60_000, minimum=1)
        read_ms = config_int(configs, READ_TIMEOUT_CONFIG, 60_000, minimum=1)
        return cls(str(raw_url), auth=auth, connect_timeout=connect_ms / 1000, read_timeout=read_ms / 1000)

    def register(self, subject: str, schema: str) -> int:
        cached = self._ids.get((subject, schema))
        if cached is not None:
            return cached
        answer = self._request("POST", f"/subjects/{quote(subject, safe='')}/versions", {"schema": schema})
        return self._remember(subject, schema, answer)

    def lookup(self, subject: str, schema: str) -> int:
        cached = self._ids.get((subject, schema))
        if cached is not None:
            return cached
        answer = self._request("POST", f"/subjects/{quote(subject, safe='')}", {"schema": schema})
        return self._remember(subject, schema, answer)

    def get_schema(self, schema_id: int) -> str:
        cached = self._schemas.get(schema_id)
        if cached is not None:
            return cached
        answer = self._request("GET", f"/schemas/ids/{schema_id}", None)
        schema = answer.get("schema")
        if not isinstance(schema, str):
            raise SchemaRegistryError(f"Schema Registry answered GET /schemas/ids/{schema_id} with no schema")
        schema_type = answer.get("schemaType", "AVRO")
        if schema_type != "AVRO":
            raise SchemaRegistryError(f"schema id {schema_id} is a {schema_type} schema, not Avro")
        with self._lock:
            self._schemas[schema_id] = schema
        return schema

    def close(self) -> None:
        self._http.close()

    def _remember(self, subject: str, schema: str, answer: dict[str, Any]) -> int:
        schema_id = answer.get("id")
        if not isinstance(schema_id, int):
            raise SchemaRegistryError(f"Schema Registry answered for subject '{subject}' without a schema id")
        with self._lock:
            self._ids[(subject, schema)] = schema_id
            self._schemas.setdefault(schema_id, schema)
        return schema_id

    def _request(self, method: str, path: str, body: dict[str, Any] | None) -> dict[str, Any]:
        import httpx

        content = None if body is None else json.dumps(body).encode()
        failures = []
        for base in self.urls:
            try:
                response = self._http.request(method, base + path, content=content)
            except httpx.HTTPError as exc:
                failures.append(f"{base}: {exc}")
                continue
            return self._answer(method, base + path, response)
        raise SchemaRegistryUnavailableError(f"Schema Registry unreachable for {method} {path}: "
                                             + "; ".join(failures))

    @staticmethod
    def _answer(method: str, url: str, response: httpx.Response) -> dict[str, Any]:
        try:
            payload = response.json()
        except ValueError:
            payload = None
        if response.is_success and isinstance(payload, dict):
            return payload
        message = payload.get("message") if isinstance(payload, dict) else None
        error_code = payload.get("error_code") if isinstance(payload, dict) else None
        text = f"Schema Registry answered {response.status_code} to {method} {url}"
        if message:
            text += f": {message}"
        if error_code is not None:
            text += f" (error code {error_code})"
        error_type = SchemaRegistryUnavailableError if response.status_code >= 500 else SchemaRegistryError
        raise error_type(text, status=response.status_code, error_code=error_code)
