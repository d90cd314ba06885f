"""`/connector-plugins`: what can run here, each plugin's config keys, and config validation."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Query

from connectworker import __version__
from connectworker.api.connector import SourceConnector
from connectworker.converters.registry import HEADER_KAFKA_CLASS_NAMES, KAFKA_CLASS_NAMES
from connectworker.plugins import (
    PluginLoadError,
    PluginNotFoundError,
    builtin_aliases,
    connector_plugins,
    resolve_connector_class,
)
from connectworker.rest.config_infos import config_infos, key_info
from connectworker.rest.deps import HerderDep, PluginName, request_config
from connectworker.rest.errors import BadRequest, NotFound, error_responses
from connectworker.rest.models import ConfigInfos, ConfigKeyInfo, ConfigScalar, PluginInfo
from connectworker.transforms.registry import (
    KAFKA_PREDICATES_PACKAGE,
    PREDICATES,
    builtin_predicate,
    builtin_transformation,
    builtin_transformation_classes,
)

router = APIRouter(tags=["connector plugins"])
JAVA_PACKAGES = ("org.", "io.", "com.")  # the aliases that are another product's Java class name


def _dotted(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _resolve(name: str) -> type[SourceConnector] | None:
    try:
        return resolve_connector_class(name)
    except PluginNotFoundError:
        return None


@router.get("/connector-plugins", response_model=list[PluginInfo])
def list_plugins(connectors_only: Annotated[bool, Query(alias="connectorsOnly")] = True) -> list[PluginInfo]:
    """Source connectors, also under the Java class names they accept (Kafka's FileStreamSourceConnector,
    Confluent's JDBC source, Debezium's PostgreSQL connector); with `connectorsOnly=false` the
    transformations (Kafka's and Debezium's), predicates, converters and header converters too (KIP-769;
    as in Kafka, String, ByteArray and JSON are both converters and header converters)."""
    plugins = [
        PluginInfo(class_name=dotted, type="source", version=cls().version()) for dotted, cls in connector_plugins()
    ]
    plugins += [
        PluginInfo(class_name=alias, type="source", version=resolve_connector_class(dotted)().version())
        for alias, dotted in sorted(builtin_aliases().items())
        if alias.startswith(JAVA_PACKAGES)
    ]
    if not connectors_only:
        plugins += [
            PluginInfo(class_name=name, type="transformation", version=__version__)
            for name in builtin_transformation_classes()
        ]
        plugins += [
            PluginInfo(class_name=KAFKA_PREDICATES_PACKAGE + name, type="predicate", version=__version__)
            for name in sorted(PREDICATES)
        ]
        plugins += [
            PluginInfo(class_name=name, type="converter", version=__version__) for name in sorted(KAFKA_CLASS_NAMES)
        ]
        plugins += [
            PluginInfo(class_name=name, type="header_converter", version=__version__)
            for name in sorted(HEADER_KAFKA_CLASS_NAMES)
        ]
    return plugins


@router.get("/connector-plugins/{plugin}/config", response_model=list[ConfigKeyInfo], responses=error_responses(404))
def plugin_config(plugin: PluginName) -> list[ConfigKeyInfo]:
    """The plugin's own configuration keys: a connector's (the common and topic.creation.* keys are in
    validate), or a built-in transformation's or predicate's (KIP-769). A plugin that is found but cannot
    be used (its module fails to import, an abstract method is missing, …) is 404 as well, with the
    reason."""
    builtin = builtin_transformation(plugin) or builtin_predicate(plugin)
    if builtin is not None:
        return [key_info(key) for key in builtin().config_def().keys.values()]
    try:
        cls = resolve_connector_class(plugin)
    except PluginLoadError as exc:
        raise NotFound(str(exc)) from None
    except PluginNotFoundError:
        raise NotFound(f"Unknown plugin {plugin}.") from None
    return [key_info(key) for key in cls().config_def().keys.values()]


@router.put("/connector-plugins/{plugin}/config/validate", response_model=ConfigInfos, responses=error_responses(400))
def validate_config(
    plugin: PluginName,
    config: Annotated[
        dict[str, ConfigScalar],
        Body(examples=[{"connector.class": "DataGen", "name": "example", "topic.creation.default.partitions": "0"}]),
    ],
    herder: HerderDep,
) -> ConfigInfos:
    """Validate a connector config and report every problem against its key, `topic.creation.*`
    (default and per-group) included. A plugin that cannot be found or used (its module fails to import,
    an abstract method is missing, its constructor, `config_def()` or `validate()` raises) is such a
    problem, reported against `connector.class` in a 200 answer (Kafka answers 500 for a class it cannot
    load)."""
    props = request_config(config)
    included = props.get("connector.class")
    if included is None:  # Kafka's herder refuses it likewise
        raise BadRequest(f"Connector config contains no connector type: set connector.class (to {plugin})")
    if included != plugin:
        cls_included, cls_plugin = _resolve(included), _resolve(plugin)
        if cls_included is None or cls_included is not cls_plugin:
            raise BadRequest(f"Included connector type {included} does not match request type {plugin}")
    cls = _resolve(included)
    return config_infos(herder.validate_connector_config(_dotted(cls) if cls is not None else plugin, props))
