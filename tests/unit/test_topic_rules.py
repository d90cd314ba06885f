"""The `topic.creation.*` rules, one test per rule of /work/shared/topic-creation.md."""

from __future__ import annotations

import pytest

from connectworker.api.config_def import NO_DEFAULT, ConfigType
from connectworker.api.errors import ConfigError
from connectworker.api.topic_settings import TopicSettings
from connectworker.topics.config_keys import TOPIC_CREATION_CONFIG_GROUP
from connectworker.topics.rule_parser import (
    DUPLICATE_ALIAS_MESSAGE,
    PARTITIONS_MESSAGE,
    REPLICATION_FACTOR_MESSAGE,
    has_topic_creation_keys,
    parse_topic_creation,
    topic_creation_config_keys,
    topic_creation_problems,
)
from connectworker.topics.rules import TopicCreationRule, TopicCreationRules

DEFAULT_RF = "topic.creation.default.replication.factor"
DEFAULT_PARTITIONS = "topic.creation.default.partitions"
BASE = {"name": "src", "connector.class": "DataGen", DEFAULT_RF: "3", DEFAULT_PARTITIONS: "5"}

KIP_EXAMPLE = {
    "topic.creation": "firstRule,defaultRule",
    "topic.creation.firstRule.regex": "MyPrefix.*",
    "topic.creation.firstRule.replication.factor": "3",
    "topic.creation.firstRule.partitions": "5",
    "topic.creation.firstRule.cleanup.policy": "compact",
    "topic.creation.defaultRule.regex": ".*",
    "topic.creation.defaultRule.replication.factor": "3",
    "topic.creation.defaultRule.partitions": "15",
}


def rules(**groups: dict[str, str]) -> TopicCreationRules:
    """Kafka-spelling rules: BASE plus `topic.creation.groups` listing `groups` in order."""
    props = dict(BASE)
    props["topic.creation.groups"] = ",".join(groups)
    for name, settings in groups.items():
        for suffix, value in settings.items():
            props[f"topic.creation.{name}.{suffix}"] = value
    return parse_topic_creation(props)


def winner(r: TopicCreationRules, topic: str) -> str | None:
    found = r.match(topic)
    return None if found is None else found.rule


def problems_of(props: dict[str, str]) -> dict[str, list[str]]:
    found = topic_creation_problems(props)
    with pytest.raises(ConfigError) as info:
        parse_topic_creation(props)
    assert set(info.value.problems) == set(found)
    return found


# -- not configured -----------------------------------------------------------------------------
def test_no_topic_creation_keys_means_not_configured() -> None:
    r = parse_topic_creation({"name": "src", "topics": "a"})
    assert r.spelling == "none"
    assert not r.configured
    assert r.rules == ()
    assert r.match("anything") is None
    assert r.warnings() == []
    assert not has_topic_creation_keys({"name": "src"})


def test_the_worker_enable_key_is_ignored_in_a_connector_config() -> None:
    props = {"topic.creation.enable": "true"}
    r = parse_topic_creation(props)
    assert r.spelling == "none" and not r.configured
    assert not has_topic_creation_keys(props)
    assert any("worker setting" in w for w in r.warnings())
    # and it is not a group called "enable" next to real rules
    r = parse_topic_creation({**BASE, "topic.creation.enable": "false"})
    assert [rule.name for rule in r.rules] == ["default"]
    assert r.rules[0].configs == {}


def test_has_topic_creation_keys() -> None:
    assert has_topic_creation_keys({"topic.creation": "a"})
    assert has_topic_creation_keys({"topic.creation.groups": ""})
    assert has_topic_creation_keys({DEFAULT_RF: "1"})
    assert not has_topic_creation_keys({"topic.creationx": "1", "topics": "a"})
    assert not has_topic_creation_keys({DEFAULT_RF: None})  # type: ignore[dict-item]


# -- Kafka's spelling: the default group --------------------------------------------------------
def test_default_group_catches_every_topic() -> None:
    r = parse_topic_creation(BASE)
    assert r.spelling == "kafka" and r.configured
    found = r.match("orders")
    assert found is not None and found.rule == "default"
    assert found.settings == TopicSettings("orders", 5, 3)


