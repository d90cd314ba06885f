"""A connector's configuration, typed: what the runtime is built from.

`parse_connector_config` reads the keys once (`connector_reading.py`), raises `ConfigError` naming every
offending key, and builds the `ConnectorConfig` from what that reading typed; `validate_connector` is
the same reading's reports, for the REST validate endpoint.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from connectworker.api.config_def import closest_name
from connectworker.api.connector import SourceConnector
from connectworker.api.errors import ConfigError
from connectworker.config.connector_keys import DECLARED_CONFIG_DEF, KeyReport
from connectworker.config.connector_reading import ConnectorConfigReading, read_connector_config
from connectworker.config.error_handling import ErrorHandling
from connectworker.config.exactly_once import TransactionSettings
from connectworker.config.override_policy import ADMIN_OVERRIDE_PREFIX, PRODUCER_OVERRIDE_PREFIX
from connectworker.config.providers.references import ConfigProviders, has_references, shown_message
from connectworker.config.transforms import TransformsConfig
from connectworker.config.unsupported_keys import (
    CONNECTOR_KEY_WARNINGS,
    JAVA_ONLY_KEY_WARNINGS,
    MISSPELT_KEY_WARNINGS,
    UNUSED_ADMIN_OVERRIDE_WARNINGS,
    unimplemented_connector_keys,
)
from connectworker.config.worker_config import WorkerConfig
from connectworker.topics.rules import TopicCreationRules

NEEDED_TO_PARSE = frozenset({"name", "connector.class"})  # a reference there must resolve when the config is read
__all__ = [
    "ADMIN_OVERRIDE_PREFIX",
    "PRODUCER_OVERRIDE_PREFIX",
    "ConnectorConfig",
    "KeyReport",
    "parse_connector_config",
    "validate_connector",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ConnectorConfig:
    """A connector configuration that passed validation."""

    name: str
    class_name: str
    connector_class: type[SourceConnector]
    tasks_max: int
    props: dict[str, str]
    topic_rules: TopicCreationRules
    producer_overrides: dict[str, str] = field(default_factory=dict)
    admin_overrides: dict[str, str] = field(default_factory=dict)  # for its topic creation
    transforms: TransformsConfig = field(default_factory=TransformsConfig)
    tasks_max_enforce: bool = True
    error_handling: ErrorHandling = field(default_factory=ErrorHandling)
    transactions: TransactionSettings = field(default_factory=TransactionSettings.per_poll)


def validate_connector(props: Mapping[str, str], *, worker: WorkerConfig | None = None) -> dict[str, KeyReport]:
    """Every declared key's report; never raises for a bad value (see `read_connector_config`)."""
    return read_connector_config(props, worker=worker).reports


def parse_connector_config(
    props: Mapping[str, str],
    *,
    source: str | None = None,
    providers: ConfigProviders | None = None,
    worker: WorkerConfig | None = None,
    extra_topic_configs: Iterable[str] = (),
) -> ConnectorConfig:
    """Validate and type a connector config; raises ConfigError naming every offending key.

    Kafka keys that connectworker does not implement (`offsets.storage.topic`, …) are accepted, with one WARN per
    connector naming them (see `connectworker.config.unsupported_keys`).

    With `providers`, `${provider:[path:]key}` references are resolved for the validation, as Kafka
    validates the values a connector would receive; messages name the reference, not its value. A key
    whose reference cannot be resolved now is not checked (the connector goes FAILED, naming it, when it
    starts). The config keeps `props` as written: that is what is stored and shown.
    """
    checked: Mapping[str, str] = props
    resolution = None
    if providers and any(has_references(value) for value in props.values()):
        resolution = providers.resolve(props)
        checked = resolution.props  # a reference that cannot be resolved is left as written
    unresolved = resolution.problems if resolution is not None else {}
    deferred = set(unresolved) - NEEDED_TO_PARSE
    reading = read_connector_config(checked, worker=worker, extra_topic_configs=extra_topic_configs)
    problems = {name: "; ".join(errors) for name, errors in reading.problems().items() if name not in deferred}
    if resolution is not None:
        problems = {
            name: shown_message(message, props, resolution.props, resolution.values)
            for name, message in problems.items()
        }
        problems.update({name: f"cannot be resolved: {unresolved[name]}" for name in NEEDED_TO_PARSE & set(unresolved)})
    if problems:
        raise ConfigError(problems, source=source)
    assert reading.connector_class is not None  # a class that cannot be loaded is a problem of connector.class
    common = _typed(reading.reports, ("connector.class", "tasks.max", "tasks.max.enforce"), deferred)
    name = props["name"].strip()
    # With a rule's or a transform's reference unresolved they cannot be read: none until the connector
    # starts, when its config is resolved and parsed again (and fails, naming the reference, if it still
    # cannot be resolved).
    rules_deferred = any(k.startswith("topic.creation.") for k in deferred)
    chain_deferred = any(k.startswith(("transforms", "predicates")) for k in deferred)
    config = ConnectorConfig(
        name=name,
        class_name=common["connector.class"],
        connector_class=reading.connector_class,
        tasks_max=common["tasks.max"],
        props=dict(props),
        topic_rules=TopicCreationRules([]) if rules_deferred else reading.topic_creation.checked_rules(source=source),
        producer_overrides=_known(reading.overrides[PRODUCER_OVERRIDE_PREFIX], PRODUCER_OVERRIDE_PREFIX, deferred),
        admin_overrides=_known(reading.overrides[ADMIN_OVERRIDE_PREFIX], ADMIN_OVERRIDE_PREFIX, deferred),
        transforms=TransformsConfig() if chain_deferred else reading.transforms or TransformsConfig(),
        tasks_max_enforce=common["tasks.max.enforce"],
        # None only while one of their keys waits for its reference: the defaults until the connector starts
        error_handling=reading.error_handling or ErrorHandling(),
        transactions=reading.transactions or TransactionSettings.per_poll(),
    )
    _warn_about_ignored_keys(name, props, reading)
    return config


