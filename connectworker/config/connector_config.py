"""Validating a connector's configuration: the common keys every connector has, the connector's own
declared keys, its converters, and its `topic.creation.*` rules, all reported at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from connectworker.api.config_def import (
    ConfigDef,
    ConfigKey,
    ConfigType,
    ConfigValue,
    Importance,
    at_least,
)
from connectworker.api.connector import SourceConnector
from connectworker.api.errors import ConfigError
from connectworker.config.auto_restart import AUTO_RESTART_CONFIG_DEF
from connectworker.config.client_security import ClientSettings
from connectworker.config.connector_names import valid_connector_name
from connectworker.config.error_handling import ERROR_HANDLING_CONFIG_DEF
from connectworker.config.exactly_once import EXACTLY_ONCE_CONFIG_DEF, exactly_once_problems
from connectworker.config.override_policy import (
    ADMIN_OVERRIDE_PREFIX,
    PRODUCER_OVERRIDE_PREFIX,
    OverridePolicy,
    overrides,
)
from connectworker.config.providers.references import ConfigProviders, has_references, shown_message
from connectworker.config.transforms import TransformsConfig, read_transforms
from connectworker.config.unsupported_keys import (
    CONNECTOR_KEY_WARNINGS,
    JAVA_ONLY_KEY_WARNINGS,
    UNUSED_ADMIN_OVERRIDE_WARNINGS,
    unimplemented_connector_keys,
)
from connectworker.config.worker_clients import override_policy, translated
from connectworker.config.worker_config import WorkerConfig
from connectworker.converters.registry import converter_config_for, load_converter, load_header_converter
from connectworker.plugins import PluginLoadError, PluginNotFoundError, describe_exception, resolve_connector_class
from connectworker.topics.rule_parser import (
    has_topic_creation_keys,
    parse_topic_creation,
    topic_creation_config_keys,
    topic_creation_problems,
)
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

COMMON_GROUP = "Common"
COMMON_CONFIG_DEF = (
    ConfigDef()
    .define(
        "name",
        ConfigType.STRING,
        validator=valid_connector_name,
        importance=Importance.HIGH,
        documentation="Globally unique name to use for this connector: at most 249 characters, no "
        "ISO control characters, no '/', not '.' or '..' (nor %2e%2e and the like, which "
        "decode to them).",
        group=COMMON_GROUP,
    )
    .define(
        "connector.class",
        ConfigType.STRING,
        importance=Importance.HIGH,
        group=COMMON_GROUP,
        documentation="Name or alias of the SourceConnector class, e.g. FileStreamSource, DataGen, "
        "or an importable module.Class path.",
    )
    .define(
        "tasks.max",
        ConfigType.INT,
        1,
        validator=at_least(1),
        importance=Importance.HIGH,
        group=COMMON_GROUP,
        documentation="Maximum number of tasks to use for this connector.",
    )
    .define(
        "tasks.max.enforce",
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        group=COMMON_GROUP,
        documentation="Whether a connector whose task_configs() returns more than tasks.max task configs "
        "fails (Kafka's KIP-1004, default). false runs every task it returned, with a "
        "warning, as older Kafka did; the worker's task limits still apply.",
    )
    .define(
        "key.converter",
        ConfigType.CLASS,
        None,
        importance=Importance.LOW,
        group=COMMON_GROUP,
        documentation="Converter for record keys; overrides the worker's key.converter.",
    )
    .define(
        "value.converter",
        ConfigType.CLASS,
        None,
        importance=Importance.LOW,
        group=COMMON_GROUP,
        documentation="Converter for record values; overrides the worker's value.converter.",
    )
    .define(
        "header.converter",
        ConfigType.CLASS,
        None,
        importance=Importance.LOW,
        group=COMMON_GROUP,
        documentation="Converter for record header values; overrides the worker's header.converter.",
    )
)
"""The keys every connector has, in Kafka's "Common" group; `errors.*` follow the transforms."""
DECLARED_CONFIG_DEF = (
    COMMON_CONFIG_DEF.merge(ERROR_HANDLING_CONFIG_DEF).merge(EXACTLY_ONCE_CONFIG_DEF).merge(AUTO_RESTART_CONFIG_DEF)
)


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