def test_default_group_configs_are_passed_through() -> None:
    r = parse_topic_creation(
        {**BASE, "topic.creation.default.cleanup.policy": "compact", "topic.creation.default.retention.ms": "1000"}
    )
    found = r.match("t")
    assert found is not None
    assert found.settings.configs() == {"cleanup.policy": "compact", "retention.ms": "1000"}


@pytest.mark.parametrize(
    "props",
    [
        {"topic.creation.groups": ""},
        {"topic.creation.default.cleanup.policy": "compact"},
        {"topic.creation.a.partitions": "1"},
    ],
)
def test_default_group_values_are_required_once_any_key_is_present(props: dict[str, str]) -> None:
    found = problems_of(props)
    for key in (DEFAULT_RF, DEFAULT_PARTITIONS):
        assert found[key] == [f'Missing required configuration "{key}" which has no default value.']


def test_default_group_include_and_exclude_are_ignored_with_a_warning() -> None:
    r = parse_topic_creation(
        {**BASE, "topic.creation.default.include": "only-this", "topic.creation.default.exclude": ".*"}
    )
    assert winner(r, "anything") == "default"
    warnings = " ".join(r.warnings())
    assert "topic.creation.default.include is ignored" in warnings
    assert "topic.creation.default.exclude is ignored" in warnings
    assert r.default is not None and "include" not in r.default.configs


# -- Kafka's spelling: groups --------------------------------------------------------------------
def test_include_is_a_full_match_not_a_search() -> None:
    r = rules(a={"include": "abc"}, b={"include": "a.*"})
    assert winner(r, "abc") == "a"
    assert winner(r, "xabcx") == "default"
    assert winner(r, "abcd") == "b"
    assert winner(r, "ba") == "default"


def test_the_first_listed_group_that_matches_wins() -> None:
    r = rules(narrow={"include": "orders.*", "partitions": "1"}, wide={"include": ".*", "partitions": "2"})
    assert winner(r, "orders.v1") == "narrow"
    assert winner(r, "payments") == "wide"
    r = rules(wide={"include": ".*"}, narrow={"include": "orders.*"})
    assert winner(r, "orders.v1") == "wide"


def test_a_pattern_list_matches_when_any_pattern_fully_matches() -> None:
    r = rules(a={"include": "x.*, y.* ,z"})
    assert [winner(r, t) for t in ("x1", "y2", "z", "zz")] == ["a", "a", "a", "default"]
    assert r.rules[0].include == ("x.*", "y.*", "z")


def test_exclude_skips_only_its_group_and_the_topic_falls_through() -> None:
    r = rules(a={"include": ".*", "exclude": "tmp.*"}, b={"include": "tmp-keep.*"})
    assert winner(r, "orders") == "a"
    assert winner(r, "tmp-keep-1") == "b"
    assert winner(r, "tmp-drop") == "default"


def test_exclude_wins_over_include_in_the_same_group() -> None:
    r = rules(a={"include": "orders", "exclude": "orders"})
    assert winner(r, "orders") == "default"


def test_exclude_is_a_full_match_too() -> None:
    r = rules(a={"include": ".*", "exclude": "tmp"})
    assert winner(r, "tmp") == "default"
    assert winner(r, "tmp2") == "a"


def test_a_group_without_include_never_matches_and_is_warned_about() -> None:
    r = rules(a={"partitions": "7"}, b={"include": "", "exclude": "x"})
    assert winner(r, "anything") == "default"
    assert sum("never matches" in w for w in r.warnings()) == 2


def test_replication_factor_and_partitions_are_inherited_but_configs_are_not() -> None:
    r = parse_topic_creation(
        {
            **BASE,
            "topic.creation.default.cleanup.policy": "compact",
            "topic.creation.groups": "a,b",
            "topic.creation.a.include": "a.*",
            "topic.creation.a.partitions": "9",
            "topic.creation.b.include": "b.*",
            "topic.creation.b.replication.factor": "1",
            "topic.creation.b.retention.ms": "100",
        }
    )
    a, b = r.match("a1"), r.match("b1")
    assert a is not None and b is not None
    assert (a.settings.partitions, a.settings.replication_factor, a.settings.configs()) == (9, 3, {})
    assert (b.settings.partitions, b.settings.replication_factor) == (5, 1)
    assert b.settings.configs() == {"retention.ms": "100"}


