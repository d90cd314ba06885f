"""The keys every connector has (Kafka's "Common" group, error handling, exactly-once, automatic
restarts), and the report of one key's validation as the REST validate endpoint shows it."""

from __future__ import annotations

from dataclasses import dataclass

from connectworker.api.config_def import ConfigDef, ConfigKey, ConfigType, ConfigValue, Importance, at_least
from connectworker.config.auto_restart import AUTO_RESTART_CONFIG_DEF
from connectworker.config.connector_names import valid_connector_name
from connectworker.config.error_handling import ERROR_HANDLING_CONFIG_DEF
from connectworker.config.exactly_once import EXACTLY_ONCE_CONFIG_DEF

__all__ = ["COMMON_CONFIG_DEF", "DECLARED_CONFIG_DEF", "KeyReport"]

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


@dataclass
class KeyReport:
    """One key's declaration and validation outcome, as the REST validate endpoint reports it."""

    definition: ConfigKey
    value: ConfigValue
