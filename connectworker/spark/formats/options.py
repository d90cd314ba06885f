"""The options of the `connect-source` and `connect-kafka` data sources, parsed once on the driver.

Spark hands a Python data source its options with lower-cased keys. Kafka keys are lower case, but
`topic.creation` group names and a connector's own keys need not be (the KIP's example uses
`topic.creation.firstRule.regex`), so the original spelling is restored from the names the keys can
take: the declared keys of the connector and the names listed in `topic.creation.groups` /
`topic.creation`, `transforms` and `predicates` (whose values keep their case).

Besides a connector's own config, the source takes what a worker file would give the worker:
`kafka.<librdkafka key>` client settings (as Spark's Kafka source does), `topic.creation.enable`
(default false, as the worker), `topic.creation.timeout.ms`, `offset.storage.*` and the bounds of one
micro-batch per task (`microbatch.max.records`, `microbatch.max.ms`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from connectworker.api.config_def import ConfigType, read_config
from connectworker.api.errors import ConfigError
from connectworker.config.connector_keys import DECLARED_CONFIG_DEF
from connectworker.plugins import PluginNotFoundError, add_plugin_paths, resolve_connector_class
from connectworker.runtime.offsets import OFFSET_STORAGE_KEYS, OffsetStorageSettings
from connectworker.topics.config_keys import EXTRA_CONFIGS_KEY, GROUPS_KEY, KIP_RULES_KEY, WORKER_ENABLE_KEY
from connectworker.topics.policy import POLICY_PREFIX

KAFKA_PREFIX = "kafka."
CREATION_TIMEOUT_KEY = "topic.creation.timeout.ms"
MAX_RECORDS_KEY = "microbatch.max.records"
MAX_MS_KEY = "microbatch.max.ms"
PLUGIN_PATH_KEY = "plugin.path"
TOPIC_KEY = "topic"

DEFAULT_MAX_RECORDS = 500_000
DEFAULT_MAX_MS = 1_000
DEFAULT_CREATION_TIMEOUT_MS = 30_000

SPARK_OWN_KEYS = frozenset({"path", "checkpointlocation", "queryname"})
"""Options Spark itself adds; never part of a connector config."""

WORKER_LEVEL_KEYS = frozenset(
    {
        WORKER_ENABLE_KEY,
        EXTRA_CONFIGS_KEY,
        CREATION_TIMEOUT_KEY,
        MAX_RECORDS_KEY,
        MAX_MS_KEY,
        PLUGIN_PATH_KEY,
        *OFFSET_STORAGE_KEYS,
    }
)


def extra_topic_configs(options: Mapping[str, str]) -> tuple[str, ...]:
    """`topic.creation.extra.configs`, as the worker key: topic configs the rules may set beyond Kafka's."""
    return tuple(name.strip() for name in str(options.get(EXTRA_CONFIGS_KEY) or "").split(",") if name.strip())


def policy_settings(options: Mapping[str, str]) -> dict[str, str]:
    """The worker's create-topic policy, `topic.creation.policy.class` and its keys, as given."""
    return {k: v for k, v in options.items() if k.startswith(POLICY_PREFIX)}


def kafka_settings(options: Mapping[str, str]) -> dict[str, str]:
    """The `kafka.*` options with the prefix removed: librdkafka settings."""
    return {
        k[len(KAFKA_PREFIX) :]: v
        for k, v in options.items()
        if k.startswith(KAFKA_PREFIX) and len(k) > len(KAFKA_PREFIX)
    }


def option_value(options: Mapping[str, str], key: str, ctype: ConfigType, default: object) -> object:
    """A typed option (as `ConfigDef` parses it); `ConfigError` on `key` for a bad value."""
    return read_config(options, key, ctype, default)


def positive_int(options: Mapping[str, str], key: str, default: int) -> int:
    value: int = read_config(options, key, ConfigType.INT, default, minimum=1)
    return value


def restore_case(options: Mapping[str, str], names: Iterable[str]) -> dict[str, str]:
    """`options` with each lower-cased key spelled as in `names`, or under a listed topic.creation
    group, transform or predicate alias (`topic.creation.<group>.`, `transforms.<alias>.`, ...)."""
    by_lower = {name.lower(): name for name in names}
    prefixes: dict[str, str] = {}  # lower-cased prefix -> prefix as listed
    for list_key, prefix in (
        (GROUPS_KEY, "topic.creation."),
        (KIP_RULES_KEY, "topic.creation."),
        ("transforms", "transforms."),
        ("predicates", "predicates."),
    ):
        listed: dict[str, str] = {}
        for alias in str(options.get(list_key) or "").split(","):
            alias = alias.strip()
            other = listed.setdefault(alias.lower(), alias)
            if other != alias:
                raise ConfigError(
                    {
                        list_key: f"{other!r} and {alias!r} differ only in case; Spark "
                        f"lower-cases option keys, so give them distinct names"
                    }
                )
            if alias:
                prefixes[f"{prefix}{alias.lower()}."] = f"{prefix}{alias}."
    restored: dict[str, str] = {}
    for key, value in options.items():
        name = by_lower.get(key.lower())
        if name is None:
            name = key
            for low, prefix in prefixes.items():
                if key.lower().startswith(low):
                    name = prefix + key[len(low) :]
                    break
        restored[name] = value
    return restored