@pytest.mark.parametrize(
    ("key", "topic"),
    [
        (DEFAULT_RF, "other"),
        (DEFAULT_PARTITIONS, "other"),
        ("topic.creation.a.replication.factor", "a1"),
        ("topic.creation.a.partitions", "a1"),
    ],
)
def test_minus_one_means_the_broker_default(key: str, topic: str) -> None:
    props = {**BASE, "topic.creation.groups": "a", "topic.creation.a.include": "a.*", key: "-1"}
    found = parse_topic_creation(props).match(topic)
    assert found is not None
    value = found.settings.replication_factor if key.endswith("factor") else found.settings.partitions
    assert value == -1


@pytest.mark.parametrize("value", ["0", "-2", "-100"])
@pytest.mark.parametrize(
    ("key", "message"),
    [
        (DEFAULT_RF, REPLICATION_FACTOR_MESSAGE),
        (DEFAULT_PARTITIONS, PARTITIONS_MESSAGE),
        ("topic.creation.a.replication.factor", REPLICATION_FACTOR_MESSAGE),
        ("topic.creation.a.partitions", PARTITIONS_MESSAGE),
    ],
)
def test_zero_and_other_negatives_are_rejected_with_kafkas_message(key: str, message: str, value: str) -> None:
    props = {**BASE, "topic.creation.groups": "a", "topic.creation.a.include": ".*", key: value}
    found = problems_of(props)
    assert list(found) == [key]
    assert found[key] == [f"Invalid value {value!r} for configuration {key}: {message}"]


@pytest.mark.parametrize("value", ["abc", "1.5", "1_000", "", " ", "0x10", "true", "٣"])
def test_non_integer_counts_are_rejected_naming_the_key(value: str) -> None:
    found = problems_of({**BASE, DEFAULT_PARTITIONS: value})
    assert list(found) == [DEFAULT_PARTITIONS]
    assert "Not a number of type INT" in found[DEFAULT_PARTITIONS][0]


def test_replication_factor_is_a_short_and_partitions_an_int() -> None:
    found = problems_of({**BASE, DEFAULT_RF: "32768", DEFAULT_PARTITIONS: str(2**31)})
    assert "largest short (32767)" in found[DEFAULT_RF][0]
    assert "largest int (2147483647)" in found[DEFAULT_PARTITIONS][0]
    r = parse_topic_creation({**BASE, DEFAULT_RF: " 32767 ", DEFAULT_PARTITIONS: "+7"})
    assert r.default is not None and (r.default.replication_factor, r.default.partitions) == (32767, 7)


def test_json_typed_values_are_accepted() -> None:
    r = parse_topic_creation(
        {
            DEFAULT_RF: 1,
            DEFAULT_PARTITIONS: 2,  # type: ignore[dict-item]
            "topic.creation.default.unclean.leader.election.enable": False,
        }
    )
    found = r.match("t")
    assert found is not None
    assert found.settings == TopicSettings("t", 2, 1, {"unclean.leader.election.enable": "false"})
    found_bool = problems_of({DEFAULT_RF: True, DEFAULT_PARTITIONS: 1})  # type: ignore[dict-item]
    assert list(found_bool) == [DEFAULT_RF]


def test_a_none_value_counts_as_absent() -> None:
    found = problems_of({DEFAULT_RF: None, DEFAULT_PARTITIONS: "1"})  # type: ignore[dict-item]
    assert "Missing required configuration" in found[DEFAULT_RF][0]


def test_duplicate_groups_are_an_error() -> None:
    found = problems_of(
        {**BASE, "topic.creation.groups": "a,b,a", "topic.creation.a.include": "x", "topic.creation.b.include": "y"}
    )
    assert list(found) == ["topic.creation.groups"]
    assert DUPLICATE_ALIAS_MESSAGE in found["topic.creation.groups"][0]
    assert "'a'" in found["topic.creation.groups"][0]


def test_listing_default_only_warns_and_is_dropped() -> None:
    r = parse_topic_creation({**BASE, "topic.creation.groups": "default,a", "topic.creation.a.include": "a.*"})
    assert [rule.name for rule in r.rules] == ["a", "default"]
    assert winner(r, "a1") == "a" and winner(r, "b") == "default"
    assert any("'default' is listed in topic.creation.groups" in w for w in r.warnings())


def test_listing_default_twice_is_still_a_duplicate() -> None:
    found = problems_of({**BASE, "topic.creation.groups": "default,default"})
    assert DUPLICATE_ALIAS_MESSAGE in found["topic.creation.groups"][0]


