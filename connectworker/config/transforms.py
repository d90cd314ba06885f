"""A connector's `transforms*` and `predicates*` keys, read and validated as Kafka does (KIP-66, KIP-585).

    transforms=route,drop
    transforms.route.type=org.apache.kafka.connect.transforms.RegexRouter
    transforms.route.regex=(.*)
    transforms.route.replacement=copy-$1
    transforms.drop.type=Filter
    transforms.drop.predicate=tombstones
    predicates=tombstones
    predicates.tombstones.type=org.apache.kafka.connect.transforms.predicates.RecordIsTombstone

A `type` is Kafka's class name of a built-in (or its short form after the package), or the Python
path `module.Class` of a `Transformation` (a `Predicate` for predicates). Each transform's own keys
are validated by its `config_def()`; every problem is reported under its full key, all at once, and
every key gets a declaration, so the REST validate endpoint can show them in Kafka's "Transforms" and
"Predicates" groups.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from connectworker.api.config_def import (
    NO_DEFAULT,
    ConfigDef,
    ConfigKey,
    ConfigType,
    ConfigValue,
    Importance,
    config_text,
)
from connectworker.api.errors import ConfigError
from connectworker.api.transform import Predicate, Transformation
from connectworker.transforms.registry import builtin_predicate, builtin_transformation

__all__ = ["PredicateSpec", "TransformSpec", "TransformsConfig", "TransformsReport", "read_transforms"]

TRANSFORMS_KEY = "transforms"
PREDICATES_KEY = "predicates"
TRANSFORMS_GROUP = "Transforms"
PREDICATES_GROUP = "Predicates"
_RESERVED = ("type", "predicate", "negate")  # a transform's keys that are the worker's, not the transform's


@dataclass(frozen=True)
class PredicateSpec:
    alias: str
    cls: type[Predicate]
    props: dict[str, str]


@dataclass(frozen=True)
class TransformSpec:
    alias: str
    cls: type[Transformation]
    props: dict[str, str]
    predicate: str | None = None
    negate: bool = False


@dataclass(frozen=True)
class TransformsConfig:
    """The chain a connector configures, in order; empty when it names no transform."""

    transforms: tuple[TransformSpec, ...] = ()
    predicates: dict[str, PredicateSpec] = field(default_factory=dict)


@dataclass
class TransformsReport:
    """Every `transforms*`/`predicates*` key's declaration and outcome, and the chain if it is valid."""

    reports: dict[str, tuple[ConfigKey, ConfigValue]]
    config: TransformsConfig | None

    @property
    def problems(self) -> dict[str, list[str]]:
        return {key: value.errors for key, (_, value) in self.reports.items() if value.errors}


def _aliases(raw: Any) -> list[str]:
    text = config_text(raw).strip() if raw is not None else ""
    return [a.strip() for a in text.split(",")] if text else []


def _load(name: str, base: type, kind: str) -> type:
    """A class by Python path `module.Class` that subclasses `base`; ValueError saying why not."""
    module, _, cls_name = name.rpartition(".")
    if not module:
        raise ValueError(
            f"Class {name} could not be found: not a built-in {kind} (Kafka's class name, e.g. "
            f"org.apache.kafka.connect.transforms.RegexRouter) nor a Python path module.Class"
        )
    try:
        found = getattr(importlib.import_module(module), cls_name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"Class {name} could not be found: {exc}") from None
    if not (isinstance(found, type) and issubclass(found, base)):
        raise ValueError(f"Class {name} is not a {base.__name__} (connectworker.api.{base.__name__})")
    return found


def _full_key(message: str, key: str, full: str) -> str:
    """A `ConfigDef` message about a plugin's own `key`, naming the key as the connector spells it."""
    return message.replace(f'configuration "{key}"', f'configuration "{full}"').replace(
        f"configuration {key}:", f"configuration {full}:"
    )


