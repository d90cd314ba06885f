"""Reading and validating a source connector's `topic.creation.*` props into `TopicCreationRules`.

Two spellings are accepted, never both in one connector config:

* Kafka's shipped one (KIP-158 as released)::

      topic.creation.groups=compacted,logs
      topic.creation.default.replication.factor=3     # required once any topic.creation.* key is set
      topic.creation.default.partitions=1             # required likewise
      topic.creation.compacted.include=state\\..*,config-.*
      topic.creation.compacted.exclude=state\\.tmp.*
      topic.creation.compacted.cleanup.policy=compact # any other suffix is a topic config

* The KIP draft's ordered regex rules, one pattern per rule::

      topic.creation=firstRule,defaultRule
      topic.creation.firstRule.regex=MyPrefix.*
      topic.creation.firstRule.partitions=5

How the rules match a topic is described in `rules.py`.

Patterns are Python `re` patterns, not Java regexes: the common syntax is the same, but Java-only
constructs such as `\\p{Lower}` classes or `\\Q...\\E` quoting are rejected by Python. Each pattern of a
list is matched on its own, which equals Kafka's full match of the patterns joined with "|" except
that numbered back-references and inline flags keep meaning what they mean in their own pattern
(Kafka's join renumbers groups, and Python rejects a mid-pattern global flag). As in Kafka, lists are
split on commas, so a pattern in an include/exclude list cannot contain a comma: a split `{m,n}`
quantifier is reported as an error (write `a{1,3}` as `aa?a?`). A draft-spelling `.regex` is one
pattern and is not split.

`read_topic_creation` reads the keys once: every problem at once, each under the exact key it concerns
(so the REST validate endpoint can show them), every key's definition, and the rules when there is no
problem; `parse_topic_creation` raises the same problems as a `ConfigError`. Warnings (ignored keys
and the like) are returned, never logged here: the caller decides where they go.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from connectworker.api.config_def import NO_DEFAULT, ConfigKey, ConfigType, closest_name, config_text
from connectworker.api.errors import ConfigError
from connectworker.topics.config_keys import (
    DEFAULT_GROUP,
    EXCLUDE,
    GROUPS_KEY,
    INCLUDE,
    KIP_DEFAULT_PARTITIONS,
    KIP_DEFAULT_REPLICATION_FACTOR,
    KIP_RULES_KEY,
    PARTITIONS,
    REGEX,
    REPLICATION_FACTOR,
    TOPIC_CREATION_PREFIX,
    WORKER_KEYS,
    group_key,
)
from connectworker.topics.group_settings import Entries, GroupSettingsReader, GroupSpec
from connectworker.topics.rule_values import (
    DUPLICATE_ALIAS_MESSAGE,
    PARTITIONS_MESSAGE,
    REPLICATION_FACTOR_MESSAGE,
    invalid_message,
    split_list,
)
from connectworker.topics.rules import Spelling, TopicCreationRule, TopicCreationRules

__all__ = [
    "DUPLICATE_ALIAS_MESSAGE",
    "PARTITIONS_MESSAGE",
    "REPLICATION_FACTOR_MESSAGE",
    "TopicCreationReading",
    "has_topic_creation_keys",
    "parse_topic_creation",
    "read_topic_creation",
    "topic_creation_config_keys",
    "topic_creation_problems",
]


def _topic_creation_props(props: Mapping[Any, Any]) -> dict[str, Any]:
    """The `topic.creation*` entries of `props`; a None value counts as absent, as in `ConfigDef`."""
    return {
        key: raw
        for key, raw in props.items()
        if isinstance(key, str) and raw is not None and (key == KIP_RULES_KEY or key.startswith(TOPIC_CREATION_PREFIX))
    }


class _Analysis(GroupSettingsReader):
    """One pass over the `topic.creation*` entries of a connector config: problems, warnings, key
    definitions and (if valid) rules."""

    def __init__(self, entries: Mapping[str, Any], extra_configs: Iterable[str] = ()) -> None:
        super().__init__(extra_configs)
        self.spelling: Spelling = "none"
        self.rules: list[TopicCreationRule] = []
        self._run(dict(entries))

    # -- the pass --------------------------------------------------------------------------------
    def _run(self, entries: dict[str, Any]) -> None:
        for key in sorted(WORKER_KEYS & entries.keys()):
            del entries[key]
            self.warnings.append(
                f"{key} is a worker setting; in a connector config it is ignored (set it in the worker config)"
            )
            self._define(key, ConfigType.STRING, "A worker setting; ignored in a connector config.")
        if not entries:
            return
        has_kip, has_groups = KIP_RULES_KEY in entries, GROUPS_KEY in entries
        self.spelling = "kip" if has_kip else "kafka"
        list_key = KIP_RULES_KEY if has_kip else GROUPS_KEY
        if has_kip and has_groups:
            both = (
                f"{KIP_RULES_KEY} (the KIP draft's spelling) and {GROUPS_KEY} (Kafka's spelling) "
                "cannot both be set; use one of them"
            )
            self._problem(KIP_RULES_KEY, both)
            self._problem(GROUPS_KEY, both)
        self._define_list_keys(has_kip, has_groups)

        names = self._listed_names(list_key, entries.get(list_key))
        groups, stray = self._assign_keys(entries, names)
        self.unclaimed = frozenset(key for key, _ in stray)
        default = self._default_group(groups[DEFAULT_GROUP])
        specs = [self._listed_group(name, groups[name], list_key, default) for name in names]
        self._ignore_stray(stray, list_key, names)
        if not self.problems:
            self._build(specs, default)
            if self.spelling == "kip" and not self.rules:
                self.warnings.append(
                    f"{KIP_RULES_KEY} lists no rules and there is no default group: no topic will be created"
                )

    def _define_list_keys(self, has_kip: bool, has_groups: bool) -> None:
        if has_kip:
            self._define(
                KIP_RULES_KEY,
                ConfigType.LIST,
                "The KIP-158 draft's spelling: names of ordered topic creation rules. Each rule "
                "takes one Python regular expression in topic.creation.<rule>.regex; the first "
                "rule that fully matches a topic name wins, then the default group if any; a "
                "topic no rule matches is not created.",
                default="",
                display_name="Topic Creation Rules",
            )
        if has_groups or not has_kip:
            self._define(
                GROUPS_KEY,
                ConfigType.LIST,
                "Groups of configurations for topics created by source connectors, tried in "
                "order; the default group is always tried last.",
                default="",
                display_name="Topic Creation Groups",
            )

    def _listed_names(self, list_key: str, raw: Any) -> list[str]:
        """The distinct listed names in order, without "default"; reports empties and duplicates."""
        if raw is None:
            return []
        names: list[str] = []
        seen: set[str] = set()
        duplicates: list[str] = []
        for item in split_list(raw):
            if not item:
                self._problem(list_key, invalid_message(list_key, raw, "names must not be empty"))
                continue
            if item in seen:
                if item not in duplicates:
                    duplicates.append(item)
                continue
            seen.add(item)
            if item == DEFAULT_GROUP:
                self.warnings.append(
                    f"'{DEFAULT_GROUP}' is listed in {list_key}; the default group is "
                    "always tried last, so the entry is dropped"
                )
            else:
                names.append(item)
        if duplicates:
            listed = ", ".join(repr(name) for name in duplicates)
            self._problem(
                list_key, invalid_message(list_key, raw, f"{DUPLICATE_ALIAS_MESSAGE} ({listed} listed more than once)")
            )
        return names

    def _assign_keys(
        self, entries: dict[str, Any], names: list[str]
    ) -> tuple[dict[str, Entries], list[tuple[str, Any]]]:
        """Give each per-group key to its group; the longest listed name wins when names nest."""
        owners = [*names, DEFAULT_GROUP]
        longest_first = sorted(owners, key=len, reverse=True)
        groups: dict[str, Entries] = {name: {} for name in owners}
        stray: list[tuple[str, Any]] = []
        for key, raw in entries.items():
            if key in (KIP_RULES_KEY, GROUPS_KEY):
                continue
            rest = key[len(TOPIC_CREATION_PREFIX) :]
            owner = next((name for name in longest_first if rest.startswith(name + ".")), None)
            if owner is None:
                stray.append((key, raw))
            else:
                groups[owner][rest[len(owner) + 1 :]] = (key, raw)
        return groups, stray

    def _default_group(self, entries: Entries) -> GroupSpec | None:
        # Kafka requires the default group once any topic.creation.* key is set; in the draft's
        # spelling it is optional, but once present it is complete, as its values are inherited.
        required = self.spelling == "kafka" or bool(entries)
        if not required:
            return None
        spec = GroupSpec(DEFAULT_GROUP)
        self._counts(DEFAULT_GROUP, entries, spec, required=True)
        for suffix, (key, raw) in entries.items():
            if suffix in (INCLUDE, EXCLUDE, REGEX):
                self.warnings.append(
                    f"{key} is ignored: the default group matches every topic that no listed group matched"
                )
                self._define(key, ConfigType.STRING, "Ignored: the default group matches every topic.")
            elif suffix not in (REPLICATION_FACTOR, PARTITIONS):
                self._topic_config(DEFAULT_GROUP, suffix, key, raw, spec.configs)
        return spec

    def _listed_group(self, name: str, entries: Entries, list_key: str, default: GroupSpec | None) -> GroupSpec | None:
        kip = self.spelling == "kip"
        what = "rule" if kip else "group"
        if not entries:
            self._problem(
                list_key,
                f"The {what} {name!r} is listed in {list_key} but no {TOPIC_CREATION_PREFIX}{name}.* key defines it",
            )
            return None
        spec = GroupSpec(name)
        inherited = (
            "inherits the default group's value, or the KIP draft's default (replication factor "
            f"{KIP_DEFAULT_REPLICATION_FACTOR}, partitions {KIP_DEFAULT_PARTITIONS}) without one."
            if kip
            else "inherits the default group's value."
        )
        if default is not None:
            fallback = {REPLICATION_FACTOR: default.replication_factor, PARTITIONS: default.partitions}
        elif kip:
            fallback = {REPLICATION_FACTOR: KIP_DEFAULT_REPLICATION_FACTOR, PARTITIONS: KIP_DEFAULT_PARTITIONS}
        else:
            fallback = {}
        self._counts(name, entries, spec, required=False, inherited=inherited, fallback=fallback)
        for suffix, (key, raw) in entries.items():
            if suffix in (REPLICATION_FACTOR, PARTITIONS):
                continue
            if suffix in (INCLUDE, EXCLUDE):
                self._define(
                    key,
                    ConfigType.LIST,
                    f"Python regular expressions, comma-separated; a topic whose full name matches "
                    f"one of them is {suffix}d {'in' if suffix == INCLUDE else 'from'} this group.",
                    default="",
                    display_name=f"{suffix.capitalize()} Topic Pattern for {name}",
                )
                if kip:
                    self._problem(
                        key,
                        invalid_message(
                            key,
                            raw,
                            f"'{suffix}' belongs to Kafka's spelling "
                            f"({GROUPS_KEY}); rules listed in {KIP_RULES_KEY} "
                            "take a single 'regex'",
                        ),
                    )
                else:
                    patterns = self._patterns(key, raw, single=False)
                    (spec.include if suffix == INCLUDE else spec.exclude).extend(patterns)
            elif suffix == REGEX:
                self._define(
                    key,
                    ConfigType.STRING,
                    "One Python regular expression; this rule applies to topics whose full name matches it.",
                    default=NO_DEFAULT if kip else None,
                    display_name=f"Topic Pattern for {name}",
                )
                if not kip:
                    self._problem(
                        key,
                        invalid_message(
                            key,
                            raw,
                            f"'regex' belongs to the KIP draft's spelling "
                            f"({KIP_RULES_KEY}=<rules>); groups listed in "
                            f"{GROUPS_KEY} take 'include' and 'exclude'",
                        ),
                    )
                elif not config_text(raw).strip():
                    self._problem(key, invalid_message(key, raw, "the pattern must not be empty"))
                else:
                    spec.include.extend(self._patterns(key, raw, single=True))
            else:
                self._topic_config(name, suffix, key, raw, spec.configs)
        if kip and REGEX not in entries:
            key = group_key(name, REGEX)
            self._define(
                key,
                ConfigType.STRING,
                "One Python regular expression; this rule applies to topics whose full name matches it.",
                default=NO_DEFAULT,
                display_name=f"Topic Pattern for {name}",
            )
            self._missing(key)
        if not kip and not spec.include:
            self.warnings.append(
                f"The group {name!r} has no {group_key(name, INCLUDE)} patterns, so it never matches a topic"
            )
        return spec

    def _ignore_stray(self, stray: list[tuple[str, Any]], list_key: str, names: list[str]) -> None:
        for key, _raw in stray:
            rest = key[len(TOPIC_CREATION_PREFIX) :]
            if "." in rest:
                group = rest.split(".", 1)[0]
                reason = f"{group!r} is not listed in {list_key}"
                near = closest_name(group, [*names, DEFAULT_GROUP])
                if near is not None:
                    reason += f"; did you mean {TOPIC_CREATION_PREFIX}{near}{rest[len(group) :]}?"
            else:
                reason = "it is not a topic creation setting"
                near = closest_name(key, [*WORKER_KEYS, GROUPS_KEY])
                if near is not None:
                    reason += f"; did you mean {near}?"
            self.warnings.append(f"{key} is ignored: {reason}")
            self._define(key, ConfigType.STRING, f"Ignored: {reason}.")

    def _build(self, specs: list[GroupSpec | None], default: GroupSpec | None) -> None:
        fallback_rf = KIP_DEFAULT_REPLICATION_FACTOR if default is None else default.replication_factor
        fallback_partitions = KIP_DEFAULT_PARTITIONS if default is None else default.partitions
        for spec in specs:
            assert spec is not None and fallback_rf is not None and fallback_partitions is not None
            self.rules.append(
                TopicCreationRule(
                    spec.name,
                    tuple(spec.include),
                    tuple(spec.exclude),
                    fallback_partitions if spec.partitions is None else spec.partitions,
                    fallback_rf if spec.replication_factor is None else spec.replication_factor,
                    spec.configs,
                )
            )
        if default is not None:
            assert default.partitions is not None and default.replication_factor is not None
            self.rules.append(
                TopicCreationRule(
                    DEFAULT_GROUP, (".*",), (), default.partitions, default.replication_factor, default.configs
                )
            )


# -- the public surface ---------------------------------------------------------------------------
@dataclass(frozen=True)
class TopicCreationReading:
    """A connector config's `topic.creation*` keys, read once."""

    present: bool
    """A connector-level key is set (`topic.creation.enable`, a worker key, does not count)."""
    definitions: list[ConfigKey]
    """Every `topic.creation*` key of the config, plus the required ones that are missing: each key
    `problems` names has one, so a REST validate endpoint can show its declaration next to its errors."""
    problems: dict[str, list[str]]
    """Every problem, by key (absent required keys included)."""
    rules: TopicCreationRules | None
    """The rules, when there is no problem."""

    def checked_rules(self, *, source: str | None = None) -> TopicCreationRules:
        """The rules; raises `ConfigError` naming every offending key at once."""
        if self.rules is None:
            raise ConfigError({key: "; ".join(messages) for key, messages in self.problems.items()}, source=source)
        return self.rules


