"""Property tests of the `topic.creation.*` rules against a direct transcription of Kafka's matching.

The oracle is Kafka's own definition: a group matches when the full match of its include patterns
joined with "|" succeeds and that of its exclude patterns does not; the first such listed group
wins, else the default group. The generated patterns avoid back-references and inline flags, where
matching pattern by pattern (what connectworker does) and matching the join differ on purpose.
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connectworker.api.errors import ConfigError
from connectworker.api.topic_settings import TopicSettings
from connectworker.topics.config_keys import INT_MAX, SHORT_MAX
from connectworker.topics.rule_parser import (
    has_topic_creation_keys,
    parse_topic_creation,
    topic_creation_config_keys,
    topic_creation_problems,
)

FAST = settings(max_examples=150, deadline=None)

TOPICS = st.text(alphabet="abc._-", min_size=1, max_size=8)
PATTERNS = st.one_of(
    st.sampled_from(
        [
            ".*",
            "a.*",
            ".*b",
            "[ab]+",
            "c",
            "a|b",
            "(ab)+",
            r"a\..*",
            "[^c]*",
            "b?c*",
            "...",
            r"[a-c]+[._-][a-c]*",
            "a{2}",
            "(a|bc)*",
        ]
    ),
    st.text(alphabet="abc", min_size=1, max_size=3).map(lambda prefix: prefix + ".*"),
    st.text(alphabet="abc._-", min_size=1, max_size=4).map(re.escape),
)
COUNTS = st.one_of(st.just(-1), st.integers(min_value=1, max_value=64))
CONFIGS = st.dictionaries(
    st.sampled_from(["retention.ms", "segment.bytes", "min.insync.replicas"]),
    st.integers(min_value=1, max_value=10**6).map(str),
    max_size=2,
)
GROUP_NAMES = st.lists(
    st.text(alphabet=string.ascii_lowercase, min_size=1, max_size=6).filter(lambda name: name != "default"),
    unique=True,
    max_size=4,
)


@dataclass
class Group:
    name: str
    include: list[str]
    exclude: list[str] = field(default_factory=list)
    partitions: int | None = None
    replication_factor: int | None = None
    configs: dict[str, str] = field(default_factory=dict)


@st.composite
def groups_strategy(draw: st.DrawFn) -> list[Group]:
    return [
        Group(
            name,
            draw(st.lists(PATTERNS, max_size=3)),
            draw(st.lists(PATTERNS, max_size=2)),
            draw(st.none() | COUNTS),
            draw(st.none() | COUNTS),
            draw(CONFIGS),
        )
        for name in draw(GROUP_NAMES)
    ]


@dataclass
class Default:
    partitions: int
    replication_factor: int
    configs: dict[str, str]


DEFAULTS = st.builds(Default, COUNTS, COUNTS, CONFIGS)


def kafka_props(groups: list[Group], default: Default) -> dict[str, str]:
    props = {
        "topic.creation.groups": ",".join(g.name for g in groups),
        "topic.creation.default.partitions": str(default.partitions),
        "topic.creation.default.replication.factor": str(default.replication_factor),
    }
    props.update({f"topic.creation.default.{k}": v for k, v in default.configs.items()})
    for g in groups:
        props[f"topic.creation.{g.name}.include"] = ",".join(g.include)  # always present: g is defined
        if g.exclude:
            props[f"topic.creation.{g.name}.exclude"] = ",".join(g.exclude)
        if g.partitions is not None:
            props[f"topic.creation.{g.name}.partitions"] = str(g.partitions)
        if g.replication_factor is not None:
            props[f"topic.creation.{g.name}.replication.factor"] = str(g.replication_factor)
        props.update({f"topic.creation.{g.name}.{k}": v for k, v in g.configs.items()})
    return props


def kafka_winner(groups: list[Group], topic: str) -> str:
    """Kafka's TopicCreation.findFirstGroup, transcribed."""
    for g in groups:
        if re.fullmatch("|".join(g.include), topic) and not re.fullmatch("|".join(g.exclude), topic):
            return g.name
    return "default"


@FAST
@given(groups_strategy(), DEFAULTS, st.lists(TOPICS, min_size=1, max_size=5))
def test_the_winner_is_the_first_listed_group_whose_patterns_fully_match(
    groups: list[Group], default: Default, topics: list[str]
) -> None:
    rules = parse_topic_creation(kafka_props(groups, default))
    for topic in topics:
        found = rules.match(topic)
        assert found is not None  # Kafka's spelling: the default group catches everything else
        assert found.rule == kafka_winner(groups, topic)
        assert found.settings.name == topic


@FAST
@given(groups_strategy(), DEFAULTS, TOPICS)
def test_a_topic_never_lands_in_a_group_whose_exclude_fully_matches_it(
    groups: list[Group], default: Default, topic: str
) -> None:
    found = parse_topic_creation(kafka_props(groups, default)).match(topic)
    assert found is not None
    by_name = {g.name: g for g in groups}
    if found.rule != "default":
        group = by_name[found.rule]
        assert not any(re.fullmatch(p, topic) for p in group.exclude)
        assert any(re.fullmatch(p, topic) for p in group.include)
    for g in groups:  # every group listed before the winner was rightly passed over
        if g.name == found.rule:
            break
        matched = any(re.fullmatch(p, topic) for p in g.include)
        excluded = any(re.fullmatch(p, topic) for p in g.exclude)
        assert not matched or excluded


