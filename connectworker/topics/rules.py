"""A connector's topic creation rules as objects, and matching: which rule wins for a topic, and the
`TopicSettings` it yields. Reading the rules from `topic.creation.*` props is `rule_parser.py`'s job.

Matching follows Kafka: the listed groups are tried in order and the first whose include patterns
*fully* match the topic name, and whose exclude patterns do not, wins; otherwise the default group
applies. An exclude only skips its own group. A group without include patterns never matches. A
group's missing replication factor / partitions come from the default group (in the draft spelling
without a default group: 3 and 1); topic configs are never inherited.

Patterns are Python `re` patterns, compiled here once per rule (see `rule_parser.py` for how a
comma-separated list in the props becomes patterns).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, get_args

from connectworker.api.topic_settings import USE_BROKER_DEFAULT, TopicSettings
from connectworker.topics.config_keys import DEFAULT_GROUP

__all__ = [
    "RuleMatch",
    "Spelling",
    "TopicCreationRule",
    "TopicCreationRules",
    "compile_pattern",
]

Spelling = Literal["kafka", "kip", "none"]


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """Compile one pattern; ValueError says which pattern and why.

    OverflowError (a huge repeat count) and RecursionError (hundreds of nested groups) escape
    `re.error`, and an operator's typo must come back as a config problem, not a crash.
    """
    try:
        return re.compile(pattern)
    except (re.error, OverflowError, RecursionError) as exc:
        raise ValueError(f"Invalid regular expression {pattern!r}: {exc}") from None


@dataclass(frozen=True)
class TopicCreationRule:
    """One group (Kafka spelling) or rule (KIP draft spelling), with its inherited values resolved.

    The rule named "default" matches every topic: it is the final fallback and its include/exclude
    are not consulted, as in Kafka.
    """

    name: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    partitions: int = USE_BROKER_DEFAULT
    replication_factor: int = USE_BROKER_DEFAULT
    configs: Mapping[str, str] = field(default_factory=dict, hash=False)
    _include_patterns: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False, hash=False)
    _exclude_patterns: tuple[re.Pattern[str], ...] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError("a topic creation rule needs a non-empty name")
        include, exclude = tuple(self.include), tuple(self.exclude)
        for pattern in (*include, *exclude):
            if not isinstance(pattern, str):
                raise TypeError(f"rule {self.name!r}: patterns must be strings, got {pattern!r}")
        configs = dict(self.configs)
        for name, value in configs.items():
            if not isinstance(name, str) or not isinstance(value, str):
                raise TypeError(f"rule {self.name!r}: topic configs must map str to str, got {name!r}: {value!r}")
        # Validate counts and configs with the very code `match` will run, so that a rule that was
        # built can always produce its TopicSettings.
        TopicSettings(self.name, self.partitions, self.replication_factor, configs)
        object.__setattr__(self, "include", include)
        object.__setattr__(self, "exclude", exclude)
        object.__setattr__(self, "configs", MappingProxyType(configs))
        object.__setattr__(self, "_include_patterns", tuple(compile_pattern(p) for p in include))
        object.__setattr__(self, "_exclude_patterns", tuple(compile_pattern(p) for p in exclude))

    def __reduce__(self) -> tuple[type[TopicCreationRule], tuple[object, ...]]:
        """Pickled by its fields (a task process receives its connector's rules): the read-only view
        of `configs` and the compiled patterns are rebuilt on the other side."""
        return (
            TopicCreationRule,
            (self.name, self.include, self.exclude, self.partitions, self.replication_factor, dict(self.configs)),
        )

    @property
    def is_default(self) -> bool:
        return self.name == DEFAULT_GROUP

    def matches(self, topic: str) -> bool:
        """True when an include pattern fully matches `topic` and no exclude pattern does."""
        if self.is_default:
            return True
        if any(p.fullmatch(topic) for p in self._exclude_patterns):
            return False
        return any(p.fullmatch(topic) for p in self._include_patterns)

    def settings_for(self, topic: str) -> TopicSettings:
        """A new `TopicSettings` for `topic` with this rule's values; the caller may change it freely."""
        return TopicSettings(topic, self.partitions, self.replication_factor, dict(self.configs))


@dataclass(frozen=True)
class RuleMatch:
    """The rule that won for one topic and the settings it yields (a fresh object per `match`)."""

    rule: str
    settings: TopicSettings = field(hash=False)


class TopicCreationRules:
    """A connector's topic creation rules in match order, the default group (if any) last."""

    __slots__ = ("_rules", "_spelling", "_warnings")

    def __init__(
        self, rules: Iterable[TopicCreationRule] = (), *, spelling: Spelling = "none", warnings: Iterable[str] = ()
    ) -> None:
        rules = tuple(rules)
        if spelling not in get_args(Spelling):
            raise ValueError(f"spelling must be one of {get_args(Spelling)}, got {spelling!r}")
        names = [rule.name for rule in rules]
        if len(set(names)) != len(names):
            raise ValueError(f"rule names must be unique, got {names}")
        if DEFAULT_GROUP in names[:-1]:
            raise ValueError("the default group must come last")
        if spelling == "kafka" and (not names or names[-1] != DEFAULT_GROUP):
            raise ValueError("Kafka's spelling always has a default group")
        if spelling == "none" and rules:
            raise ValueError("rules given but the spelling is 'none'")
        self._rules = rules
        self._spelling: Spelling = spelling
        self._warnings = list(warnings)

    @property
    def configured(self) -> bool:
        """True when the connector opted in: a default group is defined, or draft rules are listed."""
        return bool(self._rules)

    @property
    def spelling(self) -> Spelling:
        """ "kafka" (topic.creation.groups / default group), "kip" (topic.creation=...) or "none"."""
        return self._spelling

    @property
    def rules(self) -> tuple[TopicCreationRule, ...]:
        return self._rules

    @property
    def default(self) -> TopicCreationRule | None:
        """The default group, or None (possible only in the draft's spelling, or when not configured)."""
        return self._rules[-1] if self._rules and self._rules[-1].is_default else None

    def match(self, topic: str) -> RuleMatch | None:
        """The first rule matching `topic` and new settings for it; None means "do not create".

        The topic name itself is not validated here (see `connectworker.topics.names`); an empty
        name raises ValueError from `TopicSettings`.
        """
        for rule in self._rules:
            if rule.matches(topic):
                return RuleMatch(rule.name, rule.settings_for(topic))
        return None

    def warnings(self) -> list[str]:
        """What was ignored or looks wrong without being an error (a copy)."""
        return list(self._warnings)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TopicCreationRules):
            return NotImplemented
        return (self._rules, self._spelling) == (other._rules, other._spelling)

    # No __hash__: a class that defines __eq__ alone gets __hash__ = None, so rules stay unhashable.

    def __repr__(self) -> str:
        return f"TopicCreationRules(spelling={self._spelling!r}, rules={list(self._rules)!r})"