def read_topic_creation(props: Mapping[str, str], *, extra_configs: Iterable[str] = ()) -> TopicCreationReading:
    """The `topic.creation*` keys of a connector config: definitions, problems and rules in one pass.
    `extra_configs`: topic configs allowed beyond Apache Kafka's (the worker's `topic.creation.extra.configs`)."""
    entries = _topic_creation_props(props)
    analysis = _Analysis(entries, extra_configs)
    rules = (
        None
        if analysis.problems
        else TopicCreationRules(analysis.rules, spelling=analysis.spelling, warnings=analysis.warnings)
    )
    return TopicCreationReading(
        present=any(key not in WORKER_KEYS for key in entries),
        definitions=list(analysis.definitions.values()),
        problems=analysis.problems,
        rules=rules,
    )


def parse_topic_creation(
    props: Mapping[str, str], *, source: str | None = None, extra_configs: Iterable[str] = ()
) -> TopicCreationRules:
    """The rules of a connector config; raises `ConfigError` naming every offending key at once."""
    return read_topic_creation(props, extra_configs=extra_configs).checked_rules(source=source)


def topic_creation_problems(props: Mapping[str, str]) -> dict[str, list[str]]:
    """Every problem of the `topic.creation.*` keys, by key (absent required keys included)."""
    return read_topic_creation(props).problems


def has_topic_creation_keys(props: Mapping[str, str]) -> bool:
    """True when `props` carries a connector-level topic creation key.

    `topic.creation.enable` is a worker key and does not count; neither does a None value.
    """
    return any(key not in WORKER_KEYS for key in _topic_creation_props(props))


def topic_creation_config_keys(props: Mapping[str, str]) -> list[ConfigKey]:
    """Definitions of every `topic.creation*` key in `props`, plus the required ones that are missing
    (see `TopicCreationReading.definitions`). Ignored keys are defined too, with documentation saying
    why they are ignored."""
    return read_topic_creation(props).definitions
