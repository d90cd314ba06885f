"""The connector half of the configuration reference: the common connector keys (topic creation,
transforms, error handling, exactly-once, automatic restarts) and the built-in connectors' keys, read
from their `ConfigDef`s. Connectors, transforms and readers are imported only when the page is
rendered."""

from __future__ import annotations

import importlib
import inspect
import re
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any

from connectworker.api.config_def import (
    ConfigDef,
    ConfigKey,
    at_least,
    in_range,
    non_empty_string,
    one_of,
    valid_regex_list,
)
from connectworker.config.reference_markdown import cell_code, cell_default, cell_text, table

__all__ = ["allowed_values", "builtin_section", "config_keys_table", "connector_section", "embedded_broker_caveat"]

# Placeholders in the sample configs fed to the readers whose keys depend on names a connector chooses.
_ALIAS, _PREDICATE, _GROUP, _RULE, _CONFIG = "<alias>", "<predicate>", "<group>", "<rule>", "<config>"


# -- connector keys --------------------------------------------------------------------------------
def _validator_factories() -> dict[types.CodeType, Callable[[dict[str, Any]], str]]:
    """The closures `at_least`, `in_range` and `one_of` return share a code object per factory; their
    arguments are read back from the closure."""
    return {
        at_least(0).__code__: lambda v: f"≥ {v['minimum']}",
        in_range(0, 1).__code__: lambda v: f"{v['minimum']}..{v['maximum']}",
        one_of("").__code__: lambda v: ", ".join(cell_code(a) for a in v["allowed"]),
    }


def allowed_values(key: ConfigKey) -> str:
    """What a `ConfigKey` allows, as far as its validator can be read; else its recommended values.
    A connector's own validator functions are described by its documentation instead."""
    validator = key.validator
    if validator is non_empty_string:
        return "non-empty"
    if validator is valid_regex_list:
        return "Python regular expressions"
    code = getattr(validator, "__code__", None)
    describe = _validator_factories().get(code) if code is not None else None
    if describe is not None and validator is not None:
        return describe(dict(inspect.getclosurevars(validator).nonlocals))
    return ", ".join(cell_code(v) for v in key.recommended_values)


def _key_row(key: ConfigKey, default: str | None = None) -> list[str]:
    return [
        cell_code(key.name),
        key.type.value.lower(),
        default or cell_default(key.default),
        allowed_values(key),
        cell_text(key.documentation),
    ]


def config_keys_table(keys: Iterable[ConfigKey], defaults: dict[str, str] | None = None) -> list[str]:
    return table(
        ["key", "type", "default", "allowed values", "description"],
        (_key_row(key, (defaults or {}).get(key.name)) for key in keys),
    )


def _keys(definition: ConfigDef) -> list[ConfigKey]:
    return list(definition.keys.values())


def _transform_keys() -> list[ConfigKey]:
    from connectworker.config.transforms import read_transforms

    sample = {
        "transforms": _ALIAS,
        f"transforms.{_ALIAS}.type": "Filter",
        f"transforms.{_ALIAS}.predicate": _PREDICATE,
        f"transforms.{_ALIAS}.negate": "false",
        "predicates": _PREDICATE,
        f"predicates.{_PREDICATE}.type": "RecordIsTombstone",
    }
    return [definition for definition, _ in read_transforms(sample).reports.values()]


def _topic_creation_sections() -> list[str]:
    from connectworker.topics.config_keys import (
        DEFAULT_GROUP,
        EXCLUDE,
        GROUPS_KEY,
        INCLUDE,
        KIP_RULES_KEY,
        KNOWN_TOPIC_CONFIGS,
        PARTITIONS,
        REGEX,
        REPLICATION_FACTOR,
        VENDOR_TOPIC_CONFIG_PREFIXES,
        group_key,
    )
    from connectworker.topics.rule_parser import topic_creation_config_keys

    counts = {REPLICATION_FACTOR: "1", PARTITIONS: "1"}
    groups = {
        GROUPS_KEY: _GROUP,
        **{group_key(DEFAULT_GROUP, s): v for s, v in counts.items()},
        group_key(DEFAULT_GROUP, _CONFIG): "x",
        group_key(_GROUP, INCLUDE): "x",
        group_key(_GROUP, EXCLUDE): "x",
        **{group_key(_GROUP, s): v for s, v in counts.items()},
        group_key(_GROUP, _CONFIG): "x",
    }
    # A listed group's counts default to the default group's, which a sample can only show as a number.
    inherited = {group_key(_GROUP, s): "the default group's" for s in counts}
    rules = {
        KIP_RULES_KEY: _RULE,
        group_key(_RULE, REGEX): "x",
        **{group_key(_RULE, s): v for s, v in counts.items()},
        group_key(_RULE, _CONFIG): "x",
    }
    known = ", ".join(cell_code(name) for name in sorted(KNOWN_TOPIC_CONFIGS))
    vendors = ", ".join(cell_code(prefix + "*") for prefix in VENDOR_TOPIC_CONFIG_PREFIXES)
    lines = [
        "### Topic creation",
        "",
        "Used when the worker has `topic.creation.enable=true` (see docs/topic-creation.md). Kafka's "
        f"spelling, groups listed in `{GROUPS_KEY}` (`{_GROUP}` stands for each name listed, "
        f"`{_CONFIG}` for a topic config):",
        "",
    ]
    lines += config_keys_table(topic_creation_config_keys(groups), inherited)
    lines += [
        "",
        f"Or the KIP-158 draft's spelling, rules listed in `{KIP_RULES_KEY}` (never both in one "
        "connector; the `default` group may be used with it too):",
        "",
    ]
    lines += config_keys_table(topic_creation_config_keys(rules))
    lines += [
        "",
        f"Topic configs a rule may set: Apache Kafka's {known}; {vendors}; and those the worker's "
        "`topic.creation.extra.configs` names (a broker plugin's). Any other name is refused at validation, "
        "REST create, `plan` and start-up, naming the key and the closest known name (a broker would refuse "
        "the topic's creation: INVALID_CONFIG).",
        "",
    ]
    return lines