def test_a_listed_group_without_any_key_is_an_error_naming_the_list_key() -> None:
    found = problems_of({**BASE, "topic.creation.groups": "a,ghost", "topic.creation.a.include": "x"})
    assert list(found) == ["topic.creation.groups"]
    assert "'ghost'" in found["topic.creation.groups"][0]


def test_an_empty_name_in_the_list_is_an_error() -> None:
    found = problems_of(
        {**BASE, "topic.creation.groups": "a,,b", "topic.creation.a.include": "x", "topic.creation.b.include": "y"}
    )
    assert "must not be empty" in found["topic.creation.groups"][0]


def test_keys_of_an_unlisted_group_are_ignored_with_a_warning() -> None:
    r = parse_topic_creation(
        {
            **BASE,
            "topic.creation.groups": "a",
            "topic.creation.a.include": "a.*",
            "topic.creation.b.include": ".*",
            "topic.creation.b.partitions": "0",
        }
    )
    assert [rule.name for rule in r.rules] == ["a", "default"]
    assert winner(r, "b1") == "default"
    warnings = " ".join(r.warnings())
    assert "topic.creation.b.include is ignored" in warnings
    assert "topic.creation.b.partitions is ignored" in warnings


def test_an_unknown_top_level_key_is_ignored_with_a_warning() -> None:
    r = parse_topic_creation({**BASE, "topic.creation.group": "a"})
    assert any("topic.creation.group is ignored" in w for w in r.warnings())


@pytest.mark.parametrize("pattern", ["x(", "[a-", "*", "a{4294967296}", "(" * 600 + ")" * 600])
def test_each_pattern_must_compile(pattern: str) -> None:
    key = "topic.creation.a.exclude"
    found = problems_of({**BASE, "topic.creation.groups": "a", "topic.creation.a.include": ".*", key: pattern})
    assert list(found) == [key]
    assert "Invalid regular expression" in found[key][0]


@pytest.mark.parametrize("value", ["a{1,3}", "x,b{,2}c", "(a{2,}"])
def test_a_comma_inside_a_pattern_is_an_error_with_a_hint(value: str) -> None:
    found = problems_of({**BASE, "topic.creation.groups": "a", "topic.creation.a.include": value})
    assert list(found) == ["topic.creation.a.include"]
    assert "commas separate patterns" in found["topic.creation.a.include"][0]


def test_separate_quantified_patterns_are_fine() -> None:
    r = rules(a={"include": "x{1},y{2}"})
    assert winner(r, "yy") == "a"


def test_patterns_are_matched_one_by_one() -> None:
    # Joined with "|", "(?i)" in the middle would be rejected by Python; alone, it applies to its pattern.
    r = rules(a={"include": "x,(?i)orders"})
    assert winner(r, "ORDERS") == "a" and winner(r, "X") == "default"


def test_regex_belongs_to_the_kip_spelling() -> None:
    found = problems_of({**BASE, "topic.creation.groups": "a", "topic.creation.a.regex": ".*"})
    assert "KIP draft's spelling" in found["topic.creation.a.regex"][0]


def test_invalid_cleanup_policy_is_caught_before_any_topic_is_created() -> None:
    found = problems_of({**BASE, "topic.creation.default.cleanup.policy": "compactt"})
    assert list(found) == ["topic.creation.default.cleanup.policy"]
    r = parse_topic_creation({**BASE, "topic.creation.default.cleanup.policy": "delete,compact"})
    found_match = r.match("t")
    assert found_match is not None and found_match.settings.configs() == {"cleanup.policy": "compact,delete"}


def test_an_empty_topic_config_name_is_an_error() -> None:
    found = problems_of({**BASE, "topic.creation.default.": "x"})
    assert list(found) == ["topic.creation.default."]


