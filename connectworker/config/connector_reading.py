"""One pass over a connector's configuration: every key's report, and the typed parts read on the way.

Validating is reading: the common keys, the transform chain, the converters, the connector's own keys
and exactly-once verdict, the `topic.creation.*` rules and the client overrides are each read once, and
what was read is kept beside the problems found, so `parse_connector_config` (exit 2, HTTP 400) and
the REST validate endpoint build from the same reading instead of reading the keys again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from connectworker.api.config_def import ConfigDef, ConfigKey, ConfigType, ConfigValue
from connectworker.api.connector import SourceConnector
from connectworker.api.errors import ConfigError
from connectworker.config.auto_restart import AUTO_RESTART_CONFIG_DEF
from connectworker.config.client_security import ClientSettings
from connectworker.config.connector_keys import COMMON_CONFIG_DEF, DECLARED_CONFIG_DEF, KeyReport
from connectworker.config.error_handling import ERROR_HANDLING_CONFIG_DEF, ErrorHandling
from connectworker.config.exactly_once import (
    BOUNDARY_KEY,
    EXACTLY_ONCE_CONFIG_DEF,
    INTERVAL_KEY,
    TransactionSettings,
    exactly_once_problems,
)
from connectworker.config.override_policy import (
    ADMIN_OVERRIDE_PREFIX,
    PRODUCER_OVERRIDE_PREFIX,
    OverridePolicy,
    overrides,
)
from connectworker.config.transforms import TransformsConfig, read_transforms
from connectworker.config.worker_clients import override_policy, translated
from connectworker.config.worker_config import WorkerConfig
from connectworker.converters.registry import converter_config_for, load_converter, load_header_converter
from connectworker.plugins import PluginLoadError, PluginNotFoundError, describe_exception, resolve_connector_class
from connectworker.topics.rule_parser import TopicCreationReading, read_topic_creation

__all__ = ["ConnectorConfigReading", "read_connector_config"]

T = TypeVar("T")


@dataclass
class ConnectorConfigReading:
    """A connector config read once: each key's report (declaration, typed value, errors) and the typed
    parts, each None where its keys have a problem."""

    reports: dict[str, KeyReport]
    connector_class: type[SourceConnector] | None
    own_keys: frozenset[str]
    """The keys the connector class declares."""
    transforms: TransformsConfig | None
    topic_creation: TopicCreationReading
    error_handling: ErrorHandling | None
    """The `errors.*` settings, typed; None when one of them has a problem."""
    transactions: TransactionSettings | None
    """The transaction boundary, typed; None when one of its keys has a problem."""
    ignored_keys: frozenset[str] = frozenset()
    """Keys the connector knows and ignores on purpose (`SourceConnector.ignored_keys`)."""
    overrides: dict[str, dict[str, str]] = field(default_factory=dict)
    """The client overrides (`producer.override.*`, `admin.override.*`) without their prefix, by prefix."""
    clients: dict[str, ClientSettings] = field(default_factory=dict)
    """The producer's (and, when the connector creates topics, the Admin client's) settings with its
    overrides, by override prefix; empty without the worker."""

    @property
    def override_prefixes(self) -> list[str]:
        """The client override prefixes a source connector uses: its producer's, and its Admin client's when
        it creates topics (Kafka checks `admin.override.*` only then)."""
        return [PRODUCER_OVERRIDE_PREFIX, *([ADMIN_OVERRIDE_PREFIX] if self.topic_creation.present else [])]

    def problems(self) -> dict[str, list[str]]:
        return {name: r.value.errors for name, r in self.reports.items() if r.value.errors}


def _typed_if_valid(
    make: Callable[[Mapping[str, Any]], T], values: Mapping[str, ConfigValue], keys: Iterable[str]
) -> T | None:
    """`make` over the typed values of `keys`; None when one of them has a problem (it is reported)."""
    picked = {key: values[key] for key in keys}
    if any(value.errors for value in picked.values()):
        return None
    return make({key: value.value for key, value in picked.items()})


def _report(reports: dict[str, KeyReport], definition: ConfigDef, values: Mapping[str, ConfigValue]) -> None:
    for name in definition.keys:
        reports.setdefault(name, KeyReport(definition.keys[name], values[name]))


def _converter_errors(props: Mapping[str, str], reports: dict[str, KeyReport]) -> None:
    """Configure each converter the connector overrides, with its sub-keys, to surface bad values."""
    for key in ("key.converter", "value.converter", "header.converter"):
        name = props.get(key)
        if not name or reports[key].value.errors:
            continue
        own = converter_config_for(key, props)
        try:
            if key == "header.converter":
                load_header_converter(name, own, key).close()
            else:
                load_converter(name, own, key == "key.converter", key=key).close()
        except ConfigError as exc:
            for problem_key, message in exc.problems.items():
                reports[key].value.errors.append(f"{problem_key}: {message}" if problem_key != key else message)


def _connector_reports(
    connector_class: type[SourceConnector], props: Mapping[str, str], exactly_once_worker: bool | None
) -> tuple[dict[str, KeyReport], frozenset[str], frozenset[str], dict[str, str]]:
    """The connector's own validation of its keys, the keys it declares, those it ignores on purpose, and
    its verdict on the exactly-once keys. A
    connector whose `validate()` (or exactly-once method) raises, or returns something else than
    ConfigValues by key, is reported as a PluginLoadError naming the class."""
    class_name = props["connector.class"]
    try:
        connector = connector_class()
        own_def = connector.config_def()
        values = connector.validate(props)
        ignored = frozenset(connector.ignored_keys(props))
        exactly_once = exactly_once_problems(props, connector, exactly_once_worker)
    except Exception as exc:
        raise PluginLoadError(
            f"Class {class_name} cannot validate the configuration: {describe_exception(exc)}"
        ) from None
    if not (isinstance(values, Mapping) and all(isinstance(v, ConfigValue) for v in values.values())):
        raise PluginLoadError(
            f"Class {class_name} cannot validate the configuration: its validate() returned "
            f"{type(values).__name__}, not a dict of ConfigValue by key"
        )
    return (
        {
            name: KeyReport(own_def.keys.get(name) or ConfigKey(name, ConfigType.STRING), value)
            for name, value in values.items()
        },
        frozenset(own_def.keys),
        ignored,
        exactly_once,
    )


def _client_overrides(reading: ConnectorConfigReading, props: Mapping[str, str], worker: WorkerConfig | None) -> None:
    """One report per client override key, as Kafka's validation gives: the worker's
    `connector.client.config.override.policy` decides which keys are allowed, and a value that cannot be
    translated for librdkafka is an error of its key. Without the worker there is nothing to translate
    against (an override's meaning may depend on the worker's keys: a trust store password, its location)."""
    policy = override_policy(worker) if worker is not None else OverridePolicy()
    reports = reading.reports
    for prefix in (PRODUCER_OVERRIDE_PREFIX, ADMIN_OVERRIDE_PREFIX):
        reading.overrides[prefix] = overrides(props, prefix)
    for prefix in reading.override_prefixes:
        keys = reading.overrides[prefix]
        problems = {key: [message] for key, message in policy.violations(prefix, keys).items()}
        if worker is not None:
            reading.clients[prefix] = translated(
                worker, "producer" if prefix == PRODUCER_OVERRIDE_PREFIX else "admin", keys
            )
        if not keys:
            continue
        for key, message in reading.clients.get(prefix, ClientSettings()).problems.items():
            problems.setdefault(key, []).append(message)
        for key in [*(prefix + k for k in keys), *problems]:
            if key not in reports:
                reports[key] = KeyReport(
                    ConfigKey(key, ConfigType.STRING, group="Client Overrides"),
                    ConfigValue(key, props.get(key), errors=list(problems.get(key, []))),
                )


def read_connector_config(
    props: Mapping[str, str],
    *,
    exactly_once_worker: bool | None = None,
    worker: WorkerConfig | None = None,
    extra_topic_configs: Iterable[str] = (),
) -> ConnectorConfigReading:
    """Read and validate every key; never raises for a bad value. Keys without declarations are not reported.

    The reports come in Kafka's group order: Common, Transforms and Predicates, Error Handling, the
    connector's own, Topic Creation, Exactly Once Support, then ours (automatic restarts, client
    overrides). `exactly_once_worker` is the worker's `exactly.once.source.support` (None: not checked
    against it); `worker`, what the client overrides are checked against: its override policy, and its
    client settings they are merged with (None: Kafka's `All` policy, values not checked); without
    `exactly_once_worker`, the worker's says it. The topic configs rules may set beyond Kafka's are the
    worker's `topic.creation.extra.configs` and `extra_topic_configs` (Spark's option of that name)."""
    if exactly_once_worker is None and worker is not None:
        exactly_once_worker = worker.exactly_once_enabled
    declared = DECLARED_CONFIG_DEF.validate_all(props)
    error_handling = _typed_if_valid(ErrorHandling.from_values, declared, ERROR_HANDLING_CONFIG_DEF.keys)
    reports: dict[str, KeyReport] = {}
    _report(reports, COMMON_CONFIG_DEF, declared)
    transforms = read_transforms(props)
    for name, (definition, value) in transforms.reports.items():
        reports[name] = KeyReport(definition, value)
    _report(reports, ERROR_HANDLING_CONFIG_DEF, declared)
    _converter_errors(props, reports)
    connector_class: type[SourceConnector] | None = None
    own_keys: frozenset[str] = frozenset()
    ignored_keys: frozenset[str] = frozenset()
    exactly_once: dict[str, str] = {}
    class_report = reports["connector.class"]
    if not class_report.value.errors:
        try:
            connector_class = resolve_connector_class(props["connector.class"])
            own, own_keys, ignored_keys, exactly_once = _connector_reports(connector_class, props, exactly_once_worker)
        except PluginNotFoundError as exc:
            class_report.value.errors.append(str(exc))
        else:
            reports.update(own)
    transactions = _typed_if_valid(TransactionSettings.from_values, declared, (BOUNDARY_KEY, INTERVAL_KEY))
    extra = [*(worker.topic_creation_extra_configs if worker else ()), *extra_topic_configs]
    topic_creation = read_topic_creation(props, extra_configs=extra)
    problems = {key: list(messages) for key, messages in topic_creation.problems.items()}
    for definition in topic_creation.definitions:
        value = ConfigValue(definition.name, props.get(definition.name), errors=problems.pop(definition.name, []))
        reports[definition.name] = KeyReport(definition, value)
    for key, errors in problems.items():  # problems about keys that are absent (e.g. required ones)
        definition = ConfigKey(key, ConfigType.STRING, group="Topic Creation")
        reports[key] = KeyReport(definition, ConfigValue(key, props.get(key), errors=errors))
    for name in EXACTLY_ONCE_CONFIG_DEF.keys:
        if name in exactly_once and not declared[name].errors:  # a bad value is reported already
            declared[name].errors.append(exactly_once[name])
    _report(reports, EXACTLY_ONCE_CONFIG_DEF, declared)  # the connector's own report of a key comes first
    _report(reports, AUTO_RESTART_CONFIG_DEF, declared)
    reading = ConnectorConfigReading(
        reports,
        connector_class,
        own_keys,
        transforms.config,
        topic_creation,
        error_handling,
        transactions,
        ignored_keys=ignored_keys,
    )
    _client_overrides(reading, props, worker)
    return reading
