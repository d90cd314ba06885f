"""Who the REST API listens to, read once with the worker config: `listeners` (Kafka's comma-separated
``http://host:port`` / ``https://host:port``), the HTTPS settings under ``listeners.https.`` and the
basic-auth credentials file (`rest.basic.auth.credentials.file`). A bad value stops start-up with the
worker file's other problems, before any connector file is read.

Kafka's keystores are Java-specific; connectworker reads PEM files instead:
``listeners.https.ssl.certfile`` (certificate chain), ``listeners.https.ssl.keyfile`` (private key),
``listeners.https.ssl.key.password`` (if the key is encrypted), ``listeners.https.ssl.cafile`` (CAs
trusted for client certificates) and ``listeners.https.ssl.client.authentication``
(``none`` | ``requested`` | ``required``, Kafka's key).

An empty host (Kafka's "default interface") binds the loopback address here: the API stays private
unless a listener names another address, e.g. ``http://0.0.0.0:8083``.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from connectworker.api.errors import ConfigError
from connectworker.config.properties import load_properties

CREDENTIALS_KEY = "rest.basic.auth.credentials.file"
DEFAULT_HOST = "127.0.0.1"
CLIENT_AUTH = {"none": ssl.CERT_NONE, "requested": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}
JAVA_ONLY = (
    "ssl.keystore.location",
    "ssl.keystore.password",
    "ssl.keystore.type",
    "ssl.truststore.location",
    "ssl.truststore.password",
    "ssl.truststore.type",
)


@dataclass(frozen=True)
class TlsSettings:
    certfile: str
    keyfile: str | None = None
    key_password: str | None = None
    cafile: str | None = None
    client_auth: int = ssl.CERT_NONE


@dataclass(frozen=True)
class Listener:
    scheme: str
    host: str
    port: int
    tls: TlsSettings | None = None


@dataclass(frozen=True)
class RestAccess:
    """The REST API's listeners (none: no REST API), the key they came from (for messages about a port
    that cannot be bound) and the basic-auth credentials (None: no authentication)."""

    listeners: tuple[Listener, ...]
    listeners_key: str = "listeners"
    credentials: dict[str, str] | None = None


def read_rest_access(
    listeners: str, https: Mapping[str, str], credentials_file: str | None, listeners_key: str
) -> RestAccess:
    """`https` is the worker's keys under ``listeners.https.``; raises ConfigError naming the key."""
    parsed = parse_listeners(listeners, https)
    credentials = load_credentials(credentials_file) if parsed and credentials_file else None
    return RestAccess(tuple(parsed), listeners_key, credentials)


def load_credentials(path: str | Path) -> dict[str, str]:
    """A Java properties file of ``user=password`` entries, as Kafka's `PropertyFileLoginModule` reads."""
    credentials = load_properties(path)
    if not credentials:
        raise ConfigError({CREDENTIALS_KEY: f"{path} holds no user=password entries, so nobody could log in"})
    return credentials


def parse_listeners(listeners: str, https: Mapping[str, str]) -> list[Listener]:
    """`https` is ``WorkerConfig.prefixed("listeners.https.")``. An empty `listeners` means no REST API
    (the worker then runs only the connectors named on the command line); `,` alone is a mistake."""
    if not listeners.strip():
        return []
    result: list[Listener] = []
    for raw in (part.strip() for part in listeners.split(",")):
        if not raw:
            continue
        parts = urlsplit(raw)
        scheme = parts.scheme.lower()
        if scheme not in ("http", "https") or parts.path not in ("", "/"):
            raise ConfigError({"listeners": f"{raw!r} is not http://host:port or https://host:port"})
        try:
            port = parts.port
        except ValueError:
            raise ConfigError({"listeners": f"{raw!r} has an invalid port"}) from None
        if port is None:
            raise ConfigError({"listeners": f"{raw!r} names no port"})
        tls = tls_settings(https) if scheme == "https" else None
        result.append(Listener(scheme, parts.hostname or DEFAULT_HOST, port, tls))
    if not result:
        raise ConfigError({"listeners": "names no listener; e.g. listeners=http://127.0.0.1:8083"})
    return result


def tls_settings(https: Mapping[str, str]) -> TlsSettings:
    java = [k for k in JAVA_ONLY if k in https]
    if java:
        raise ConfigError(
            {
                f"listeners.https.{java[0]}": "Java keystores are not supported; give PEM files "
                "with listeners.https.ssl.certfile, listeners.https.ssl.keyfile (and "
                "listeners.https.ssl.cafile for client certificates)"
            }
        )
    certfile = https.get("ssl.certfile")
    if not certfile:
        raise ConfigError(
            {
                "listeners.https.ssl.certfile": "an https listener needs a PEM certificate "
                "(and listeners.https.ssl.keyfile unless the key is in the same file)"
            }
        )
    for key in ("ssl.certfile", "ssl.keyfile", "ssl.cafile"):
        if https.get(key) and not Path(https[key]).is_file():
            raise ConfigError({f"listeners.https.{key}": f"file not found: {https[key]}"})
    auth = https.get("ssl.client.authentication", "none").strip().lower()
    if auth not in CLIENT_AUTH:
        raise ConfigError(
            {"listeners.https.ssl.client.authentication": f"must be none, requested or required; got {auth!r}"}
        )
    if auth != "none" and not https.get("ssl.cafile"):
        raise ConfigError({"listeners.https.ssl.cafile": "client authentication needs the CAs to trust"})
    return TlsSettings(
        certfile,
        https.get("ssl.keyfile") or None,
        https.get("ssl.key.password") or None,
        https.get("ssl.cafile") or None,
        CLIENT_AUTH[auth],
    )