def _warn_about_ignored_keys(name: str, props: Mapping[str, str], reading: ConnectorConfigReading) -> None:
    """One WARN per connector and kind: keys connectworker does not implement, client keys only Java
    clients read, `admin.override.*` keys of a connector that creates no topics."""
    declared = {*DECLARED_CONFIG_DEF.keys, *reading.own_keys}
    CONNECTOR_KEY_WARNINGS.report(name, unimplemented_connector_keys(props, declared))
    JAVA_ONLY_KEY_WARNINGS.report(
        name,
        [
            key
            for prefix in reading.override_prefixes
            for key in (reading.clients[prefix].ignored if prefix in reading.clients else ())
            if key.startswith(prefix)
        ],
    )
    if not reading.topic_creation.present:
        UNUSED_ADMIN_OVERRIDE_WARNINGS.report(name, sorted(k for k in props if k.startswith(ADMIN_OVERRIDE_PREFIX)))
    known = {*declared, *reading.reports}
    MISSPELT_KEY_WARNINGS.report(
        name, _misspelt_keys({k: v for k, v in props.items() if k not in reading.ignored_keys}, known)
    )


# Families of keys whose members are read by name elsewhere (client overrides, a converter's own keys) or
# are checked by their own reader (topic creation rules, which name near misses themselves).
_KEY_FAMILIES = (
    "topic.creation",
    PRODUCER_OVERRIDE_PREFIX,
    ADMIN_OVERRIDE_PREFIX,
    "key.converter.",
    "value.converter.",
    "header.converter.",
)


MISSPELLING_CHECKS = 1000
"""At most this many undeclared keys of one config are compared with the declared ones (each comparison
costs a fraction of a millisecond: a config of 200,000 keys of the connector's own would take a minute)."""


def _misspelt_keys(props: Mapping[str, str], known: Collection[str]) -> list[str]:
    """Keys nothing declares that are a near miss of a declared one (`tasks.maxx`), each with that one. A
    connector may read keys it does not declare, so only near misses are named, and none is refused.
    Only the first `MISSPELLING_CHECKS` undeclared keys (in name order) are looked at."""
    out = []
    undeclared = (key for key in sorted(props) if key not in known and not key.startswith(_KEY_FAMILIES))
    for checked, key in enumerate(undeclared):
        if checked == MISSPELLING_CHECKS:
            log.debug("Only the first %d undeclared keys were checked for misspellings", MISSPELLING_CHECKS)
            break
        near = closest_name(key, known)
        if near is not None:
            out.append(f"{key} (did you mean {near}?)")
    return out


def _typed(reports: Mapping[str, KeyReport], keys: Iterable[str], deferred: set[str]) -> dict[str, Any]:
    """Declared keys' typed values; a key's default while its reference cannot be resolved (the connector
    fails when it starts, so the default is never used to run it)."""
    return {key: DECLARED_CONFIG_DEF.keys[key].default if key in deferred else reports[key].value.value for key in keys}


def _known(client_overrides: dict[str, str], prefix: str, deferred: set[str]) -> dict[str, str]:
    """A client's overrides but those whose reference cannot be resolved yet."""
    return {key: value for key, value in client_overrides.items() if prefix + key not in deferred}