def connector_section() -> list[str]:
    from connectworker.config.auto_restart import AUTO_RESTART_CONFIG_DEF
    from connectworker.config.connector_keys import COMMON_CONFIG_DEF
    from connectworker.config.error_handling import ERROR_HANDLING_CONFIG_DEF
    from connectworker.config.exactly_once import EXACTLY_ONCE_CONFIG_DEF
    from connectworker.config.override_policy import ADMIN_OVERRIDE_PREFIX, POLICY_KEY, PRODUCER_OVERRIDE_PREFIX
    from connectworker.config.unsupported_keys import UNIMPLEMENTED_CONNECTOR_KEYS
    from connectworker.transforms.registry import DEBEZIUM_TRANSFORMS, PREDICATES, TRANSFORMS

    ignored = ", ".join(cell_code(p + "*" if p.endswith(".") else p) for p in UNIMPLEMENTED_CONNECTOR_KEYS)
    lines = [
        "## Connector keys common to every connector",
        "",
        'A connector file (`.properties`, flat JSON, or `{"name": …, "config": {…}}` JSON), or the '
        "`config` of a REST request, takes these keys besides the connector's own.",
        "",
        "### Common",
        "",
    ]
    lines += config_keys_table(_keys(COMMON_CONFIG_DEF))
    lines += [
        "",
        f"`{PRODUCER_OVERRIDE_PREFIX}*`: producer settings of this connector's tasks, over the "
        f"worker's `producer.*`. `{ADMIN_OVERRIDE_PREFIX}*`: settings of the Admin client that creates "
        f"this connector's topics, over the worker's `admin.*` (checked when the connector has "
        f"`topic.creation.*` keys, as Kafka does). Both in librdkafka's or Kafka's keys, and only those "
        f"the worker's `{POLICY_KEY}` allows.",
        "",
        "### Transforms and predicates",
        "",
        f"`{_ALIAS}` stands for each alias listed in `transforms`, `{_PREDICATE}` for each listed in "
        "`predicates`. Every other `transforms.<alias>.<key>` configures that transform: see "
        "docs/transforms.md for the keys of each built-in.",
        "",
    ]
    lines += config_keys_table(_transform_keys())
    lines += [
        "",
        "Built-in transforms: "
        + ", ".join(cell_code(name) for name in TRANSFORMS)
        + "; Debezium's: "
        + ", ".join(cell_code(name) for name in DEBEZIUM_TRANSFORMS)
        + " (docs/transforms.md).",
        "",
        "Built-in predicates: " + ", ".join(cell_code(name) for name in PREDICATES) + ".",
        "",
        "### Error handling",
        "",
    ]
    lines += config_keys_table(_keys(ERROR_HANDLING_CONFIG_DEF))
    lines += [""]
    lines += _topic_creation_sections()
    lines += [
        "### Exactly once",
        "",
        "Used on a worker with `exactly.once.source.support=enabled`.",
        "",
        f"**The embedded broker:** {embedded_broker_caveat()}",
        "",
    ]
    lines += config_keys_table(_keys(EXACTLY_ONCE_CONFIG_DEF))
    lines += [
        "",
        "### Automatic restarts",
        "",
        "Beyond Kafka Connect, which leaves a FAILED connector or task FAILED until a REST restart: the "
        "schedule of Strimzi's operator, inside the worker. Each restart and each giving-up is logged "
        "at WARN and counted in `/metrics` (docs/metrics.md).",
        "",
    ]
    lines += config_keys_table(_keys(AUTO_RESTART_CONFIG_DEF))
    lines += [
        "",
        "### Kafka connector keys that have no effect",
        "",
        f"Accepted and named in one warning per connector: {ignored}.",
        "",
    ]
    return lines


def embedded_broker_caveat() -> str:
    """The warning a worker logs when it starts the embedded broker with exactly-once enabled, in Markdown
    (keys, values and the isolation level as code), as this page and the README show it."""
    from connectworker.config.exactly_once import EMBEDDED_BROKER_CAVEAT

    return re.sub(
        r"\b(exactly\.once\.source\.support=enabled|bootstrap\.servers(?:=embedded)?|read_committed)",
        r"`\1`",
        EMBEDDED_BROKER_CAVEAT,
    )


def _builtin_connectors() -> list[tuple[type[Any], list[str]]]:
    """Each built-in connector class, with the aliases `connector.class` accepts for it."""
    from connectworker.connectors import BUILTIN_CONNECTORS

    by_path: dict[str, list[str]] = {}
    for alias, path in BUILTIN_CONNECTORS.items():
        by_path.setdefault(path, []).append(alias)
    found = []
    for path, aliases in by_path.items():
        module, _, name = path.rpartition(".")
        found.append((getattr(importlib.import_module(module), name), [*aliases, path]))
    return found


def builtin_section() -> list[str]:
    lines = ["## Built-in connectors", ""]
    for cls, aliases in _builtin_connectors():
        summary = (inspect.getdoc(sys.modules[cls.__module__]) or "").split("\n\n")[0]
        lines += [
            f"### {aliases[0]}",
            "",
            cell_text(summary),
            "",
            "`connector.class`: " + ", ".join(cell_code(alias) for alias in aliases) + ".",
            "",
        ]
        lines += config_keys_table(_keys(cls().config_def()))
        lines += [""]
    return lines