def connector_key_names(options: Mapping[str, str]) -> list[str]:
    """The declared keys of the common config and of the connector named by `connector.class`."""
    names = list(DECLARED_CONFIG_DEF.names())
    class_name = options.get("connector.class")
    if not class_name:
        return names
    try:
        connector_class = resolve_connector_class(class_name)
    except PluginNotFoundError:
        return names  # parse_connector_config reports the unknown class, with the allowed names
    return names + connector_class().config_def().names()


@dataclass(frozen=True)
class SourceSettings:
    """What `connect-source` needs, picklable so it reaches the executors' `read()`."""

    connector: dict[str, str]
    kafka: dict[str, str]
    creation_enabled: bool
    creation_timeout_ms: int
    offsets: OffsetStorageSettings
    max_records: int = DEFAULT_MAX_RECORDS
    max_ms: int = DEFAULT_MAX_MS
    policy: dict[str, str] = field(default_factory=dict)
    plugin_path: tuple[str, ...] = ()
    extra_topic_configs: tuple[str, ...] = ()

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> SourceSettings:
        options = dict(options)
        plugin_path = tuple(p.strip() for p in str(options.get(PLUGIN_PATH_KEY) or "").split(",") if p.strip())
        add_plugin_paths(plugin_path)  # before the connector class is resolved
        kafka = kafka_settings(options)
        offsets = OffsetStorageSettings.from_options(options, kafka, required=True)
        assert offsets is not None
        enabled = option_value(options, WORKER_ENABLE_KEY, ConfigType.BOOLEAN, False)
        if enabled and not kafka.get("bootstrap.servers"):
            raise ConfigError(
                {
                    "kafka.bootstrap.servers": f"required with {WORKER_ENABLE_KEY}=true: the "
                    f"cluster where topics are created"
                }
            )
        connector = {
            k: v
            for k, v in options.items()
            if not k.startswith((KAFKA_PREFIX, POLICY_PREFIX))
            and k not in WORKER_LEVEL_KEYS
            and k not in SPARK_OWN_KEYS
        }
        return cls(
            connector=restore_case(connector, connector_key_names(connector)),
            kafka=kafka,
            creation_enabled=bool(enabled),
            creation_timeout_ms=positive_int(options, CREATION_TIMEOUT_KEY, DEFAULT_CREATION_TIMEOUT_MS),
            offsets=offsets,
            max_records=positive_int(options, MAX_RECORDS_KEY, DEFAULT_MAX_RECORDS),
            max_ms=positive_int(options, MAX_MS_KEY, DEFAULT_MAX_MS),
            policy=policy_settings(options),
            plugin_path=plugin_path,
            extra_topic_configs=extra_topic_configs(options),
        )


@dataclass(frozen=True)
class SinkSettings:
    """What `connect-kafka` needs, picklable so it reaches the executors' `write()`."""

    kafka: dict[str, str]
    topic: str | None
    creation_enabled: bool
    creation_timeout_ms: int
    creation_props: dict[str, str] = field(default_factory=dict)
    offsets: OffsetStorageSettings | None = None
    policy: dict[str, str] = field(default_factory=dict)
    extra_topic_configs: tuple[str, ...] = ()

    @classmethod
    def from_options(cls, options: Mapping[str, str]) -> SinkSettings:
        options = dict(options)
        kafka = kafka_settings(options)
        if not kafka.get("bootstrap.servers"):
            raise ConfigError({"kafka.bootstrap.servers": "required: the Kafka cluster to write to"})
        enabled = option_value(options, WORKER_ENABLE_KEY, ConfigType.BOOLEAN, False)
        creation = {
            k: v
            for k, v in options.items()
            if (k == KIP_RULES_KEY or k.startswith("topic.creation."))
            and k not in WORKER_LEVEL_KEYS
            and not k.startswith(POLICY_PREFIX)
        }
        return cls(
            kafka=kafka,
            topic=options.get(TOPIC_KEY) or None,
            creation_enabled=bool(enabled),
            creation_timeout_ms=positive_int(options, CREATION_TIMEOUT_KEY, DEFAULT_CREATION_TIMEOUT_MS),
            creation_props=restore_case(creation, ()),
            offsets=OffsetStorageSettings.from_options(options, kafka, required=False),
            policy=policy_settings(options),
            extra_topic_configs=extra_topic_configs(options),
        )
