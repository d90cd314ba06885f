"""Declaring, parsing and validating configuration keys, in the manner of Kafka's `ConfigDef`.

A connector declares its keys once; the worker uses the declaration to parse typed values, to report
every invalid key at once, and to answer the REST validate endpoint.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from connectworker.api.errors import ConfigError


class ConfigType(StrEnum):
    BOOLEAN = "BOOLEAN"
    STRING = "STRING"
    INT = "INT"
    SHORT = "SHORT"
    LONG = "LONG"
    DOUBLE = "DOUBLE"
    LIST = "LIST"
    CLASS = "CLASS"
    PASSWORD = "PASSWORD"


class Importance(StrEnum):
    HIGH = "HIGH"
    MEDIUM = "MEDIUM"
    LOW = "LOW"


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Any = _NoDefault()
"""Marks a key as required."""

Validator = Callable[[str, Any], None]
"""Called with (key, parsed value); raises ValueError with a message saying what is allowed."""

_INT_BOUNDS = {
    ConfigType.SHORT: (-(2**15), 2**15 - 1),
    ConfigType.INT: (-(2**31), 2**31 - 1),
    ConfigType.LONG: (-(2**63), 2**63 - 1),
}


def parse_value(key: str, ctype: ConfigType, raw: Any) -> Any:
    """Parse a raw (usually string) value as `ctype`; raise ValueError naming what is allowed."""
    if raw is None:
        return None
    if ctype is ConfigType.BOOLEAN:
        if isinstance(raw, bool):
            return raw
        text = str(raw).strip().lower()
        if text in ("true", "false"):
            return text == "true"
        raise ValueError(f"Expected value to be either true or false, got {raw!r}")
    if ctype in _INT_BOUNDS:
        if isinstance(raw, bool):
            raise ValueError(f"Expected an integer, got {raw!r}")
        try:
            value = raw if isinstance(raw, int) else int(str(raw).strip())
        except ValueError:
            raise ValueError(f"Expected an integer, got {raw!r}") from None
        low, high = _INT_BOUNDS[ctype]
        if not low <= value <= high:
            raise ValueError(f"Value {value} is out of range for a {ctype.value.lower()} ({low}..{high})")
        return value
    if ctype is ConfigType.DOUBLE:
        try:
            return float(raw)
        except (TypeError, ValueError):
            raise ValueError(f"Expected a number, got {raw!r}") from None
    if ctype is ConfigType.LIST:
        if isinstance(raw, list | tuple):
            return [str(v).strip() for v in raw]
        text = str(raw).strip()
        return [] if not text else [part.strip() for part in text.split(",")]
    return str(raw).strip() if ctype is not ConfigType.PASSWORD else str(raw)


# -- validators ---------------------------------------------------------------------------------
def read_config(
    configs: Mapping[str, Any], key: str, ctype: ConfigType, default: Any, *, minimum: int | None = None
) -> Any:
    """One typed setting of `configs`, parsed as `ConfigDef` parses it (`default` when absent or blank);
    a bad value raises `ConfigError` naming `key` and what is allowed. The one place outside a
    `ConfigDef` where a raw setting becomes a typed value."""
    raw = configs.get(key)
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return default
    try:
        value = parse_value(key, ctype, raw)
    except ValueError as exc:
        raise ConfigError({key: str(exc)}) from None
    if minimum is not None and value < minimum:
        raise ConfigError({key: f"Value must be at least {minimum}, got {value}"})
    return value


def closest_name(name: str, known: Iterable[str]) -> str | None:
    """The name in `known` that `name` most likely misspells, or None: for a "did you mean" hint next to an
    unknown key. One typing slip apart (a letter added, dropped, changed, or two swapped: `ue` for `eu`),
    else difflib's similarity at least 0.8 (`retention.msec` for `retention.ms`)."""
    # difflib's ratio is 2*matches/(len(a)+len(b)), and matches <= the shorter length: a name less than 2/3
    # as long as another (or more than 3/2 as long) is never 0.8 like it, so only names of a near length
    # are compared (a slip changes the length by one at most).
    low, high = len(name) * 2 / 3, len(name) * 3 / 2
    candidates = [k for k in known if k != name and low <= len(k) <= high]
    slips = [k for k in candidates if len(name) > 1 and _one_slip_apart(name, k)]
    if slips:
        return min(slips)
    matches = difflib.get_close_matches(name, candidates, n=1, cutoff=0.8)
    return matches[0] if matches else None


def _one_slip_apart(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]
        return len(diff) == 1 or (
            len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
        )
    shorter, longer = (a, b) if len(a) < len(b) else (b, a)
    return any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))


