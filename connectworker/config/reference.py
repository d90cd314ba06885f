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
import sys
import types
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from connectworker.config.reference_connectors import (
    allowed_values,
    builtin_section,
    config_keys_table,
    connector_section,
    embedded_broker_caveat,
)
from connectworker.config.reference_markdown import cell_code, cell_default, cell_text, table
from connectworker.config.worker_config import INTERNAL_FIELDS, PASS_THROUGH_PREFIXES, WorkerConfig
from connectworker.config.worker_env import ENV_PREFIX, worker_key

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
        allowed = ", ".join(cell_code(v) for v in literals) if literals else _constraints(info.metadata)
        rows.append(
            [
                cell_code(worker_key(field)),
                type_name,
                cell_default(_worker_default(info)),
                allowed,
                cell_code(ENV_PREFIX + field.upper()),
                cell_text(info.description or ""),
            ]
        )
    return table(["key", "type", "default", "allowed values", "environment variable", "description"], rows)


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
    lines += table(
        ["prefix", "configures"],
        ([cell_code(prefix + "*"), cell_text(PREFIX_NOTES.get(prefix, ""))] for prefix in PASS_THROUGH_PREFIXES),
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
        [cell_code(pattern + "*" if pattern.endswith(".") else pattern), cell_text(note)]
        for pattern, note in UNIMPLEMENTED_WORKER_KEYS.items()
    ]
    lines += table(["key", "instead"], rows)
    obsolete = ", ".join(cell_code(key) for key in OBSOLETE_WORKER_KEYS)
    lines += ["", f"{obsolete}: used by no current Kafka either, accepted without a word.", ""]
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
    lines += connector_section()
    lines += builtin_section()
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
