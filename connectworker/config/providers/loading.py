"""Building the providers a worker config declares: `config.providers=<name>,...`, then per name
`config.providers.<name>.class` and `config.providers.<name>.param.<key>` (handed to `configure()`
without the prefix), as Kafka's `Worker.initConfigTransformer` does.

The class is one of Kafka's names for the built-in providers (`org.apache.kafka.common.config.provider.
FileConfigProvider`, its aliases `FileConfigProvider` and `File`, and so on), or the Python path
(`module.Class` or `module:Class`) of a `connectworker.api.ConfigProvider` subclass, found as connector
classes are (`plugin.path` directories are on the import path). Every problem is a ConfigError naming
the key: a name without a class, a class that cannot be loaded or is not a provider, refused params.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from connectworker.api.config_provider import ConfigProvider
from connectworker.api.errors import ConfigError
from connectworker.config.providers.builtin import BUILTIN_PROVIDERS, KAFKA_PACKAGE
from connectworker.config.providers.references import ConfigProviders
from connectworker.plugins import PluginLoadError, PluginNotFoundError, describe_exception, import_object

log = logging.getLogger(__name__)

PROVIDERS_KEY = "config.providers"
PROVIDERS_PREFIX = PROVIDERS_KEY + "."
_FORBIDDEN_IN_NAMES = (":", "}", "{", "$", ",")


def provider_names(value: str | Sequence[str] | None) -> list[str]:
    """The names of `config.providers` (comma-separated, blanks ignored), in order, without repeats."""
    items = value.split(",") if isinstance(value, str) else list(value or [])
    names: list[str] = []
    for item in items:
        name = item.strip()
        if name and name not in names:
            names.append(name)
    return names


def open_config_providers(
    names: Sequence[str], settings: Mapping[str, str], *, source: str | None = None
) -> ConfigProviders:
    """The providers `names` (`config.providers`), configured from `settings`: the worker's
    `config.providers.*` keys, with that prefix removed (`file.class`, `file.param.allowed.paths`).
    Raises ConfigError naming every offending key; the providers built before a failure are closed."""
    _warn_about_unused(names, settings, source)
    problems: dict[str, str] = {}
    providers: dict[str, ConfigProvider] = {}
    for name in names:
        try:
            providers[name] = _open(name, settings)
        except ConfigError as exc:
            problems.update(exc.problems)
    if problems:
        ConfigProviders(providers).close()
        raise ConfigError(problems, source=source)
    return ConfigProviders(providers)


def _open(name: str, settings: Mapping[str, str]) -> ConfigProvider:
    class_key = f"{PROVIDERS_PREFIX}{name}.class"
    if any(c in name for c in _FORBIDDEN_IN_NAMES) or name != name.strip():
        raise ConfigError(
            {
                PROVIDERS_KEY: f"{name!r} cannot name a provider: a reference ${{name:[path:]key}} "
                f"ends the name at the first ':' (names may not hold "
                f"{' '.join(_FORBIDDEN_IN_NAMES)} or spaces)"
            }
        )
    class_name = (settings.get(f"{name}.class") or "").strip()
    if not class_name:
        raise ConfigError(
            {
                class_key: f"missing: {PROVIDERS_KEY} names the provider {name}, which needs a class, "
                f"e.g. {KAFKA_PACKAGE}FileConfigProvider"
            }
        )
    cls = provider_class(class_name, class_key)
    try:
        provider = cls()
    except Exception as exc:
        raise ConfigError({class_key: f"{class_name}() raised {describe_exception(exc)}"}) from None
    param_prefix = f"{name}.param."
    params = {k[len(param_prefix) :]: v for k, v in settings.items() if k.startswith(param_prefix)}
    try:
        provider.configure(params)
    except ConfigError as exc:
        provider.close()
        raise ConfigError(
            {
                (f"{PROVIDERS_PREFIX}{param_prefix}{key}" if key else class_key): message
                for key, message in exc.problems.items()
            }
        ) from None
    except Exception as exc:
        provider.close()
        raise ConfigError({class_key: f"{class_name}.configure() raised {describe_exception(exc)}"}) from None
    return provider


def provider_class(class_name: str, key: str) -> type[ConfigProvider]:
    """The provider class `class_name` names: a built-in by Kafka's name or alias, or a Python path."""
    builtin = BUILTIN_PROVIDERS.get(class_name)
    if builtin is not None:
        return builtin
    dotted = class_name.replace(":", ".")
    try:
        cls = import_object(dotted)
    except PluginLoadError as exc:  # (a PluginNotFoundError too: first)
        raise ConfigError({key: f"Class {class_name} could not be loaded: {exc}"}) from None
    except PluginNotFoundError as exc:
        kafka = ", ".join(f"{KAFKA_PACKAGE}{c.__name__}" for c in dict.fromkeys(BUILTIN_PROVIDERS.values()))
        raise ConfigError(
            {
                key: f"Class {exc} could not be found: use one of Kafka's providers ({kafka}) or the "
                f"Python path module.Class of a connectworker.api.ConfigProvider subclass "
                f"(directories in plugin.path are searched)"
            }
        ) from None
    if not (isinstance(cls, type) and issubclass(cls, ConfigProvider)):
        raise ConfigError({key: f"{class_name} is not a subclass of connectworker.api.ConfigProvider"})
    if getattr(cls, "__abstractmethods__", None):
        missing = ", ".join(sorted(cls.__abstractmethods__))
        raise ConfigError({key: f"{class_name} does not implement ConfigProvider's abstract method(s) {missing}"})
    return cls


def _warn_about_unused(names: Sequence[str], settings: Mapping[str, str], source: str | None) -> None:
    """Kafka ignores `config.providers.<name>.*` keys of names it does not list, and other sub-keys, without
    a word; a misspelt name would then leave its references as written. Say so."""
    where = f" in {source}" if source else ""
    for key in sorted(settings):
        name, _, rest = key.partition(".")
        if name not in names:
            log.warning(
                "%s%s%s is ignored: %s does not name the provider %s", PROVIDERS_PREFIX, key, where, PROVIDERS_KEY, name
            )
        elif rest != "class" and not rest.startswith("param."):
            log.warning(
                "%s%s%s is ignored: a provider takes only .class and .param.* keys", PROVIDERS_PREFIX, key, where
            )