def config_text(value: Any) -> str:
    """A typed value as a properties file (and Kafka) writes it: booleans as true/false, lists joined
    with commas."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(config_text(item) for item in value)
    return str(value)


def at_least(minimum: float) -> Validator:
    def check(key: str, value: Any) -> None:
        if value is not None and value < minimum:
            raise ValueError(f"Value must be at least {minimum}, got {value}")

    return check


def in_range(minimum: float, maximum: float) -> Validator:
    def check(key: str, value: Any) -> None:
        if value is not None and not minimum <= value <= maximum:
            raise ValueError(f"Value must be between {minimum} and {maximum}, got {value}")

    return check


def one_of(*allowed: str, case_sensitive: bool = False) -> Validator:
    def check(key: str, value: Any) -> None:
        if value is None:
            return
        hit = value in allowed if case_sensitive else str(value).lower() in {a.lower() for a in allowed}
        if not hit:
            raise ValueError(f"Value must be one of {', '.join(allowed)}; got {value!r}")

    return check


def non_empty_string(key: str, value: Any) -> None:
    if value is not None and not str(value).strip():
        raise ValueError("Value must be a non-empty string")


def non_empty_list(key: str, value: Any) -> None:
    if not value:
        raise ValueError("Empty list")


def valid_regex_list(key: str, value: Any) -> None:
    for pattern in value or []:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"Invalid regular expression {pattern!r}: {exc}") from None


@dataclass(frozen=True, slots=True)
class ConfigKey:
    name: str
    type: ConfigType
    default: Any = NO_DEFAULT
    validator: Validator | None = None
    importance: Importance = Importance.MEDIUM
    documentation: str = ""
    group: str | None = None
    order_in_group: int = -1
    width: str = "NONE"
    display_name: str | None = None
    dependents: tuple[str, ...] = ()
    recommended_values: tuple[str, ...] = ()

    @property
    def required(self) -> bool:
        return self.default is NO_DEFAULT


@dataclass(slots=True)
class ConfigValue:
    """The outcome of validating one key, shaped like Kafka's `ConfigValue`."""

    name: str
    value: Any = None
    recommended_values: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    visible: bool = True


class ConfigDef:
    """An ordered set of `ConfigKey` declarations. `define` chains."""

    def __init__(self, keys: Iterable[ConfigKey] = ()) -> None:
        self._keys: dict[str, ConfigKey] = {}
        for key in keys:
            self._add(key)

    def _add(self, key: ConfigKey) -> None:
        if key.name in self._keys:
            raise ValueError(f"Configuration {key.name!r} is defined twice")
        self._keys[key.name] = key

    def define(
        self,
        name: str,
        type: ConfigType,
        default: Any = NO_DEFAULT,
        *,
        validator: Validator | None = None,
        importance: Importance = Importance.MEDIUM,
        documentation: str = "",
        group: str | None = None,
        display_name: str | None = None,
        recommended_values: Iterable[str] = (),
    ) -> ConfigDef:
        order = sum(1 for k in self._keys.values() if k.group == group) + 1 if group else -1
        self._add(
            ConfigKey(
                name,
                type,
                default,
                validator,
                importance,
                documentation,
                group,
                order,
                display_name=display_name,
                recommended_values=tuple(recommended_values),
            )
        )
        return self

    def define_choice(
        self,
        name: str,
        default: str,
        allowed: Sequence[str],
        *,
        also: Iterable[str] = (),
        importance: Importance = Importance.MEDIUM,
        documentation: str = "",
        group: str | None = None,
    ) -> ConfigDef:
        """A string key taking one of `allowed` (ignoring case), recommended as such; `also` are accepted
        without being recommended (deprecated names)."""
        return self.define(
            name,
            ConfigType.STRING,
            default,
            validator=one_of(*allowed, *also),
            importance=importance,
            documentation=documentation,
            group=group,
            recommended_values=allowed,
        )

    def merge(self, other: ConfigDef) -> ConfigDef:
        """A new ConfigDef with this one's keys followed by `other`'s (keys of `other` may not repeat)."""
        return ConfigDef([*self._keys.values(), *other._keys.values()])

    @property
    def keys(self) -> Mapping[str, ConfigKey]:
        return self._keys

    def names(self) -> list[str]:
        return list(self._keys)

    def validate_all(self, props: Mapping[str, Any]) -> dict[str, ConfigValue]:
        """Parse and validate every declared key; never raises for a bad value."""
        results: dict[str, ConfigValue] = {}
        for key in self._keys.values():
            result = ConfigValue(key.name, recommended_values=list(key.recommended_values))
            raw = props.get(key.name, None)
            if raw is None and key.required:
                result.errors.append(f'Missing required configuration "{key.name}" which has no default value.')
            else:
                try:
                    value = parse_value(key.name, key.type, key.default if raw is None else raw)
                    if key.validator is not None:
                        key.validator(key.name, value)
                    result.value = value
                except ValueError as exc:
                    result.value = raw
                    result.errors.append(f"Invalid value {raw!r} for configuration {key.name}: {exc}")
            results[key.name] = result
        return results

    def parse(self, props: Mapping[str, Any], *, source: str | None = None) -> dict[str, Any]:
        """Typed values of every declared key; raises `ConfigError` listing every problem at once."""
        results = self.validate_all(props)
        problems = {name: "; ".join(r.errors) for name, r in results.items() if r.errors}
        if problems:
            raise ConfigError(problems, source=source)
        return {name: r.value for name, r in results.items()}


def checks_hold(
    values: dict[str, ConfigValue], across_keys: Callable[[dict[str, Any]], Mapping[str, str]] | None = None
) -> bool:
    """Whether the keys' own checks hold in `values` (a `validate` result) and the rules `across_keys`
    finds broken among the typed values (added to `values` under their keys): the steps before a
    connector's `validate` goes on to ask its system. The rules see the keys that hold (those that do not
    are absent to them), so every problem is named at once, not the rules' only once the keys are fixed."""
    if across_keys is not None:
        valid = {k: v.value for k, v in values.items() if not v.errors}
        for key, problem in across_keys(valid).items():
            values.setdefault(key, ConfigValue(key)).errors.append(problem)
    return not any(v.errors for v in values.values())


def add_problems(values: dict[str, ConfigValue], error: ConfigError) -> dict[str, ConfigValue]:
    """`values` with each problem of `error` added under its key; returned for `return add_problems(...)`."""
    for key, problem in error.problems.items():
        values.setdefault(key, ConfigValue(key)).errors.append(problem)
    return values