@pytest.mark.parametrize(
    ("key", "suggestion"),
    [
        ("topic.creation.eu.partitons", "did you mean topic.creation.eu.partitions?"),
        ("topic.creation.eu.retention.msec", "did you mean topic.creation.eu.retention.ms?"),
        ("topic.creation.default.cleanup.polcy", "did you mean topic.creation.default.cleanup.policy?"),
        ("topic.creation.eu.colour", None),
    ],
)
def test_a_topic_config_kafka_does_not_define_is_refused_naming_the_closest_known_one(
    key: str, suggestion: str | None
) -> None:
    props = {**BASE, "topic.creation.groups": "eu", "topic.creation.eu.include": "eu-.*", key: "6"}
    (message,) = problems_of(props)[key]
    suffix = key.split(".", 3)[3]
    assert message.startswith(f"{suffix!r} is neither a setting of the group nor a topic config Apache Kafka defines.")
    assert (suggestion is not None and suggestion.capitalize() in message) or (
        suggestion is None and "did you mean" not in message.lower()
    )
    assert "topic.creation.extra.configs" in message  # how to use a config the cluster has beyond Kafka's


def test_vendor_configs_and_the_configs_the_worker_allows_are_sent_as_written() -> None:
    props = {
        **BASE,
        "topic.creation.default.confluent.placement.constraints": "{}",
        "topic.creation.default.my.plugin.tier": "cold",
    }
    assert list(problems_of(props)) == ["topic.creation.default.my.plugin.tier"]
    r = parse_topic_creation(props, extra_configs=["my.plugin.tier"])
    found = r.match("t")
    assert found is not None
    assert found.settings.config("my.plugin.tier") == "cold"
    assert found.settings.config("confluent.placement.constraints") == "{}"
    assert r.warnings() == []


def test_a_missing_required_key_names_the_misspelt_key_given_instead() -> None:
    props = {"topic.creation.default.replication.factor": "3", "topic.creation.defualt.partitions": "3"}
    assert problems_of(props) == {
        DEFAULT_PARTITIONS: [
            f'Missing required configuration "{DEFAULT_PARTITIONS}" which has no default value. '
            f"topic.creation.defualt.partitions is set instead: did you mean {DEFAULT_PARTITIONS}?"
        ]
    }


def test_ignored_keys_name_the_key_they_probably_misspell() -> None:
    r = parse_topic_creation(
        {
            **BASE,
            "topic.creation.groups": "eu",
            "topic.creation.eu.include": "eu-.*",
            "topic.creation.ue.partitions": "2",
            "topic.creation.enabled": "true",
        }
    )
    assert sorted(r.warnings()) == [
        "topic.creation.enabled is ignored: it is not a topic creation setting; did you mean topic.creation.enable?",
        "topic.creation.ue.partitions is ignored: 'ue' is not listed in topic.creation.groups; "
        "did you mean topic.creation.eu.partitions?",
    ]


def test_nested_group_names_give_each_key_to_the_longest_name() -> None:
    r = parse_topic_creation(
        {
            **BASE,
            "topic.creation.groups": "a,a.b",
            "topic.creation.a.include": "x",
            "topic.creation.a.b.include": "y",
            "topic.creation.a.b.partitions": "2",
        }
    )
    assert winner(r, "x") == "a" and winner(r, "y") == "a.b"
    assert r.rules[0].partitions == 5 and r.rules[1].partitions == 2


# -- both spellings, every problem at once ------------------------------------------------------
def test_both_spellings_in_one_config_are_an_error() -> None:
    found = problems_of({**KIP_EXAMPLE, "topic.creation.groups": "a", "topic.creation.a.include": ".*"})
    assert "cannot both be set" in found["topic.creation"][0]
    assert "cannot both be set" in found["topic.creation.groups"][0]


def test_every_problem_is_reported_at_once_under_its_key() -> None:
    props = {
        "topic.creation.groups": "a,a,b,ghost",
        DEFAULT_PARTITIONS: "0",
        "topic.creation.a.include": "(",
        "topic.creation.a.replication.factor": "many",
        "topic.creation.b.include": ".*",
        "topic.creation.b.partitions": "-5",
        "topic.creation.b.cleanup.policy": "shred",
    }
    with pytest.raises(ConfigError) as info:
        parse_topic_creation(props, source="connectors/src.properties")
    assert set(info.value.problems) == {
        "topic.creation.groups",
        DEFAULT_RF,
        DEFAULT_PARTITIONS,
        "topic.creation.a.include",
        "topic.creation.a.replication.factor",
        "topic.creation.b.partitions",
        "topic.creation.b.cleanup.policy",
    }
    text = str(info.value)
    assert "connectors/src.properties" in text
    assert DUPLICATE_ALIAS_MESSAGE in text and "'ghost'" in text
    assert len(topic_creation_problems(props)["topic.creation.groups"]) == 2