class _Reader:
    def __init__(self, props: Mapping[str, str]) -> None:
        self.props = props
        self.reports: dict[str, tuple[ConfigKey, ConfigValue]] = {}

    def report(
        self,
        key: str,
        group: str,
        doc: str,
        *,
        ctype: ConfigType = ConfigType.STRING,
        required: bool = False,
        default: Any = None,
        error: str | None = None,
    ) -> None:
        definition = ConfigKey(
            key,
            ctype,
            NO_DEFAULT if required else default,
            importance=Importance.HIGH if required else Importance.LOW,
            documentation=doc,
            group=group,
        )
        entry = self.reports.get(key)
        if entry is None:
            entry = self.reports[key] = (definition, ConfigValue(key, self.props.get(key)))
        if error is not None:
            entry[1].errors.append(error)

    def aliases(self, key: str, group: str, what: str) -> list[str]:
        names = _aliases(self.props.get(key))
        self.report(key, group, f"Aliases for the {what} to be applied, in order.", ctype=ConfigType.LIST, default="")
        problem = (
            "an alias is empty"
            if "" in names
            else "Duplicate alias provided."
            if len(set(names)) != len(names)
            else None
        )
        if problem is not None:
            self.report(key, group, "", error=f"Invalid value {self.props.get(key)} for configuration {key}: {problem}")
        return list(dict.fromkeys(n for n in names if n))

    def plugin(
        self, prefix: str, alias: str, group: str, kind: str, base: type, builtin: Any
    ) -> tuple[type | None, dict[str, str]]:
        """The class of `<prefix>.<alias>.type` and its own keys, validated by its config_def."""
        type_key = f"{prefix}.{alias}.type"
        self.report(type_key, group, f"Class for the '{alias}' {kind}.", ctype=ConfigType.CLASS, required=True)
        name = (self.props.get(type_key) or "").strip()
        own_prefix = f"{prefix}.{alias}."
        own = {
            k[len(own_prefix) :]: v
            for k, v in self.props.items()
            if k.startswith(own_prefix) and k[len(own_prefix) :] not in _RESERVED
        }
        if not name:
            self.report(
                type_key, group, "", error=f'Missing required configuration "{type_key}" which has no default value.'
            )
            return None, own
        try:
            builtin_cls = builtin(name)
            cls = builtin_cls or _load(name, base, kind)
            definition: ConfigDef = cls().config_def()
        except ValueError as exc:
            self.report(type_key, group, "", error=f"Invalid value {name} for configuration {type_key}: {exc}")
            return None, own
        except Exception as exc:  # a plugin whose constructor or config_def raises
            self.report(
                type_key,
                group,
                "",
                error=f"Invalid value {name} for configuration {type_key}: the class "
                f"cannot be used: {type(exc).__name__}: {exc}",
            )
            return None, own
        for key, value in definition.validate_all(own).items():
            full = own_prefix + key
            declared = definition.keys[key]
            self.reports[full] = (
                ConfigKey(
                    full,
                    declared.type,
                    declared.default,
                    importance=declared.importance,
                    documentation=declared.documentation,
                    group=group,
                ),
                ConfigValue(full, value.value, errors=[_full_key(e, key, full) for e in value.errors]),
            )
        if builtin_cls is not None and not any(self.reports[own_prefix + k][1].errors for k in definition.keys):
            self._configure(builtin_cls, own, own_prefix, type_key, group)
        return cls, own

    def _configure(self, cls: type, own: dict[str, str], own_prefix: str, type_key: str, group: str) -> None:
        """Configure a built-in once, so checks across its keys (e.g. `static.field` without
        `static.value`) are reported at validation, not when a task starts. Built-ins have no side effects;
        a custom class is only validated by its `config_def()`."""
        instance = cls()
        try:
            instance.configure(own)
        except ConfigError as exc:
            for key, message in exc.problems.items():
                full = own_prefix + key if key else type_key
                if full not in self.reports:
                    self.report(full, group, "")
                self.reports[full][1].errors.append(_full_key(message, key, full) if key else message)
        except Exception as exc:
            self.report(type_key, group, "", error=f"{type(exc).__name__}: {exc}")
        finally:
            instance.close()


def read_transforms(props: Mapping[str, str]) -> TransformsReport:
    """Read and validate the chain; never raises. `config` is None when any key has a problem."""
    reader = _Reader(props)
    predicate_aliases = [a for a in dict.fromkeys(_aliases(props.get(PREDICATES_KEY))) if a]
    transforms: list[TransformSpec] = []
    for alias in reader.aliases(TRANSFORMS_KEY, TRANSFORMS_GROUP, "transformations"):
        cls, own = reader.plugin(
            TRANSFORMS_KEY, alias, TRANSFORMS_GROUP, "transformation", Transformation, builtin_transformation
        )
        predicate_key, negate_key = f"{TRANSFORMS_KEY}.{alias}.predicate", f"{TRANSFORMS_KEY}.{alias}.negate"
        predicate = (props.get(predicate_key) or "").strip() or None
        negate_raw = (props.get(negate_key) or "false").strip().lower()
        if predicate is not None or negate_key in props:
            reader.report(
                predicate_key, TRANSFORMS_GROUP, f"The alias of a predicate the '{alias}' transform applies under."
            )
            reader.report(
                negate_key,
                TRANSFORMS_GROUP,
                "Apply the transform where the predicate does not hold.",
                ctype=ConfigType.BOOLEAN,
                default=False,
            )
        if predicate is not None and predicate not in predicate_aliases:
            listed = ", ".join(predicate_aliases) or "none"
            reader.report(
                predicate_key,
                TRANSFORMS_GROUP,
                "",
                error=(
                    f"Invalid value {predicate} for configuration {predicate_key}: the predicate is not defined "
                    f"(add it to {PREDICATES_KEY}, which lists: {listed})"
                ),
            )
        if negate_raw not in ("true", "false"):
            reader.report(
                negate_key,
                TRANSFORMS_GROUP,
                "",
                error=(
                    f"Invalid value {props.get(negate_key)} for configuration {negate_key}: Expected value to be "
                    "either true or false"
                ),
            )
        elif negate_raw == "true" and predicate is None:
            reader.report(
                negate_key,
                TRANSFORMS_GROUP,
                "",
                error=(
                    f"Invalid value true for configuration {negate_key}: negate needs "
                    f"{predicate_key}, naming the predicate to negate"
                ),
            )
        if cls is not None:
            transforms.append(TransformSpec(alias, cls, own, predicate, negate_raw == "true"))
    predicates: dict[str, PredicateSpec] = {}  # reported after the transforms, as Kafka groups them
    for alias in reader.aliases(PREDICATES_KEY, PREDICATES_GROUP, "predicates"):
        cls, own = reader.plugin(PREDICATES_KEY, alias, PREDICATES_GROUP, "predicate", Predicate, builtin_predicate)
        if cls is not None:
            predicates[alias] = PredicateSpec(alias, cls, own)
    report = TransformsReport(reader.reports, None)
    if not report.problems:
        report.config = TransformsConfig(tuple(transforms), predicates)
    return report
