"""Confluent's Schema Registry settings, as a Kafka Connect converter takes them, translated into the
configuration of confluent-kafka's registry client (`confluent_kafka.schema_registry`).

The keys are those of Confluent's Java serdes, so a Kafka Connect file carries over
(`value.converter.schema.registry.url=...` and its siblings, the converter's prefix removed):

- `schema.registry.url`: one or more base URLs, comma-separated; a context is a path
  (``http://registry:8081/contexts/.orders``); credentials in the URL (``http://user:pw@host``) are used
  with `basic.auth.credentials.source=URL`, the default.
- `basic.auth.credentials.source` (`URL` or `USER_INFO`) and `basic.auth.user.info` (``user:password``;
  Confluent's older `schema.registry.basic.auth.user.info` too).
- `bearer.auth.credentials.source`: `STATIC_TOKEN` with `bearer.auth.token`, or `OAUTHBEARER` (the
  client-credentials flow) with `bearer.auth.issuer.endpoint.url`, `bearer.auth.client.id`,
  `bearer.auth.client.secret` and optionally `bearer.auth.scope`; either with Confluent Cloud's
  `bearer.auth.logical.cluster` and `bearer.auth.identity.pool.id`.
- TLS, as PEM files: `schema.registry.ssl.truststore.location` (the CA certificates) and
  `schema.registry.ssl.keystore.location` (the client's certificate chain and private key, for
  mutual TLS), each with `….type=PEM`; `schema.registry.ssl.key.password` for an encrypted key. JKS and
  PKCS12 stores are refused with the command that converts them.
- `http.connect.timeout.ms` / `http.read.timeout.ms`; `max.retries`, `retries.wait.ms`,
  `retries.max.wait.ms` (the client's retries of a failed request, with jittered backoff);
  `latest.cache.ttl.sec`; `proxy.host` / `proxy.port`.

`SASL_INHERIT` and `SASL_OAUTHBEARER_INHERIT` (credentials taken from the Kafka client's SASL settings)
are refused: name the credentials here instead.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from connectworker.api.errors import ConfigError
from connectworker.converters.base import config_int

URL_CONFIG = "schema.registry.url"
AUTH_SOURCE_CONFIG = "basic.auth.credentials.source"
USER_INFO_CONFIG = "basic.auth.user.info"
LEGACY_USER_INFO_CONFIG = "schema.registry.basic.auth.user.info"
BEARER_SOURCE_CONFIG = "bearer.auth.credentials.source"
BEARER_TOKEN_CONFIG = "bearer.auth.token"
BEARER_ISSUER_CONFIG = "bearer.auth.issuer.endpoint.url"
BEARER_CLIENT_ID_CONFIG = "bearer.auth.client.id"
BEARER_CLIENT_SECRET_CONFIG = "bearer.auth.client.secret"
BEARER_SCOPE_CONFIG = "bearer.auth.scope"
BEARER_CLUSTER_CONFIG = "bearer.auth.logical.cluster"
BEARER_POOL_CONFIG = "bearer.auth.identity.pool.id"
TRUSTSTORE_CONFIG = "schema.registry.ssl.truststore.location"
TRUSTSTORE_TYPE_CONFIG = "schema.registry.ssl.truststore.type"
KEYSTORE_CONFIG = "schema.registry.ssl.keystore.location"
KEYSTORE_TYPE_CONFIG = "schema.registry.ssl.keystore.type"
KEY_PASSWORD_CONFIG = "schema.registry.ssl.key.password"
CONNECT_TIMEOUT_CONFIG = "http.connect.timeout.ms"
READ_TIMEOUT_CONFIG = "http.read.timeout.ms"
MAX_RETRIES_CONFIG = "max.retries"
RETRIES_WAIT_CONFIG = "retries.wait.ms"
RETRIES_MAX_WAIT_CONFIG = "retries.max.wait.ms"
LATEST_TTL_CONFIG = "latest.cache.ttl.sec"
PROXY_HOST_CONFIG = "proxy.host"
PROXY_PORT_CONFIG = "proxy.port"

_STORE_TYPES = ("PEM", "JKS", "PKCS12")


@dataclass
class RegistrySettings:
    """The registry client's configuration, and which keys hold what a refusal is blamed on."""

    conf: dict[str, Any]
    shown_url: str = ""
    """The URL(s) as messages show them: without credentials."""
    credentials: str = ""
    """The key(s) holding the credentials the registry checks ("" when none are configured)."""
    tls_keys: list[str] = field(default_factory=list)
    """The TLS keys that are set, for a failed handshake."""
    timeouts: tuple[float, float] = (60.0, 60.0)
    """Connect and read timeouts, seconds."""


