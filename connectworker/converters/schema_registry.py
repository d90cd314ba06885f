"""Where the Avro converter gets schema ids: the `SchemaRegistryClient` protocol, and
`ConfluentSchemaRegistry`, which talks to a Confluent-compatible Schema Registry through confluent-kafka's
own client (`confluent_kafka.schema_registry`), with its authentication (basic, bearer token, OAuth client
credentials, mutual TLS), retries, contexts and caches.

The converter needs four calls: register a schema under a subject, find the id of an already registered
one (`auto.register.schemas=false`), the latest version of a subject (`use.latest.version=true`), and a
schema by id (reading). The client caches the answers (a schema id never changes meaning; the latest
version for `latest.cache.ttl.sec`, forever by default, as Confluent's Java client).

Failures become `SchemaRegistryError`s that say what to fix: a registry that cannot be reached or fails
on its side (5xx, 408, 429) is `SchemaRegistryUnavailableError`, a `RetriableError`; refused credentials
(401) and refused access (403) are `SchemaRegistryAuthError`, naming the keys that hold the credentials;
a failed TLS handshake names the TLS keys.
"""

from __future__ import annotations

import ssl
import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from connectworker.api.errors import ConfigError, ConnectError, RetriableError
from connectworker.converters.registry_config import (
    BEARER_ISSUER_CONFIG,
    TRUSTSTORE_CONFIG,
    URL_CONFIG,
    RegistrySettings,
    registry_settings,
)

if TYPE_CHECKING:  # confluent-kafka's registry client imports httpx, authlib and more: loaded when one is built
    from confluent_kafka.schema_registry import SchemaRegistryClient as ConfluentClient

T = TypeVar("T")

_RETRIABLE_STATUS = frozenset({408, 429})


