"""The configuration reference, docs/configuration.md, generated from the declarations themselves.

    .venv/bin/python -m connectworker.config.reference > docs/configuration.md

Worker keys come from `WorkerConfig`'s fields (name, type, default, constraints, description), so a
field added there shows up here without further work; connector keys come from the `ConfigDef`s the
worker validates with (the common keys, error handling, exactly once), from the topic-creation and
transforms readers (fed a sample config with placeholder names, since their keys depend on the names
a connector chooses), and from each built-in connector's `config_def()`.
`tests/unit/test_configuration_reference.py` fails while the file differs from this output.

`ENVIRONMENT_RULE` and `REFERENCE_DOC` are also shown by `connectworker --help`. The connector side is
imported only when the page is rendered, so that the command line does not load every connector and
transform to print its help.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
import sys
import types
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from connectworker.api.config_def import (
    NO_DEFAULT,
    ConfigDef,
    ConfigKey,
    at_least,
    config_text,
    in_range,
    non_empty_string,
    one_of,
    valid_regex_list,
)
from connectworker.config.worker_config import INTERNAL_FIELDS, PASS_THROUGH_PREFIXES, WorkerConfig, worker_key
from connectworker.config.worker_env import ENV_PREFIX

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

__all__ = [
    "ENVIRONMENT_RULE",
    "PREFIX_NOTES",
    "REFERENCE_DOC",
    "REGENERATE",
    "allowed_values",
    "config_keys_table",
    "embedded_broker_caveat",
    "main",
    "render",
    "worker_keys_table",
]

REFERENCE_DOC = "docs/configuration.md"
REGENERATE = f".venv/bin/python -m connectworker.config.reference > {REFERENCE_DOC}"

ENVIRONMENT_RULE = f"""\
environment:
  Every worker key can be set by a variable: {ENV_PREFIX} + the key upper-cased, with '.' written '_'
  (as in Confluent's images, a '_' of the key is written '__' and a '-' is written '___'):
    {ENV_PREFIX}BOOTSTRAP_SERVERS=broker:9092             sets bootstrap.servers
    {ENV_PREFIX}OFFSET_FLUSH_INTERVAL_MS=10000            sets offset.flush.interval.ms
    {ENV_PREFIX}PRODUCER_LINGER_MS=5                      sets producer.linger.ms
    {ENV_PREFIX}VALUE_CONVERTER_SCHEMAS_ENABLE=false      sets value.converter.schemas.enable
  Names match in any case. Precedence: the variable, then the worker file, then the default. A bad
  value is reported against its variable (exit status 2); a {ENV_PREFIX}* variable that sets no key is
  reported with a warning. Connector files are read as written: no variable changes them."""
"""The `CONNECT_*` rule (connectworker.config.worker_env), as `--help` and the reference state it."""

# What the keys under each pass-through prefix of the worker configure. A prefix missing here is
# still listed (tests/unit/test_configuration_reference.py asks for a note).
PREFIX_NOTES: dict[str, str] = {
    "topic.creation.policy.": "settings of the create-topic policy named by `topic.creation.policy.class`, "
    "handed to its `configure()` without the prefix; the built-in "
    "`connectworker.topics.policy.LimitsPolicy` takes `max.partitions`, "
    "`min.replication.factor`, `max.replication.factor`, `required.configs`, "
    "`allowed.cleanup.policies`, `name.pattern`, `max.retention.ms` "
    "(docs/topic-creation.md).",
    "producer.": "settings of every task's producer (confluent-kafka's librdkafka keys, or Kafka's security keys, "
    "translated), e.g. `producer.linger.ms`, `producer.sasl.jaas.config`; they win over the top-level "
    "`security.protocol`, `ssl.*`, `sasl.*`, and a connector's `producer.override.*` wins over them.",
    "admin.": "settings of the worker's Admin clients (the start-up check, topic creation) and of the offsets "
    "topic's clients, as `producer.*`, e.g. `admin.security.protocol`; a connector's `admin.override.*` "
    "wins over them for its topic creation.",
    "ssl.": "TLS of every client the worker makes, in Kafka's keys (`ssl.truststore.location`, "
    "`ssl.truststore.type` PEM or PKCS12, `ssl.keystore.*`, `ssl.endpoint.identification.algorithm`; a "
    "JKS store is refused with how to convert it) or librdkafka's (`ssl.ca.location`, …); Java-only keys "
    "such as `ssl.keymanager.algorithm` are ignored with a warning (docs/security.md).",
    "sasl.": "SASL of every client the worker makes: `sasl.mechanism`, and `sasl.jaas.config` in Java's syntax "
    "(PLAIN, SCRAM, OAUTHBEARER and Kerberos login modules are translated) or librdkafka's "
    "`sasl.username`/`sasl.password`; Java-only keys such as `sasl.login.class` are ignored with a "
    "warning (docs/security.md).",
    "key.converter.": "settings of the worker's key converter, e.g. `key.converter.schemas.enable`, "
    "`key.converter.schema.registry.url`.",
    "value.converter.": "settings of the worker's value converter, e.g. `value.converter.schemas.enable`.",
    "header.converter.": "settings of the worker's header converter, e.g. `header.converter.schemas.enable` "
    "for JsonConverter.",
    "listeners.https.": "TLS of an `https://` listener, PEM files: `ssl.certfile`, `ssl.keyfile`, "
    "`ssl.key.password`, `ssl.client.authentication` (`none`, `requested`, `required`), "
    "`ssl.cafile` (see docs/rest.md).",
    "config.providers.": "each provider named by `config.providers`: `config.providers.<name>.class` (Kafka's "
    "class name or alias, or a Python path) and `config.providers.<name>.param.<key>`, handed "
    "to its `configure()` without the prefix, e.g. `config.providers.file.param.allowed.paths` "
    "or `config.providers.env.param.allowlist.pattern` (docs/configuration-providers.md).",
    "spark.conf.": "any Spark setting for `connectworker spark`, e.g. `spark.conf.spark.executor.memory=4g` "
    "(see docs/spark.md).",
}

# Placeholders in the sample configs fed to the readers whose keys depend on names a connector chooses.
_ALIAS, _PREDICATE, _GROUP, _RULE, _CONFIG = "<alias>", "<predicate>", "<group>", "<rule>", "<config>"


# -- cells -----------------------------------------------------------------------------------------
_CODE_SPAN = re.compile(r"(`[^`]*`)")


def _text(text: str) -> str:
    """Prose for a table cell: one line, Markdown's special characters escaped outside code spans."""
    parts = _CODE_SPAN.split(" ".join(text.split()))
    escaped = [
        part if part.startswith("`") else part.replace("*", r"\*").replace("<", "&lt;").replace(">", "&gt;")
        for part in parts
    ]
    return "".join(escaped).replace("|", r"\|")


def _code(value: object) -> str:
    text = str(value)
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}".replace("|", r"\|")