# -- the KIP draft's spelling -------------------------------------------------------------------
def test_the_kip_example_works_as_written() -> None:
    r = parse_topic_creation(KIP_EXAMPLE)
    assert r.spelling == "kip" and r.configured and r.warnings() == []
    first, other = r.match("MyPrefixABC"), r.match("XYZ")
    assert first is not None and other is not None
    assert first.rule == "firstRule"
    assert first.settings == TopicSettings("MyPrefixABC", 5, 3, {"cleanup.policy": "compact"})
    assert other.rule == "defaultRule"
    assert other.settings == TopicSettings("XYZ", 15, 3)
    assert winner(r, "xMyPrefix") == "defaultRule"  # full match


def test_kip_rules_without_a_default_group_use_the_drafts_defaults_and_skip_unmatched_topics() -> None:
    r = parse_topic_creation({"topic.creation": "r", "topic.creation.r.regex": "logs-.*"})
    assert r.default is None
    found = r.match("logs-1")
    assert found is not None and found.settings == TopicSettings("logs-1", 1, 3)
    assert r.match("metrics") is None


def test_kip_rules_with_a_default_group_inherit_and_fall_back_to_it() -> None:
    r = parse_topic_creation(
        {**BASE, "topic.creation": "r", "topic.creation.r.regex": "logs-.*", "topic.creation.r.partitions": "2"}
    )
    found = r.match("logs-1")
    assert found is not None and found.settings == TopicSettings("logs-1", 2, 3)
    assert winner(r, "metrics") == "default"


def test_a_partial_default_group_in_the_kip_spelling_is_an_error() -> None:
    found = problems_of({"topic.creation": "r", "topic.creation.r.regex": ".*", DEFAULT_PARTITIONS: "2"})
    assert list(found) == [DEFAULT_RF]


def test_a_kip_rule_needs_a_regex() -> None:
    found = problems_of({"topic.creation": "r", "topic.creation.r.partitions": "2"})
    assert found == {
        "topic.creation.r.regex": [
            'Missing required configuration "topic.creation.r.regex" which has no default value.'
        ]
    }
    found = problems_of({"topic.creation": "r", "topic.creation.r.regex": ""})
    assert "must not be empty" in found["topic.creation.r.regex"][0]


def test_a_kip_regex_is_trimmed() -> None:
    r = parse_topic_creation({"topic.creation": "r", "topic.creation.r.regex": " logs-.* "})
    assert winner(r, "logs-1") == "r"
    found = problems_of({"topic.creation": "r", "topic.creation.r.regex": "   "})
    assert "must not be empty" in found["topic.creation.r.regex"][0]


def test_a_kip_regex_is_one_pattern_and_may_contain_commas() -> None:
    r = parse_topic_creation({"topic.creation": "r", "topic.creation.r.regex": "a{1,3}"})
    assert winner(r, "aaa") == "r" and winner(r, "aaaa") is None


def test_include_belongs_to_kafkas_spelling() -> None:
    found = problems_of({"topic.creation": "r", "topic.creation.r.regex": ".*", "topic.creation.r.include": ".*"})
    assert "Kafka's spelling" in found["topic.creation.r.include"][0]


def test_an_empty_kip_list_without_default_is_not_configured() -> None:
    r = parse_topic_creation({"topic.creation": ""})
    assert r.spelling == "kip" and not r.configured
    assert r.match("t") is None
    assert any("lists no rules" in w for w in r.warnings())


def test_kip_duplicates_and_undefined_rules_are_errors() -> None:
    found = problems_of({"topic.creation": "r,r,ghost", "topic.creation.r.regex": ".*"})
    messages = found["topic.creation"]
    assert DUPLICATE_ALIAS_MESSAGE in messages[0] and "'ghost'" in messages[1]


# -- matching results and the objects themselves --------------------------------------------------
def test_match_returns_fresh_settings_that_do_not_touch_the_rules() -> None:
    r = parse_topic_creation({**BASE, "topic.creation.default.retention.ms": "5"})
    first = r.match("t")
    assert first is not None
    first.settings.with_partitions(99).with_config("retention.ms", "1").with_config("x", "y")
    second = r.match("t")
    assert second is not None and second.settings is not first.settings
    assert second.settings == TopicSettings("t", 5, 3, {"retention.ms": "5"})
    assert r.rules[-1].configs == {"retention.ms": "5"}