class SchemaRegistryError(ConnectError):
    """The registry refused a request. `status` is the HTTP status, `error_code` the registry's own code."""

    def __init__(self, message: str, *, status: int | None = None, error_code: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.error_code = error_code


class SchemaRegistryUnavailableError(SchemaRegistryError, RetriableError):
    """The registry could not be reached or failed on its side (5xx): worth retrying."""


class SchemaRegistryAuthError(SchemaRegistryError):
    """The registry refused the credentials (401) or the access (403); the message names the keys."""


@runtime_checkable
class SchemaRegistryClient(Protocol):
    """What the Avro converter needs from a schema registry. Schemas are Avro schema JSON text."""

    def register(self, subject: str, schema: str, *, normalize: bool = False) -> int:
        """Register `schema` under `subject` (idempotent) and return its global id."""
        ...

    def lookup(self, subject: str, schema: str, *, normalize: bool = False) -> int:
        """The id of `schema` if it is already registered under `subject`; raise if it is not."""
        ...

    def latest(self, subject: str) -> tuple[int, str]:
        """The id and text of the latest schema registered under `subject`; raise if there is none."""
        ...

    def get_schema(self, schema_id: int) -> str:
        """The schema text registered with `schema_id`."""
        ...


class ConfluentSchemaRegistry:
    """A `SchemaRegistryClient` on confluent-kafka's registry client, configured from Kafka Connect's
    converter keys (see `registry_config`)."""

    def __init__(self, settings: RegistrySettings) -> None:
        from confluent_kafka.schema_registry import SchemaRegistryClient as ConfluentClient
        from confluent_kafka.schema_registry.error import OAuthTokenError
        from confluent_kafka.schema_registry.error import SchemaRegistryError as ClientError

        self.settings = settings
        self._client_error: type[ClientError] = ClientError
        self._token_error: type[OAuthTokenError] = OAuthTokenError
        # The client imports httpx2 (or, in older releases and on older Pythons, httpx): its transport errors.
        self._transport_errors = tuple(
            module.TransportError for name in ("httpx2", "httpx") if (module := sys.modules.get(name)) is not None
        )
        conf = dict(settings.conf)
        conf["timeout"] = _timeout(*settings.timeouts)
        try:
            self._client: ConfluentClient = ConfluentClient(conf)
        except OSError as exc:  # an unreadable or invalid PEM file, a wrong key password (ssl.SSLError too)
            keys = settings.tls_keys or [URL_CONFIG]
            blame = f" (or {' '.join(keys[1:])})" if len(keys) > 1 else ""
            raise ConfigError({keys[-1]: f"cannot be used{blame}: {exc}"}) from None
        except (ValueError, TypeError) as exc:
            raise ConfigError({URL_CONFIG: f"the registry client refused its settings: {exc}"}) from None

    @classmethod
    def from_config(cls, configs: Mapping[str, Any]) -> ConfluentSchemaRegistry:
        """Build from a converter's settings (its sub-keys, prefix removed)."""
        return cls(registry_settings(configs))

    @property
    def client(self) -> ConfluentClient:
        """confluent-kafka's own client, for what the protocol does not cover."""
        return self._client

    def register(self, subject: str, schema: str, *, normalize: bool = False) -> int:
        from confluent_kafka.schema_registry import Schema

        return self._call(
            f"registering a schema under subject '{subject}'",
            lambda: self._client.register_schema(subject, Schema(schema, "AVRO"), normalize),
        )

    def lookup(self, subject: str, schema: str, *, normalize: bool = False) -> int:
        from confluent_kafka.schema_registry import Schema

        registered = self._call(
            f"looking up the schema under subject '{subject}'",
            lambda: self._client.lookup_schema(subject, Schema(schema, "AVRO"), normalize),
        )
        return _schema_id(registered.schema_id, subject)

    def latest(self, subject: str) -> tuple[int, str]:
        registered = self._call(
            f"reading the latest schema of subject '{subject}'", lambda: self._client.get_latest_version(subject)
        )
        return _schema_id(registered.schema_id, subject), _avro_text(registered.schema, f"subject '{subject}'")

    def get_schema(self, schema_id: int) -> str:
        schema = self._call(f"reading schema id {schema_id}", lambda: self._client.get_schema(schema_id))
        return _avro_text(schema, f"schema id {schema_id}")

    def close(self) -> None:
        self._client.close()

    def _call(self, what: str, request: Callable[[], T]) -> T:
        """`request()`, its failures as `SchemaRegistryError`s that say `what` failed and what to fix."""
        try:
            return request()
        except self._client_error as exc:
            raise self._refused(what, exc.http_status_code, exc.error_code, exc.error_message) from None
        except self._token_error as exc:
            raise SchemaRegistryAuthError(
                f"Schema Registry credentials could not be obtained for {what}: the token endpoint "
                f"({BEARER_ISSUER_CONFIG}) refused {self.settings.credentials}: {exc}"
            ) from None
        except self._transport_errors as exc:
            if _tls_failure(exc):
                keys = " and ".join(self.settings.tls_keys) or f"{TRUSTSTORE_CONFIG} (none is set)"
                raise SchemaRegistryError(
                    f"TLS with the Schema Registry at {self.settings.shown_url} failed for {what}: {exc}. Check {keys}"
                ) from None
            raise SchemaRegistryUnavailableError(
                f"Schema Registry unreachable at {self.settings.shown_url} for {what}: {type(exc).__name__}: {exc}"
            ) from None

    def _refused(self, what: str, status: int, error_code: int, message: str) -> SchemaRegistryError:
        text = f"Schema Registry answered {status} to {what}: {message} (error code {error_code})"
        if status == 401:
            blame = (
                f"check {self.settings.credentials}"
                if self.settings.credentials
                else "no credentials are configured: set basic.auth.credentials.source=USER_INFO with "
                "basic.auth.user.info, or bearer.auth.credentials.source"
            )
            return SchemaRegistryAuthError(
                f"{text}. The registry refused the credentials: {blame}", status=status, error_code=error_code
            )
        if status == 403:
            holder = self.settings.credentials or "anonymous access"
            return SchemaRegistryAuthError(
                f"{text}. The principal of {holder} may not do this: grant it access on the registry",
                status=status,
                error_code=error_code,
            )
        kind = SchemaRegistryUnavailableError if status >= 500 or status in _RETRIABLE_STATUS else SchemaRegistryError
        return kind(text, status=status, error_code=error_code)


def _timeout(connect: float, read: float) -> Any:
    """The client's `timeout`: an httpx timeout object (connect apart from read), or seconds if the
    client's HTTP library is not loaded yet."""
    for name in ("httpx2", "httpx"):
        module = sys.modules.get(name)
        if module is not None:
            return module.Timeout(read, connect=connect)
    return read


def _tls_failure(exc: BaseException) -> bool:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _schema_id(schema_id: int | None, subject: str) -> int:
    if schema_id is None:
        raise SchemaRegistryError(f"Schema Registry answered for subject '{subject}' without a schema id")
    return schema_id


def _avro_text(schema: Any, what: str) -> str:
    if schema.schema_type not in (None, "AVRO"):
        raise SchemaRegistryError(f"{what} is a {schema.schema_type} schema, not Avro")
    text = schema.schema_str
    if not isinstance(text, str):
        raise SchemaRegistryError(f"Schema Registry answered for {what} without a schema")
    return text