def _default(value: Any) -> str:
    if value is NO_DEFAULT or value is PydanticUndefined:
        return "*required*"
    if value is None:
        return "*none*"
    text = config_text(value)
    return _code(text) if text else '`""`'


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


# -- worker keys -----------------------------------------------------------------------------------
def _python_type(annotation: Any) -> tuple[str, list[str]]:
    """Kafka's type name for a field's annotation, and the values a Literal allows."""
    origin = get_origin(annotation)
    if origin is Literal:
        return "string", [str(arg) for arg in get_args(annotation)]
    if origin in (Union, types.UnionType):
        options = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(options) == 1:
            return _python_type(options[0])
    if origin is list or annotation is list:
        return "list", []
    names: dict[Any, str] = {bool: "boolean", int: "int", float: "double", str: "string"}
    return names.get(annotation, str(annotation)), []


def _constraints(metadata: Iterable[Any]) -> str:
    """pydantic's constraints (annotated_types.Ge, Le, MinLen, ...) as allowed values."""
    bounds: dict[str, Any] = {}
    for item in metadata:
        for name in ("ge", "gt", "le", "lt", "min_length", "max_length"):
            if getattr(item, name, None) is not None:
                bounds[name] = getattr(item, name)
    parts = []
    if "ge" in bounds and "le" in bounds:
        parts.append(f"{bounds.pop('ge')}..{bounds.pop('le')}")
    symbols = {"ge": "≥", "gt": ">", "le": "≤", "lt": "<"}
    parts += [f"{symbols[name]} {bound}" for name, bound in bounds.items() if name in symbols]
    if bounds.get("min_length") == 1:
        parts.append("non-empty")
    elif "min_length" in bounds:
        parts.append(f"at least {bounds['min_length']} characters")
    if "max_length" in bounds:
        parts.append(f"at most {bounds['max_length']} characters")
    return ", ".join(parts)


def _worker_default(info: FieldInfo) -> Any:
    return info.get_default(call_default_factory=True)


def worker_keys_table(model: type[BaseModel] = WorkerConfig) -> list[str]:
    """One row per declared worker key of `model`, in declaration order."""
    rows = []
    for field, info in model.model_fields.items():
        if field in INTERNAL_FIELDS:
            continue
        type_name, literals = _python_type(info.annotation)
        allowed = ", ".join(_code(v) for v in literals) if literals else _constraints(info.metadata)
        rows.append(
            [
                _code(worker_key(field)),
                type_name,
                _default(_worker_default(info)),
                allowed,
                _code(ENV_PREFIX + field.upper()),
                _text(info.description or ""),
            ]
        )
    return _table(["key", "type", "default", "allowed values", "environment variable", "description"], rows)