def test_rules_are_immutable() -> None:
    rule = parse_topic_creation(BASE).rules[0]
    with pytest.raises(AttributeError):
        rule.partitions = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        rule.configs["x"] = "y"  # type: ignore[index]
    assert hash(rule) == hash(TopicCreationRule("default", (".*",), (), 5, 3))


def test_a_rule_validates_itself() -> None:
    with pytest.raises(ValueError, match="Invalid regular expression"):
        TopicCreationRule("a", include=("(",))
    with pytest.raises(ValueError, match="partitions"):
        TopicCreationRule("a", partitions=0)
    with pytest.raises(ValueError, match=r"cleanup\.policy"):
        TopicCreationRule("a", configs={"cleanup.policy": "nope"})
    with pytest.raises(ValueError):
        TopicCreationRule("")
    rule = TopicCreationRule("a", include=["x.*"], exclude=["xy"])  # type: ignore[arg-type]
    assert rule.include == ("x.*",) and rule.matches("xz") and not rule.matches("xy")


def test_the_rule_set_checks_its_shape() -> None:
    default = TopicCreationRule("default", (".*",))
    a = TopicCreationRule("a", ("a",))
    with pytest.raises(ValueError, match="last"):
        TopicCreationRules([default, a], spelling="kafka")
    with pytest.raises(ValueError, match="default group"):
        TopicCreationRules([a], spelling="kafka")
    with pytest.raises(ValueError, match="unique"):
        TopicCreationRules([a, a], spelling="kip")
    with pytest.raises(ValueError, match="spelling"):
        TopicCreationRules([], spelling="java")  # type: ignore[arg-type]
    assert TopicCreationRules([a], spelling="kip") == TopicCreationRules([a], spelling="kip")


# -- definitions for the REST validate endpoint -------------------------------------------------
def test_config_keys_define_every_key_present_and_every_key_with_a_problem() -> None:
    props = {
        "name": "src",
        "topic.creation.groups": "a",
        DEFAULT_PARTITIONS: "2",
        "topic.creation.a.include": "a.*",
        "topic.creation.a.exclude": "ab",
        "topic.creation.a.replication.factor": "1",
        "topic.creation.a.cleanup.policy": "compact",
        "topic.creation.b.include": "x",
        "topic.creation.enable": "true",
    }
    keys = {key.name: key for key in topic_creation_config_keys(props)}
    present = {k for k in props if k.startswith("topic.creation")}
    assert present <= set(keys)
    assert set(topic_creation_problems(props)) <= set(keys)
    assert keys[DEFAULT_RF].default is NO_DEFAULT and keys[DEFAULT_RF].type is ConfigType.SHORT
    assert keys[DEFAULT_PARTITIONS].type is ConfigType.INT
    assert keys["topic.creation.groups"].type is ConfigType.LIST
    assert keys["topic.creation.a.include"].type is ConfigType.LIST
    assert keys["topic.creation.a.cleanup.policy"].type is ConfigType.STRING
    assert keys["topic.creation.b.include"].documentation.startswith("Ignored")
    assert all(key.group == TOPIC_CREATION_CONFIG_GROUP for key in keys.values())
    assert "name" not in keys
    orders = [key.order_in_group for key in keys.values()]
    assert orders == sorted(orders) and len(set(orders)) == len(orders)


def test_config_keys_show_inherited_values_as_defaults() -> None:
    keys = {
        key.name: key
        for key in topic_creation_config_keys(
            {
                **BASE,
                "topic.creation.groups": "a",
                "topic.creation.a.include": "x",
                "topic.creation.a.partitions": "1",
                "topic.creation.a.replication.factor": "1",
            }
        )
    }
    assert keys["topic.creation.a.partitions"].default == 5
    assert keys["topic.creation.a.replication.factor"].default == 3
    kip = {
        key.name: key
        for key in topic_creation_config_keys(
            {"topic.creation": "r", "topic.creation.r.regex": "x", "topic.creation.r.partitions": "4"}
        )
    }
    assert kip["topic.creation.r.partitions"].default == 1
    assert kip["topic.creation.r.regex"].default is NO_DEFAULT


def test_config_keys_of_a_config_without_topic_creation_are_empty() -> None:
    assert topic_creation_config_keys({"name": "src", "topics": "a"}) == []