@dataclass
class KeyReport:
    """One key's declaration and validation outcome, as the REST validate endpoint reports it."""

    definition: ConfigKey
    value: ConfigValue


def _converter_errors(props: Mapping[str, str], reports: dict[str, KeyReport]) -> None:
    """Configure each converter the connector overrides, with its sub-keys, to surface bad values."""
    for key in ("key.converter", "value.converter", "header.converter"):
        name = props.get(key)
        if not name or reports[key].value.errors:
            continue
        try:
            if key == "header.converter":
                load_header_converter(name, converter_config_for(key, props), key).close()
            else:
                load_converter(name, converter_config_for(key, props), key == "key.converter", key=key).close()
        except ConfigError as exc:
            for problem_key, message in exc.problems.items():
                reports[key].value.errors.append(f"{problem_key}: {message}" if problem_key != key else message)


def _connector_reports(
    props: Mapping[str, str], exactly_once_worker: bool | None
) -> tuple[dict[str, KeyReport], dict[str, str]]:
    """The connector's own validation of its keys, and its verdict on the exactly-once keys. A
    connector whose `validate()` (or exactly-once method) raises, or returns something else than
    ConfigValues by key, is reported as a PluginLoadError naming the class."""
    class_name = props["connector.class"]
    connector_class = resolve_connector_class(class_name)
    try:
        connector = connector_class()
        own_def = connector.config_def()
        values = connector.validate(props)
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
        exactly_once,
    )


def _override_prefixes(props: Mapping[str, str]) -> list[str]:
    """The client override prefixes a source connector uses: its producer's, and its Admin client's when
    it creates topics (Kafka checks `admin.override.*` only then)."""
    return [PRODUCER_OVERRIDE_PREFIX, *([ADMIN_OVERRIDE_PREFIX] if has_topic_creation_keys(props) else [])]


def _client_settings(props: Mapping[str, str], prefix: str, worker: WorkerConfig | None) -> ClientSettings:
    """The settings of the client `prefix` overrides, over the worker's; nothing to say without the worker
    (an override's meaning may depend on the worker's keys: a trust store password, its location)."""
    if worker is None:
        return ClientSettings()
    return translated(worker, "producer" if prefix == PRODUCER_OVERRIDE_PREFIX else "admin", overrides(props, prefix))


def _client_override_reports(
    props: Mapping[str, str], worker: WorkerConfig | None, reports: dict[str, KeyReport]
) -> None:
    """One report per client override key, as Kafka's validation gives: the worker's
    `connector.client.config.override.policy` decides which keys are allowed, and a value that cannot be
    translated for librdkafka is an error of its key."""
    policy = override_policy(worker) if worker is not None else OverridePolicy()
    for prefix in _override_prefixes(props):
        keys = overrides(props, prefix)
        if not keys:
            continue
        problems = {key: [message] for key, message in policy.violations(prefix, keys).items()}
        for key, message in _client_settings(props, prefix, worker).problems.items():
            problems.setdefault(key, []).append(message)
        for key in [*(prefix + k for k in keys), *problems]:
            if key not in reports:
                reports[key] = KeyReport(
                    ConfigKey(key, ConfigType.STRING, group="Client Overrides"),
                    ConfigValue(key, props.get(key), errors=list(problems.get(key, []))),
                )