def _text(configs: Mapping[str, Any], key: str) -> str:
    value = configs.get(key)
    return "" if value is None else str(value).strip()


def _required(configs: Mapping[str, Any], key: str, why: str) -> str:
    value = _text(configs, key)
    if not value:
        raise ConfigError({key: f"is required {why}"})
    return value


def registry_settings(configs: Mapping[str, Any]) -> RegistrySettings:
    """Translate a converter's registry settings (its sub-keys, prefix removed); `ConfigError` naming
    each key whose value cannot be used."""
    url = _text(configs, URL_CONFIG)
    if not url:
        raise ConfigError({URL_CONFIG: "is required: the Schema Registry base URL(s), comma-separated"})
    bad = [part.strip() for part in url.split(",") if not part.strip().lower().startswith(("http://", "https://"))]
    if bad:
        raise ConfigError({URL_CONFIG: f"'{bad[0]}' is not an http:// or https:// URL"})
    shown = ",".join(_without_credentials(part.strip()) for part in url.split(","))
    settings = RegistrySettings({"url": url}, shown)
    _basic_auth(configs, settings)
    _bearer_auth(configs, settings)
    _tls(configs, settings)
    connect_ms = config_int(configs, CONNECT_TIMEOUT_CONFIG, 60_000, minimum=1)
    read_ms = config_int(configs, READ_TIMEOUT_CONFIG, 60_000, minimum=1)
    settings.timeouts = (connect_ms / 1000, read_ms / 1000)
    for key, client_key in (
        (MAX_RETRIES_CONFIG, "max.retries"),
        (RETRIES_WAIT_CONFIG, "retries.wait.ms"),
        (RETRIES_MAX_WAIT_CONFIG, "retries.max.wait.ms"),
    ):
        if configs.get(key) is not None:
            settings.conf[client_key] = config_int(configs, key, 0)
    ttl = config_int(configs, LATEST_TTL_CONFIG, -1, minimum=-1)
    if ttl >= 0:
        settings.conf["cache.latest.ttl.sec"] = ttl
    host = _text(configs, PROXY_HOST_CONFIG)
    if host:
        port = config_int(configs, PROXY_PORT_CONFIG, -1, minimum=-1)
        if port < 0:
            raise ConfigError({PROXY_PORT_CONFIG: f"is required with {PROXY_HOST_CONFIG}"})
        settings.conf["proxy"] = host if "://" in host else f"http://{host}:{port}"
    return settings


