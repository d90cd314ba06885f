"""Finding a converter from the class name in a worker or connector config.

`key.converter` / `value.converter` may name a built-in converter by Kafka's Java class name (so Kafka
config files carry over), by its Python path, or by its bare class name; or any importable
`package.module.Class` that subclasses `Converter`. The converter's own settings are the sub-keys under the
same prefix (`value.converter.schemas.enable=false` -> `schemas.enable=false`), as in Kafka.
`header.converter` names a header converter the same ways (`SimpleHeaderConverter` by default).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from connectworker.api.errors import ConfigError
from connectworker.converters.avro import AvroConverter
from connectworker.converters.base import Converter
from connectworker.converters.bytearray import ByteArrayConverter
from connectworker.converters.header_converters import ConverterHeaders, HeaderConverter, SimpleHeaderConverter
from connectworker.converters.json import JsonConverter
from connectworker.converters.string import StringConverter

KAFKA_CLASS_NAMES: dict[str, type[Converter]] = {
    "org.apache.kafka.connect.storage.StringConverter": StringConverter,
    "org.apache.kafka.connect.converters.ByteArrayConverter": ByteArrayConverter,
    "org.apache.kafka.connect.json.JsonConverter": JsonConverter,
    "io.confluent.connect.avro.AvroConverter": AvroConverter,
}


def _aliases() -> dict[str, type[Converter]]:
    names = dict(KAFKA_CLASS_NAMES)
    for cls in KAFKA_CLASS_NAMES.values():
        names[f"{cls.__module__}.{cls.__qualname__}"] = cls
        names[f"connectworker.converters.{cls.__qualname__}"] = cls
        names[cls.__qualname__] = cls
    return names


BUILTIN_CONVERTERS: dict[str, type[Converter]] = _aliases()


def converter_class(class_name: str, *, key: str = "value.converter") -> type[Converter]:
    """The converter class `class_name` denotes; `ConfigError` on `key` when there is none."""
    name = class_name.strip()
    builtin = BUILTIN_CONVERTERS.get(name)
    if builtin is not None:
        return builtin
    module_name, _, attribute = name.rpartition(".")
    if not module_name:
        raise ConfigError({key: _unknown(name, "it is not a built-in converter name")})
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        why = f"module '{module_name}' cannot be imported ({exc})"
        raise ConfigError({key: _unknown(name, why)}) from None
    candidate = getattr(module, attribute, None)
    if candidate is None:
        raise ConfigError({key: _unknown(name, f"module '{module_name}' has no attribute '{attribute}'")})
    if not (isinstance(candidate, type) and issubclass(candidate, Converter)):
        raise ConfigError({key: _unknown(name, f"it is not a subclass of {Converter.__module__}.Converter")})
    return candidate


def _unknown(name: str, why: str) -> str:
    bare_names = (cls.__qualname__ for cls in KAFKA_CLASS_NAMES.values())
    allowed = ", ".join([*KAFKA_CLASS_NAMES, *bare_names])
    return (
        f"Unknown converter class '{name}': {why}. Use one of {allowed}, or the importable "
        "'package.module.Class' path of a connectworker.converters.Converter subclass"
    )


def load_converter(class_name: str, configs: Mapping[str, Any], is_key: bool, key: str | None = None) -> Converter:
    """Instantiate and configure the converter `class_name` names.

    `configs` are the converter's own settings (see `converter_config_for`). `key` is the config key the
    class name came from (default `key.converter` or `value.converter`); errors are reported against it,
    and a converter's own invalid setting against `<key>.<setting>`.
    """
    key = key or ("key.converter" if is_key else "value.converter")
    converter = converter_class(class_name, key=key)()
    try:
        converter.configure(configs, is_key)
    except ConfigError as exc:
        problems = {f"{key}.{name}" if name else key: message for name, message in exc.problems.items()}
        raise ConfigError(problems, source=exc.source) from exc
    return converter


def converter_config_for(prefix: str, worker_or_connector_props: Mapping[str, Any]) -> dict[str, Any]:
    """The sub-keys under `prefix` with the prefix removed (Kafka's `originalsWithPrefix`).

    `converter_config_for("value.converter", {"value.converter.schemas.enable": "false"})` gives
    `{"schemas.enable": "false"}`. A trailing dot on `prefix` is optional.
    """
    head = prefix if prefix.endswith(".") else prefix + "."
    return {
        k[len(head) :]: v for k, v in worker_or_connector_props.items() if k.startswith(head) and len(k) > len(head)
    }


def resolve_converter(
    key: str,
    connector_props: Mapping[str, Any],
    worker_props: Mapping[str, Any],
    *,
    default: str | None = None,
) -> Converter:
    """The converter for `key` (`key.converter`/`value.converter`) as Kafka's worker picks it.

    A connector that names its own converter class uses only its own `<key>.*` settings; otherwise the
    worker's class and settings apply. `default` is used when neither names a class.
    """
    props = connector_props if connector_props.get(key) else worker_props
    class_name = props.get(key) or default
    if not class_name:
        raise ConfigError(
            {key: "is required: name a converter class, e.g. org.apache.kafka.connect.json.JsonConverter"}
        )
    return load_converter(str(class_name), converter_config_for(key, props), key == "key.converter", key=key)


# -- header converters ------------------------------------------------------------------------------
SIMPLE_HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
HEADER_CONVERTER_KEY = "header.converter"

HEADER_KAFKA_CLASS_NAMES: dict[str, type[HeaderConverter] | type[Converter]] = {
    SIMPLE_HEADER_CONVERTER: SimpleHeaderConverter,
    "org.apache.kafka.connect.storage.StringConverter": StringConverter,
    "org.apache.kafka.connect.converters.ByteArrayConverter": ByteArrayConverter,
    "org.apache.kafka.connect.json.JsonConverter": JsonConverter,
}
"""The header converters Kafka ships, by Kafka's class names; the record converters among them write a
header as they write a record value."""


def _header_aliases() -> dict[str, type[HeaderConverter] | type[Converter]]:
    names = dict(HEADER_KAFKA_CLASS_NAMES)
    for cls in HEADER_KAFKA_CLASS_NAMES.values():
        names[f"{cls.__module__}.{cls.__qualname__}"] = cls
        names[f"connectworker.converters.{cls.__qualname__}"] = cls
        names[cls.__qualname__] = cls
    return names


BUILTIN_HEADER_CONVERTERS = _header_aliases()


def header_converter_class(
    class_name: str, *, key: str = HEADER_CONVERTER_KEY
) -> type[HeaderConverter] | type[Converter]:
    """The header converter class `class_name` denotes (a `HeaderConverter`, or one of the record converters
    Kafka also uses for headers); `ConfigError` on `key` when there is none."""
    name = class_name.strip()
    builtin = BUILTIN_HEADER_CONVERTERS.get(name)
    if builtin is not None:
        return builtin
    if name in BUILTIN_CONVERTERS:  # AvroConverter: a record converter only, in Kafka too
        raise ConfigError({key: _unknown_header(name, "it converts record keys and values, not headers")})
    module_name, _, attribute = name.rpartition(".")
    if not module_name:
        raise ConfigError({key: _unknown_header(name, "it is not a built-in header converter name")})
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError({key: _unknown_header(name, f"module '{module_name}' cannot be imported ({exc})")}) from None
    candidate = getattr(module, attribute, None)
    if candidate is None:
        raise ConfigError({key: _unknown_header(name, f"module '{module_name}' has no attribute '{attribute}'")})
    if not (isinstance(candidate, type) and issubclass(candidate, HeaderConverter)):
        raise ConfigError(
            {key: _unknown_header(name, f"it is not a subclass of {HeaderConverter.__module__}.HeaderConverter")}
        )
    return candidate


def _unknown_header(name: str, why: str) -> str:
    allowed = ", ".join(HEADER_KAFKA_CLASS_NAMES)
    return (
        f"Invalid header converter class '{name}': {why}. Use one of {allowed}, or the importable "
        "'package.module.Class' path of a connectworker.converters.HeaderConverter subclass"
    )


def load_header_converter(
    class_name: str, configs: Mapping[str, Any], key: str = HEADER_CONVERTER_KEY
) -> HeaderConverter:
    """Instantiate and configure the header converter `class_name` names, with its own settings
    (`configs`, the `header.converter.*` sub-keys without the prefix); errors name `key` (or
    `<key>.<setting>` for an invalid setting)."""
    cls = header_converter_class(class_name, key=key)
    converter = cls() if issubclass(cls, HeaderConverter) else ConverterHeaders(cls())
    try:
        converter.configure(configs)
    except ConfigError as exc:
        problems = {f"{key}.{name}" if name else key: message for name, message in exc.problems.items()}
        raise ConfigError(problems, source=exc.source) from exc
    return converter


def resolve_header_converter(connector_props: Mapping[str, Any], worker_props: Mapping[str, Any]) -> HeaderConverter:
    """The header converter as Kafka's worker picks it: the connector's own `header.converter` with only its
    own sub-keys, else the worker's with the worker's, else `SimpleHeaderConverter`."""
    key = HEADER_CONVERTER_KEY
    props = connector_props if connector_props.get(key) else worker_props
    class_name = str(props.get(key) or SIMPLE_HEADER_CONVERTER)
    return load_header_converter(class_name, converter_config_for(key, props), key)
