"""Which connector config values are secret, and hiding them in what the REST API shows.

A key is secret when its name ends in ``password``, ``passphrase`` or ``secret`` (any case), or is one
of the Schema Registry's credentials (``…basic.auth.user.info``, ``…bearer.auth.token``), a client's
``sasl.jaas.config`` (its options hold passwords) or PEM private key (``ssl.keystore.key``,
``ssl.key.pem``, ``…private.key.pem``), or when the connector declares it ``ConfigType.PASSWORD``.
Secret values are shown as ``[hidden]`` (Kafka's own marker). A value that is only a config provider
reference (``${file:/etc/db.properties:password}``) is shown as written.
Because clients often GET a config, edit it and PUT it back, a ``[hidden]`` value sent for a secret key
that already has a value means "keep the current value".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache

from connectworker.api.config_def import ConfigType
from connectworker.api.connector import SourceConnector
from connectworker.config.jaas import secret_options
from connectworker.config.providers.references import is_reference_only
from connectworker.plugins import PluginNotFoundError, resolve_connector_class

HIDDEN = "[hidden]"
MIN_SCRUB_LENGTH = 4
SECRET_SUFFIXES = (
    "password",
    "passphrase",
    "secret",
    "basic.auth.user.info",
    "bearer.auth.token",
    "sasl.jaas.config",
    "ssl.keystore.key",
    "ssl.key.pem",
    "private.key.pem",
)
JAAS_SUFFIX = "sasl.jaas.config"


def connector_class_of(props: Mapping[str, str]) -> type[SourceConnector] | None:
    name = props.get("connector.class")
    if not name:
        return None
    try:
        return resolve_connector_class(name)
    except PluginNotFoundError:
        return None


@cache
def declared_passwords(connector_class: type[SourceConnector] | None) -> frozenset[str]:
    if connector_class is None:
        return frozenset()
    keys = connector_class().config_def().keys
    return frozenset(name for name, key in keys.items() if key.type is ConfigType.PASSWORD)


def is_secret_key(key: str, passwords: frozenset[str] = frozenset()) -> bool:
    return key.lower().endswith(SECRET_SUFFIXES) or key in passwords


def secret_keys(props: Mapping[str, str]) -> set[str]:
    passwords = declared_passwords(connector_class_of(props))
    return {key for key in props if is_secret_key(key, passwords)}


def secret_values(props: Mapping[str, str], keys: Iterable[str] | None = None) -> list[str]:
    """The values of the secret keys of `props` (all of `keys` if given), and the credentials inside each
    ``sasl.jaas.config`` among them: what the log redactor must hide."""
    values: list[str] = []
    for key in secret_keys(props) if keys is None else keys:
        value = props[key]
        values.append(value)
        if key.lower().endswith(JAAS_SUFFIX):
            values += secret_options(value)
    return values


def hide(props: Mapping[str, str], keys: Iterable[str] | None = None) -> dict[str, str]:
    """A copy of `props` with secret values replaced by ``[hidden]``. A value that is only a config
    provider reference (``${file:/etc/db.properties:password}``) is shown as written, as Kafka shows it:
    it says where the secret lives, not what it is."""
    secret = secret_keys(props) if keys is None else set(keys)
    return {k: (HIDDEN if k in secret and not is_reference_only(v) else v) for k, v in props.items()}


def keep_hidden_values(new: Mapping[str, str], current: Mapping[str, str] | None) -> dict[str, str]:
    """`new`, with each ``[hidden]`` secret replaced by the current value of that key (if there is one)."""
    result = dict(new)
    if not current:
        return result
    for key in secret_keys(result) | secret_keys(current):
        if result.get(key) == HIDDEN and key in current:
            result[key] = current[key]
    return result


def scrub(text: str, value: str | None) -> str:
    """A message about a secret `value` with the value replaced by ``[hidden]``: its quoted form always
    (validation messages quote values), its bare form when long enough not to hit ordinary words."""
    if not value or value == HIDDEN:
        return text
    text = text.replace(repr(value), repr(HIDDEN))
    return text.replace(value, HIDDEN) if len(value) >= MIN_SCRUB_LENGTH else text


def written_secrets(configs: Iterable[Mapping[str, str]], worker_keys: Mapping[str, str]) -> set[str]:
    """The secrets written in `configs` and in the worker's own client keys: the values of secret keys
    (a `${provider:...}` reference is no secret) and the credentials inside a `sasl.jaas.config`."""
    written = {
        value
        for props in configs
        for value in secret_values(props, [key for key in secret_keys(props) if not is_reference_only(props[key])])
    }
    return written | set(secret_values(worker_keys, [key for key in worker_keys if is_secret_key(key)]))