def _without_credentials(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    authority, slash, path = rest.partition("/")
    return scheme + sep + authority.rpartition("@")[2] + slash + path


def _basic_auth(configs: Mapping[str, Any], settings: RegistrySettings) -> None:
    source = (_text(configs, AUTH_SOURCE_CONFIG) or "URL").upper()
    if source == "USER_INFO":
        key = USER_INFO_CONFIG if _text(configs, USER_INFO_CONFIG) else LEGACY_USER_INFO_CONFIG
        user_info = _text(configs, key)
        if ":" not in user_info:
            raise ConfigError({USER_INFO_CONFIG: f"must be 'user:password' when {AUTH_SOURCE_CONFIG}=USER_INFO"})
        if "@" in settings.conf["url"].split("//", 1)[-1].split("/", 1)[0]:
            raise ConfigError(
                {
                    URL_CONFIG: f"holds credentials while {AUTH_SOURCE_CONFIG}=USER_INFO: keep them in "
                    f"{USER_INFO_CONFIG} only"
                }
            )
        settings.conf["basic.auth.user.info"] = user_info
        settings.credentials = key
    elif source == "URL":
        if "@" in settings.conf["url"].split("//", 1)[-1].split("/", 1)[0]:
            settings.credentials = f"{URL_CONFIG} (the user:password in it)"
    elif source == "SASL_INHERIT":
        raise ConfigError(
            {
                AUTH_SOURCE_CONFIG: f"SASL_INHERIT is not supported: set {AUTH_SOURCE_CONFIG}=USER_INFO "
                f"and {USER_INFO_CONFIG}=user:password"
            }
        )
    else:
        raise ConfigError({AUTH_SOURCE_CONFIG: f"'{source}' is not supported; use URL or USER_INFO"})


def _bearer_auth(configs: Mapping[str, Any], settings: RegistrySettings) -> None:
    source = _text(configs, BEARER_SOURCE_CONFIG).upper()
    if not source:
        return
    if settings.credentials and not settings.credentials.startswith(URL_CONFIG):
        raise ConfigError(
            {
                BEARER_SOURCE_CONFIG: f"cannot be combined with {AUTH_SOURCE_CONFIG}=USER_INFO: "
                "choose basic or bearer authentication"
            }
        )
    conf = settings.conf
    if source == "STATIC_TOKEN":
        conf[BEARER_TOKEN_CONFIG] = _required(configs, BEARER_TOKEN_CONFIG, f"with {BEARER_SOURCE_CONFIG}=STATIC_TOKEN")
        settings.credentials = BEARER_TOKEN_CONFIG
    elif source == "OAUTHBEARER":
        why = f"with {BEARER_SOURCE_CONFIG}=OAUTHBEARER"
        for key in (BEARER_ISSUER_CONFIG, BEARER_CLIENT_ID_CONFIG, BEARER_CLIENT_SECRET_CONFIG):
            conf[key] = _required(configs, key, why)
        conf[BEARER_SCOPE_CONFIG] = _text(configs, BEARER_SCOPE_CONFIG)
        settings.credentials = f"{BEARER_CLIENT_ID_CONFIG}/{BEARER_CLIENT_SECRET_CONFIG}"
    elif source in ("SASL_OAUTHBEARER_INHERIT", "CUSTOM"):
        raise ConfigError(
            {
                BEARER_SOURCE_CONFIG: f"{source} is not supported: use STATIC_TOKEN with "
                f"{BEARER_TOKEN_CONFIG}, or OAUTHBEARER"
            }
        )
    else:
        raise ConfigError({BEARER_SOURCE_CONFIG: f"'{source}' is not supported; use STATIC_TOKEN or OAUTHBEARER"})
    conf[BEARER_SOURCE_CONFIG] = source
    # confluent-kafka's client requires a logical cluster (Confluent Cloud's); elsewhere it is an empty header.
    conf[BEARER_CLUSTER_CONFIG] = _text(configs, BEARER_CLUSTER_CONFIG)
    if _text(configs, BEARER_POOL_CONFIG):
        conf[BEARER_POOL_CONFIG] = _text(configs, BEARER_POOL_CONFIG)


def _tls(configs: Mapping[str, Any], settings: RegistrySettings) -> None:
    truststore = _text(configs, TRUSTSTORE_CONFIG)
    if truststore:
        _require_pem(
            configs,
            TRUSTSTORE_CONFIG,
            TRUSTSTORE_TYPE_CONFIG,
            truststore,
            f"openssl pkcs12 -in {truststore} -nokeys -out truststore.pem (PKCS12), or keytool "
            f"-importkeystore to PKCS12 first (JKS)",
        )
        settings.conf["ssl.ca.location"] = truststore
        settings.tls_keys.append(TRUSTSTORE_CONFIG)
    keystore = _text(configs, KEYSTORE_CONFIG)
    if keystore:
        _require_pem(
            configs,
            KEYSTORE_CONFIG,
            KEYSTORE_TYPE_CONFIG,
            keystore,
            f"openssl pkcs12 -in {keystore} -out keystore.pem (PKCS12: certificate chain and key in one "
            f"file), or keytool -importkeystore to PKCS12 first (JKS)",
        )
        settings.conf["ssl.certificate.location"] = keystore
        settings.tls_keys.append(KEYSTORE_CONFIG)
        password = _text(configs, KEY_PASSWORD_CONFIG)
        if password:
            settings.conf["ssl.key.password"] = password
    elif _text(configs, KEY_PASSWORD_CONFIG):
        raise ConfigError({KEY_PASSWORD_CONFIG: f"needs {KEYSTORE_CONFIG} (the PEM file holding the key)"})


def _require_pem(configs: Mapping[str, Any], key: str, type_key: str, location: str, convert: str) -> None:
    kind = (_text(configs, type_key) or ("PEM" if location.lower().endswith((".pem", ".crt")) else "JKS")).upper()
    if kind not in _STORE_TYPES:
        raise ConfigError({type_key: f"'{kind}' is not a store type; use PEM"})
    if kind != "PEM":
        raise ConfigError(
            {
                key: f"is a {kind} store ({type_key}={kind}), which the registry client cannot read: give "
                f"a PEM file and set {type_key}=PEM. Convert it with: {convert}"
            }
        )
    if not os.path.exists(location):
        raise ConfigError({key: f"'{location}' does not exist"})
