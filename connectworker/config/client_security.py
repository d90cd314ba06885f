"""The librdkafka settings of a client the worker makes, from the security keys as Kafka users write them.

A Kafka worker file sets `security.protocol`, `sasl.*` and `ssl.*` at the top level for every client,
and `producer.*`/`admin.*` for one kind; a connector may override them (`producer.override.*`,
`admin.override.*`). Here the layers are merged key by key, the most specific winning (Kafka's rule),
and then Kafka's Java-only keys are translated to what librdkafka reads:

- `sasl.jaas.config` by its login module (`sasl_login`), e.g. PLAIN/SCRAM → `sasl.username`/`sasl.password`;
- the trust and key stores (`ssl_stores`), e.g. a PEM trust store → `ssl.ca.location`;
- `ssl.endpoint.identification.algorithm`: Kafka's empty value is librdkafka's `none`;
- `ssl.*`/`sasl.*` keys that librdkafka does not know (`ssl.keymanager.algorithm`, `sasl.login.class`,
  …) mean something to Java only: they are dropped, and the caller warns once naming them.

A librdkafka key set explicitly wins over the same key translated from a less specific layer, and loses
to one translated from a more specific layer; both in one layer with different values is refused.
Problems are reported against the key as the user wrote it (`producer.override.sasl.jaas.config`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from connectworker.config.jaas import JaasError, parse_single_entry
from connectworker.config.sasl_login import LoginModuleError, login_settings
from connectworker.config.ssl_stores import StoreError, keystore_settings, truststore_settings

SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
SASL_MECHANISMS = ("GSSAPI", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512", "OAUTHBEARER")
TOP_LEVEL_PREFIXES = ("ssl.", "sasl.")
"""Top-level worker keys under these prefixes (and `security.protocol`) apply to every client."""

# librdkafka's own ssl.*/sasl.* properties (CONFIGURATION.md): handed on as they are.
LIBRDKAFKA_KEYS = frozenset(
    {
        "ssl.cipher.suites",
        "ssl.curves.list",
        "ssl.sigalgs.list",
        "ssl.key.location",
        "ssl.key.password",
        "ssl.key.pem",
        "ssl.certificate.location",
        "ssl.certificate.pem",
        "ssl.ca.location",
        "ssl.ca.pem",
        "ssl.ca.certificate.stores",
        "ssl.crl.location",
        "ssl.keystore.location",
        "ssl.keystore.password",
        "ssl.providers",
        "ssl.engine.location",
        "ssl.engine.id",
        "ssl.endpoint.identification.algorithm",
        "sasl.mechanisms",
        "sasl.mechanism",
        "sasl.kerberos.service.name",
        "sasl.kerberos.principal",
        "sasl.kerberos.kinit.cmd",
        "sasl.kerberos.keytab",
        "sasl.kerberos.min.time.before.relogin",
        "sasl.username",
        "sasl.password",
        "sasl.oauthbearer.config",
        "sasl.oauthbearer.method",
        "sasl.oauthbearer.client.id",
        "sasl.oauthbearer.client.secret",
        "sasl.oauthbearer.client.credentials.client.id",
        "sasl.oauthbearer.client.credentials.client.secret",
        "sasl.oauthbearer.scope",
        "sasl.oauthbearer.extensions",
        "sasl.oauthbearer.token.endpoint.url",
        "sasl.oauthbearer.grant.type",
        "sasl.oauthbearer.assertion.algorithm",
        "sasl.oauthbearer.assertion.private.key.file",
        "sasl.oauthbearer.assertion.private.key.passphrase",
        "sasl.oauthbearer.assertion.private.key.pem",
        "sasl.oauthbearer.assertion.file",
        "sasl.oauthbearer.assertion.claim.aud",
        "sasl.oauthbearer.assertion.claim.exp.seconds",
        "sasl.oauthbearer.assertion.claim.iss",
        "sasl.oauthbearer.assertion.claim.jti.include",
        "sasl.oauthbearer.assertion.claim.nbf.seconds",
        "sasl.oauthbearer.assertion.claim.sub",
        "sasl.oauthbearer.assertion.jwt.template.file",
        "sasl.oauthbearer.metadata.authentication.type",
    }
)
TRUSTSTORE_KEYS = (
    "ssl.truststore.location",
    "ssl.truststore.type",
    "ssl.truststore.password",
    "ssl.truststore.certificates",
)
KEYSTORE_KEYS = (
    "ssl.keystore.location",
    "ssl.keystore.type",
    "ssl.keystore.password",
    "ssl.keystore.key",
    "ssl.keystore.certificate.chain",
)
JAAS_KEY = "sasl.jaas.config"
TRANSLATED_KEYS = frozenset({JAAS_KEY, *TRUSTSTORE_KEYS, *KEYSTORE_KEYS})


def valid_security_protocol(value: str | None) -> str | None:
    """The worker's `security.protocol`, upper-cased; raises ValueError naming the allowed values."""
    if value is not None and value.strip().upper() not in SECURITY_PROTOCOLS:
        raise ValueError(f"must be one of {', '.join(SECURITY_PROTOCOLS)}")
    return value.strip().upper() if value is not None else None


def top_level_security(props: Mapping[str, str]) -> dict[str, str]:
    """The keys of a worker config that apply to every client: `security.protocol`, `ssl.*`, `sasl.*`."""
    return {k: v for k, v in props.items() if k == "security.protocol" or k.startswith(TOP_LEVEL_PREFIXES)}


