"""The worker keys of its HTTP listeners: the REST API (`listeners`, or Kafka's deprecated `rest.port` and
`rest.host.name`, honoured as Kafka does), its basic authentication, and the separate Prometheus
endpoint (`metrics.listener`).

A base of `WorkerConfig`: its fields are worker keys like any other (`CONNECT_*` variables included).
"""

from __future__ import annotations

from typing import Self
from urllib.parse import urlsplit

from pydantic import Field, PrivateAttr, field_validator, model_validator
from pydantic_settings import BaseSettings

DEFAULT_REST_HOST = "127.0.0.1"
DEFAULT_REST_PORT = 8083


class RestListenerKeys(BaseSettings):
    listeners: str = Field(
        f"http://{DEFAULT_REST_HOST}:{DEFAULT_REST_PORT}",
        description="Comma-separated URLs the REST API listens on (see docs/rest.md; `https://` takes the "
        "`listeners.https.*` keys); loopback unless you say otherwise. Empty: no REST API.",
    )
    # Kafka's deprecated pair, used (as in Kafka) only when `listeners` is not set.
    rest_host_name: str | None = Field(
        None,
        description="Kafka's deprecated pair with rest.port, honoured as Kafka does when listeners is not "
        "set (`http://{rest.host.name}:{rest.port}`); an empty or absent host is loopback here, "
        "where Kafka binds every interface. Ignored, with a warning, when listeners is set.",
    )
    rest_port: int | None = Field(
        None,
        ge=0,
        le=65535,
        description="Kafka's deprecated pair with rest.host.name (port 8083 when only the host is set); "
        "ignored, with a warning, when listeners is set.",
    )
    rest_advertised_host_name: str | None = Field(
        None, description="Kafka's key, accepted without a warning; it has no effect here."
    )
    rest_basic_auth_credentials_file: str | None = Field(
        None,
        description="A Java properties file with one `user=password` per line (the format of Kafka's "
        "`PropertyFileLoginModule`); every REST request then needs valid basic credentials.",
    )
    metrics_listener: str | None = Field(
        None,
        description="`http://host:port` of a separate Prometheus endpoint serving `GET /metrics`, with or "
        "without the REST API (e.g. when `listeners` is empty); an empty host is loopback, port 0 "
        "a free port.",
    )
    _listeners_from_rest_keys: bool = PrivateAttr(False)

    @field_validator("metrics_listener")
    @classmethod
    def _metrics_listener(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        parts = urlsplit(value.strip())
        try:
            port = parts.port
        except ValueError:
            port = None
        if parts.scheme != "http" or parts.path not in ("", "/") or port is None:
            raise ValueError(f"{value!r} is not http://host:port (an empty host is loopback, port 0 a free port)")
        return value.strip()

    @property
    def metrics_address(self) -> tuple[str, int] | None:
        """Where `metrics.listener` serves: (host, port), or None when it is not set."""
        if self.metrics_listener is None:
            return None
        parts = urlsplit(self.metrics_listener)
        assert parts.port is not None  # checked by the validator
        return parts.hostname or DEFAULT_REST_HOST, parts.port

    @model_validator(mode="after")
    def _listeners_from_rest_port(self) -> Self:
        """Kafka's rule: without `listeners`, the REST API listens on http://rest.host.name:rest.port.
        An empty or absent host means loopback here (Kafka binds every interface)."""
        if "listeners" in self.model_fields_set or (self.rest_port is None and self.rest_host_name is None):
            return self
        host = (self.rest_host_name or "").strip() or DEFAULT_REST_HOST
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        port = DEFAULT_REST_PORT if self.rest_port is None else self.rest_port
        self.listeners = f"http://{host}:{port}"
        self._listeners_from_rest_keys = True
        return self

    @property
    def listeners_key(self) -> str:
        """The key the REST listeners come from, for messages: `listeners`, or Kafka's rest.port pair."""
        if not self._listeners_from_rest_keys:
            return "listeners"
        return "rest.port" if self.rest_host_name is None else "rest.host.name/rest.port"

    @property
    def rest_keys_overridden(self) -> bool:
        """Whether rest.port or rest.host.name is set but `listeners` wins over them."""
        rest_keys = self.rest_port is not None or self.rest_host_name is not None
        return rest_keys and not self._listeners_from_rest_keys