def validate_connector(
    props: Mapping[str, str], *, exactly_once_worker: bool | None = None, worker: WorkerConfig | None = None
) -> dict[str, KeyReport]:
    """Validate every key; never raises. Keys without declarations are not reported.

    `exactly_once_worker` is the worker's `exactly.once.source.support` (None: not checked against it);
    `worker`, what the client overrides are checked against: its override policy, and its client settings
    they are merged with (None: Kafka's `All` policy, values not checked)."""
    exactly_once: dict[str, str] = {}
    reports = {
        name: KeyReport(COMMON_CONFIG_DEF.keys[name], value)
        for name, value in COMMON_CONFIG_DEF.validate_all(props).items()
    }
    for name, (definition, value) in read_transforms(props).reports.items():  # Kafka's group order
        reports[name] = KeyReport(definition, value)
    for name, value in ERROR_HANDLING_CONFIG_DEF.validate_all(props).items():
        reports[name] = KeyReport(ERROR_HANDLING_CONFIG_DEF.keys[name], value)
    _converter_errors(props, reports)
    class_report = reports["connector.class"]
    if not class_report.value.errors:
        try:
            own, exactly_once = _connector_reports(props, exactly_once_worker)
        except PluginNotFoundError as exc:
            class_report.value.errors.append(str(exc))
        else:
            reports.update(own)
    problems = topic_creation_problems(props)
    for definition in topic_creation_config_keys(props):
        value = ConfigValue(definition.name, props.get(definition.name), errors=list(problems.pop(definition.name, [])))
        reports[definition.name] = KeyReport(definition, value)
    for key, errors in problems.items():  # problems about keys that are absent (e.g. required ones)
        definition = ConfigKey(key, ConfigType.STRING, group="Topic Creation")
        reports[key] = KeyReport(definition, ConfigValue(key, props.get(key), errors=list(errors)))
    for name, value in EXACTLY_ONCE_CONFIG_DEF.validate_all(props).items():  # after Topic Creation, as Kafka
        if not value.errors and name in exactly_once:  # a bad value is reported already
            value.errors.append(exactly_once[name])
        reports.setdefault(name, KeyReport(EXACTLY_ONCE_CONFIG_DEF.keys[name], value))
    for name, value in AUTO_RESTART_CONFIG_DEF.validate_all(props).items():
        reports[name] = KeyReport(AUTO_RESTART_CONFIG_DEF.keys[name], value)
    _client_override_reports(props, worker, reports)
    return reports


def parse_connector_config(
    props: Mapping[str, str],
    *,
    source: str | None = None,
    exactly_once_worker: bool | None = None,
    providers: ConfigProviders | None = None,
    worker: WorkerConfig | None = None,
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
    reports = validate_connector(checked, exactly_once_worker=exactly_once_worker, worker=worker)
    problems = {
        name: "; ".join(r.value.errors) for name, r in reports.items() if r.value.errors and name not in deferred
    }
    if resolution is not None:
        problems = {
            name: shown_message(message, props, resolution.props, resolution.values)
            for name, message in problems.items()
        }
        problems.update({name: f"cannot be resolved: {unresolved[name]}" for name in NEEDED_TO_PARSE & set(unresolved)})
    if problems:
        raise ConfigError(problems, source=source)
    typed = {k: v for k, v in checked.items() if k not in deferred}
    connector_class = resolve_connector_class(typed["connector.class"])
    name = props["name"].strip()
    declared = {*DECLARED_CONFIG_DEF.keys, *connector_class().config_def().keys}
    CONNECTOR_KEY_WARNINGS.report(name, unimplemented_connector_keys(props, declared))
    JAVA_ONLY_KEY_WARNINGS.report(
        name,
        [
            key
            for prefix in _override_prefixes(typed)
            for key in _client_settings(typed, prefix, worker).ignored
            if key.startswith(prefix)
        ],
    )
    if not has_topic_creation_keys(props):
        UNUSED_ADMIN_OVERRIDE_WARNINGS.report(name, sorted(k for k in props if k.startswith(ADMIN_OVERRIDE_PREFIX)))
    return ConnectorConfig(
        name=name,
        class_name=typed["connector.class"],
        connector_class=connector_class,
        tasks_max=_typed(reports, "tasks.max", deferred),
        props=dict(props),
        # with a rule's reference unresolved the rules cannot be read: none until it starts (and fails)
        topic_rules=parse_topic_creation(
            {} if any(k.startswith("topic.creation.") for k in deferred) else typed, source=source
        ),
        producer_overrides=overrides(typed, PRODUCER_OVERRIDE_PREFIX),
        admin_overrides=overrides(typed, ADMIN_OVERRIDE_PREFIX),
        transforms=read_transforms(typed).config or TransformsConfig(),  # validated above
        tasks_max_enforce=_typed(reports, "tasks.max.enforce", deferred),
    )


def _typed(reports: Mapping[str, KeyReport], key: str, deferred: set[str]) -> Any:
    """A common key's typed value; its default while its reference cannot be resolved (the connector
    fails when it starts, so the default is never used to run it)."""
    return COMMON_CONFIG_DEF.keys[key].default if key in deferred else reports[key].value.value