def _worker_section() -> list[str]:
    from connectworker.config.unsupported_keys import OBSOLETE_WORKER_KEYS, UNIMPLEMENTED_WORKER_KEYS

    lines = [
        "## Worker keys",
        "",
        "The worker file (`connectworker standalone WORKER.properties …`, `connectworker spark "
        "WORKER.properties …`, `connectworker plan … --worker WORKER.properties`) takes Kafka Connect's "
        "worker keys. Declared keys:",
        "",
    ]
    lines += worker_keys_table()
    lines += [
        "",
        "### Keys passed through",
        "",
        "Every key under these prefixes is handed on, the prefix removed, to what it configures:",
        "",
    ]
    lines += _table(
        ["prefix", "configures"],
        ([_code(prefix + "*"), _text(PREFIX_NOTES.get(prefix, ""))] for prefix in PASS_THROUGH_PREFIXES),
    )
    lines += [
        "",
        "### The environment",
        "",
        "```text",
        ENVIRONMENT_RULE,
        "```",
        "",
        "### Kafka worker keys that have no effect",
        "",
        "Accepted, so that a Kafka worker file carries over, and reported in one warning line "
        "(a key that neither Kafka nor connectworker knows is reported on its own line, as a likely "
        "typo):",
        "",
    ]
    rows = [
        [_code(pattern + "*" if pattern.endswith(".") else pattern), _text(note)]
        for pattern, note in UNIMPLEMENTED_WORKER_KEYS.items()
    ]
    lines += _table(["key", "instead"], rows)
    obsolete = ", ".join(_code(key) for key in OBSOLETE_WORKER_KEYS)
    lines += ["", f"{obsolete}: used by no current Kafka either, accepted without a word.", ""]
    return lines


# -- connector keys --------------------------------------------------------------------------------
def _validator_factories() -> dict[types.CodeType, Callable[[dict[str, Any]], str]]:
    """The closures `at_least`, `in_range` and `one_of` return share a code object per factory; their
    arguments are read back from the closure."""
    return {
        at_least(0).__code__: lambda v: f"≥ {v['minimum']}",
        in_range(0, 1).__code__: lambda v: f"{v['minimum']}..{v['maximum']}",
        one_of("").__code__: lambda v: ", ".join(_code(a) for a in v["allowed"]),
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
    return ", ".join(_code(v) for v in key.recommended_values)


def _key_row(key: ConfigKey, default: str | None = None) -> list[str]:
    return [
        _code(key.name),
        key.type.value.lower(),
        default or _default(key.default),
        allowed_values(key),
        _text(key.documentation),
    ]


def config_keys_table(keys: Iterable[ConfigKey], defaults: dict[str, str] | None = None) -> list[str]:
    return _table(
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
    known = ", ".join(_code(name) for name in sorted(KNOWN_TOPIC_CONFIGS))
    vendors = ", ".join(_code(prefix + "*") for prefix in VENDOR_TOPIC_CONFIG_PREFIXES)
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
        f"Topic configs Kafka knows: {known}. Others (except {vendors}) are sent to the broker "
        "as well, with a warning naming them as a likely typo.",
        "",
    ]
    return lines


def _connector_section() -> list[str]:
    from connectworker.config.auto_restart import AUTO_RESTART_CONFIG_DEF
    from connectworker.config.connector_config import COMMON_CONFIG_DEF
    from connectworker.config.error_handling import ERROR_HANDLING_CONFIG_DEF
    from connectworker.config.exactly_once import EXACTLY_ONCE_CONFIG_DEF
    from connectworker.config.override_policy import ADMIN_OVERRIDE_PREFIX, POLICY_KEY, PRODUCER_OVERRIDE_PREFIX
    from connectworker.config.unsupported_keys import UNIMPLEMENTED_CONNECTOR_KEYS
    from connectworker.transforms.registry import PREDICATES, TRANSFORMS

    ignored = ", ".join(_code(p + "*" if p.endswith(".") else p) for p in UNIMPLEMENTED_CONNECTOR_KEYS)
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
        "Built-in transforms: " + ", ".join(_code(name) for name in TRANSFORMS) + ".",
        "",
        "Built-in predicates: " + ", ".join(_code(name) for name in PREDICATES) + ".",
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


def _builtin_section() -> list[str]:
    lines = ["## Built-in connectors", ""]
    for cls, aliases in _builtin_connectors():
        summary = (inspect.getdoc(sys.modules[cls.__module__]) or "").split("\n\n")[0]
        lines += [
            f"### {aliases[0]}",
            "",
            _text(summary),
            "",
            "`connector.class`: " + ", ".join(_code(alias) for alias in aliases) + ".",
            "",
        ]
        lines += config_keys_table(_keys(cls().config_def()))
        lines += [""]
    return lines


def render() -> str:
    """The whole of docs/configuration.md."""
    lines = [
        "<!-- Generated from the configuration declarations; do not edit. Regenerate with:",
        f"     {REGENERATE}",
        "     (tests/unit/test_configuration_reference.py fails while this file is stale) -->",
        "",
        "# Configuration reference",
        "",
        "Every key the worker and the built-in connectors take, with its type, default, allowed values "
        "and meaning, generated from the declarations the worker validates with. `connectworker --help` "
        "shows how to run a worker; README.md tells the story behind the keys.",
        "",
    ]
    lines += _worker_section()
    lines += _connector_section()
    lines += _builtin_section()
    while lines[-1] == "":
        lines.pop()
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m connectworker.config.reference",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=f"Print the configuration reference ({REFERENCE_DOC}), generated from the configuration "
        f"declarations.\n\n  {REGENERATE}",
    )
    parser.parse_args(argv)
    sys.stdout.write(render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