@FAST
@given(groups_strategy(), DEFAULTS, TOPICS)
def test_counts_are_inherited_from_the_default_group_and_configs_are_not(
    groups: list[Group], default: Default, topic: str
) -> None:
    found = parse_topic_creation(kafka_props(groups, default)).match(topic)
    assert found is not None
    group = next((g for g in groups if g.name == found.rule), None)
    if group is None:
        expected = TopicSettings(topic, default.partitions, default.replication_factor, default.configs)
    else:
        expected = TopicSettings(
            topic,
            default.partitions if group.partitions is None else group.partitions,
            default.replication_factor if group.replication_factor is None else group.replication_factor,
            group.configs,
        )
    assert found.settings == expected


@FAST
@given(groups_strategy(), DEFAULTS, TOPICS, st.integers(min_value=1, max_value=500))
def test_match_returns_fresh_settings_that_mutating_does_not_carry_back(
    groups: list[Group], default: Default, topic: str, partitions: int
) -> None:
    rules = parse_topic_creation(kafka_props(groups, default))
    before = rules.rules
    first = rules.match(topic)
    assert first is not None
    pristine = first.settings.copy()
    first.settings.with_partitions(partitions).with_replication_factor(7).with_config("x.y", "z").clear()
    second = rules.match(topic)
    assert second is not None
    assert second.settings is not first.settings
    assert second.settings == pristine
    assert rules.rules == before
    assert all("x.y" not in rule.configs for rule in rules.rules)


@st.composite
def kip_rules(draw: st.DrawFn) -> list[tuple[str, str]]:
    names = draw(GROUP_NAMES)
    return [(name, draw(PATTERNS)) for name in names]


@FAST
@given(kip_rules(), st.none() | DEFAULTS, TOPICS)
def test_kip_rules_pick_the_first_full_match_then_the_default_group_or_nothing(
    rules_: list[tuple[str, str]], default: Default | None, topic: str
) -> None:
    props = {"topic.creation": ",".join(name for name, _ in rules_)}
    props.update({f"topic.creation.{name}.regex": regex for name, regex in rules_})
    if default is not None:
        props["topic.creation.default.partitions"] = str(default.partitions)
        props["topic.creation.default.replication.factor"] = str(default.replication_factor)
    rules = parse_topic_creation(props)
    assert rules.spelling == "kip"
    expected = next((name for name, regex in rules_ if re.fullmatch(regex, topic)), None)
    found = rules.match(topic)
    if expected is not None:
        assert found is not None and found.rule == expected
        partitions = 1 if default is None else default.partitions
        rf = 3 if default is None else default.replication_factor
        assert (found.settings.partitions, found.settings.replication_factor) == (partitions, rf)
    elif default is None:
        assert found is None  # not created: the broker's auto-create applies
    else:
        assert found is not None and found.rule == "default"


KEY_SUFFIXES = st.sampled_from(
    [
        "groups",
        "default.partitions",
        "default.replication.factor",
        "default.include",
        "a.include",
        "a.exclude",
        "a.regex",
        "a.partitions",
        "a.replication.factor",
        "a.cleanup.policy",
        "b.retention.ms",
        "enable",
        "",
        "a.",
        "default.cleanup.policy",
    ]
)
ANY_KEYS = st.one_of(
    KEY_SUFFIXES.map(lambda s: "topic.creation." + s),
    st.just("topic.creation"),
    st.text(max_size=12).map(lambda s: "topic.creation." + s),
)
ANY_VALUES = st.one_of(
    st.sampled_from(
        ["", "a", "a,b", "a,a", "default", "1", "-1", "0", "x(", ".*", "compact", "a{1,2}", "3", "b,default"]
    ),
    st.text(max_size=8),
)


@FAST
@given(st.dictionaries(ANY_KEYS, ANY_VALUES, max_size=8))
def test_problems_never_raise_and_agree_with_from_config_and_the_definitions(props: dict[str, str]) -> None:
    problems = topic_creation_problems(props)
    definitions = {key.name for key in topic_creation_config_keys(props)}
    assert set(problems) <= definitions
    assert set(props) <= definitions
    for key, messages in problems.items():
        assert key == "topic.creation" or key.startswith("topic.creation.")
        assert messages and all(isinstance(m, str) and m for m in messages)
    if problems:
        with pytest.raises(ConfigError) as info:
            parse_topic_creation(props)
        assert set(info.value.problems) == set(problems)
    else:
        rules = parse_topic_creation(props)
        assert rules.configured == bool(rules.rules)
        assert has_topic_creation_keys(props) == (rules.spelling != "none")


@FAST
@given(st.dictionaries(ANY_KEYS, ANY_VALUES, max_size=8), st.randoms(use_true_random=False))
def test_the_set_of_problem_keys_does_not_depend_on_key_order(props: dict[str, str], rnd: random.Random) -> None:
    items = list(props.items())
    rnd.shuffle(items)
    assert set(topic_creation_problems(dict(items))) == set(topic_creation_problems(props))


@FAST
@given(st.integers(min_value=-(2**40), max_value=2**40), st.sampled_from(["partitions", "replication.factor"]))
def test_counts_are_accepted_exactly_when_positive_or_minus_one_and_in_range(value: int, setting: str) -> None:
    other = "replication.factor" if setting == "partitions" else "partitions"
    props = {f"topic.creation.default.{setting}": str(value), f"topic.creation.default.{other}": "1"}
    maximum = INT_MAX if setting == "partitions" else SHORT_MAX
    accepted = value == -1 or 1 <= value <= maximum
    assert (not topic_creation_problems(props)) == accepted
