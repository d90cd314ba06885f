"""Kafka's built-in predicates (KIP-585): `TopicNameMatches`, `HasHeaderKey` and `RecordIsTombstone`.

A predicate makes a transform conditional (`transforms.<alias>.predicate=<name>`); these are the three
Kafka ships, with Kafka's keys and validation:

- `TopicNameMatches`: `pattern` (required, non-empty, a `java.util.regex` expression, read as
  `RegexRouter` reads one); true when the pattern matches the *whole* topic, as Java's `matches()` does.
- `HasHeaderKey`: `name` (required, non-empty); true when at least one header has that name.
- `RecordIsTombstone`: no keys; true when the record's value is null (whatever its key or schema).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, non_empty_string
from connectworker.api.record import SourceRecord
from connectworker.api.transform import Predicate
from connectworker.transforms.regex_router import compile_java_regex

__all__ = ["HasHeaderKey", "RecordIsTombstone", "TopicNameMatches"]

PATTERN_CONFIG = "pattern"
NAME_CONFIG = "name"


def _non_empty_java_regex(key: str, value: Any) -> None:
    """Kafka checks non-emptiness first, then the regex; its message says "Invalid regex: ..."."""
    non_empty_string(key, value)
    if value is not None:
        compile_java_regex(value)


class TopicNameMatches(Predicate):
    """True for records whose topic the configured regular expression matches in full."""

    def __init__(self) -> None:
        self._pattern: re.Pattern[str] | None = None

    def config_def(self) -> ConfigDef:
        return ConfigDef().define(
            PATTERN_CONFIG,
            ConfigType.STRING,
            validator=_non_empty_java_regex,
            importance=Importance.MEDIUM,
            documentation="A Java regular expression for matching against the name of a record's topic.",
        )

    def configure(self, props: Mapping[str, str]) -> None:
        self._pattern = compile_java_regex(self.config_def().parse(props)[PATTERN_CONFIG])

    def test(self, record: SourceRecord) -> bool:
        if self._pattern is None:
            raise RuntimeError("TopicNameMatches used before configure()")
        return self._pattern.fullmatch(record.topic) is not None

    def __repr__(self) -> str:
        return f"TopicNameMatches(pattern={None if self._pattern is None else self._pattern.pattern!r})"


class HasHeaderKey(Predicate):
    """True for records with at least one header of the configured name."""

    def __init__(self) -> None:
        self._name = ""

    def config_def(self) -> ConfigDef:
        return ConfigDef().define(
            NAME_CONFIG,
            ConfigType.STRING,
            validator=non_empty_string,
            importance=Importance.MEDIUM,
            documentation="The header name.",
        )

    def configure(self, props: Mapping[str, str]) -> None:
        self._name = self.config_def().parse(props)[NAME_CONFIG]

    def test(self, record: SourceRecord) -> bool:
        return any(key == self._name for key, _ in record.headers)

    def __repr__(self) -> str:
        return f"HasHeaderKey(name={self._name!r})"


class RecordIsTombstone(Predicate):
    """True for tombstones: records whose value is null."""

    def configure(self, props: Mapping[str, str]) -> None:
        self.config_def().parse(props)  # no keys; kept so that every predicate validates the same way

    def test(self, record: SourceRecord) -> bool:
        return record.value is None

    def __repr__(self) -> str:
        return "RecordIsTombstone()"