@dataclass(frozen=True)
class _Setting:
    value: str
    prefix: str  # what the key was written under: "", "producer.", "admin.override.", ...
    key: str
    layer: int

    @property
    def shown(self) -> str:
        """The key as its file wrote it."""
        return self.prefix + self.key


@dataclass
class ClientSettings:
    """One client's librdkafka settings, the Java-only keys dropped (as written), and the problems found
    (by key as written)."""

    settings: dict[str, str] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)
    problems: dict[str, str] = field(default_factory=dict)


def _is_java_only(key: str) -> bool:
    if key == "ssl.cipher.suites":
        return False
    return key.startswith(TOP_LEVEL_PREFIXES) and key not in LIBRDKAFKA_KEYS and key not in TRANSLATED_KEYS


def _java_cipher_suites(value: str) -> bool:
    """Kafka lists cipher suites by their IANA names, comma-separated (TLS_ECDHE_RSA_WITH_…); OpenSSL's
    list, which librdkafka takes, is colon-separated and names TLS 1.2 suites otherwise."""
    names = [name.strip() for name in value.split(",") if name.strip()]
    return bool(names) and all(name.startswith(("TLS_", "SSL_")) for name in names) and ":" not in value


def _checked_value(key: str, value: str) -> tuple[str | None, str | None]:
    """(the value librdkafka gets, or None to drop the key; a problem, or None)."""
    if key == "security.protocol":
        if value.strip().upper() not in SECURITY_PROTOCOLS:
            return None, f"must be one of {', '.join(SECURITY_PROTOCOLS)} (got {value!r})"
        return value.strip().lower(), None
    if key in ("sasl.mechanism", "sasl.mechanisms"):
        if value.strip().upper() not in SASL_MECHANISMS:
            return None, f"librdkafka supports {', '.join(SASL_MECHANISMS)} (got {value!r})"
        return value.strip().upper(), None
    if key == "ssl.endpoint.identification.algorithm":
        wanted = value.strip().lower()
        if wanted not in ("", "https", "none"):
            return None, f"Kafka's values are https and an empty value, which disables host name checks (got {value!r})"
        return wanted or "none", None
    return value, None


class _Translation:
    def __init__(self, layers: Sequence[tuple[str, Mapping[str, str]]]) -> None:
        self.merged: dict[str, _Setting] = {}
        for index, (prefix, props) in enumerate(layers):
            for key, value in props.items():
                self.merged[key] = _Setting(value, prefix, key, index)
        self.result = ClientSettings()
        self._derived: dict[str, _Setting] = {}

    def _java(self, keys: Sequence[str]) -> tuple[dict[str, str], int]:
        present = {k: self.merged[k] for k in keys if k in self.merged}
        return {k: s.value for k, s in present.items()}, max((s.layer for s in present.values()), default=-1)

    def _derive(self, settings: Mapping[str, str], layer: int, blame: str) -> None:
        for key, value in settings.items():
            explicit = self.merged.get(key)
            if explicit is not None and key not in TRANSLATED_KEYS:
                if explicit.layer > layer:
                    continue
                if explicit.layer == layer and explicit.value != value:
                    self.result.problems[blame] = (
                        f"sets {key}, and so does {explicit.shown} with another value: set only one of them"
                    )
                    continue
            self._derived[key] = _Setting(value, "", blame, layer)

    def stores(self) -> None:
        for keys, translate in ((TRUSTSTORE_KEYS, truststore_settings), (KEYSTORE_KEYS, keystore_settings)):
            java, layer = self._java(keys)
            if not java:
                continue
            top = max((self.merged[k] for k in keys if k in self.merged), key=lambda s: s.layer)
            try:
                settings = translate(java)
            except StoreError as exc:  # blamed on the key as written, or on a missing one beside the others
                blamed = self.merged.get(exc.key)
                self.result.problems[blamed.shown if blamed else top.prefix + exc.key] = str(exc)
                continue
            self._derive(settings, layer, top.shown)

    def jaas(self) -> None:
        setting = self.merged.get(JAAS_KEY)
        if setting is None:
            return
        try:
            settings = login_settings(parse_single_entry(setting.value))
        except (JaasError, LoginModuleError) as exc:
            self.result.problems[setting.shown] = str(exc)
            return
        self._derive(settings, setting.layer, setting.shown)

    def finish(self) -> ClientSettings:
        out = self.result.settings
        for key, setting in self.merged.items():
            if key in TRANSLATED_KEYS:
                continue
            if _is_java_only(key) or (key == "ssl.cipher.suites" and _java_cipher_suites(setting.value)):
                self.result.ignored.append(setting.shown)
                continue
            value, problem = _checked_value(key, setting.value)
            if problem is not None:
                self.result.problems[setting.shown] = problem
            elif value is not None:
                out[key] = value
        for key, setting in self._derived.items():
            out[key] = setting.value
        return self.result


def client_settings(layers: Sequence[tuple[str, Mapping[str, str]]]) -> ClientSettings:
    """librdkafka settings from `layers`, least specific first: (the prefix the keys were written with,
    the keys without it), e.g. ``[("", top_level_security(props)), ("producer.", producer_keys),
    ("producer.override.", overrides)]``. Never raises: see `ClientSettings.problems`."""
    translation = _Translation(layers)
    translation.jaas()
    translation.stores()
    return translation.finish()
