"""The worker's create-topic policy: every limit of `LimitsPolicy`, custom classes, bad classes named by
their key, and the policy running after `settings_for_new_topic` so no hook gets past it."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext

import pytest

from connectworker.api import ConfigError, CreateTopicPolicy, PolicyViolationError, RequestMetadata, TopicSettings
from connectworker.config.topic_policy import load_topic_policy
from connectworker.config.worker_config import WorkerConfig
from connectworker.topics.decisions import TopicCreationError, decide
from connectworker.topics.plan import plan_new_topics
from connectworker.topics.policy import LimitsPolicy, policy_violation, rule_violations
from connectworker.topics.rule_parser import parse_topic_creation


def limits(**props: str) -> LimitsPolicy:
    policy = LimitsPolicy()
    policy.configure({k.replace("_", "."): v for k, v in props.items()})
    return policy


def refusal(policy: CreateTopicPolicy, settings: TopicSettings) -> str | None:
    return policy_violation(policy, settings)


@pytest.mark.parametrize(
    ("props", "settings", "expected"),
    [
        (
            {"max_partitions": "6"},
            TopicSettings("t", 12, 1),
            "12 partitions is above topic.creation.policy.max.partitions (6)",
        ),
        ({"max_partitions": "6"}, TopicSettings("t", 6, 1), None),
        ({"max_partitions": "6"}, TopicSettings("t", -1, 1), None),  # the broker's default is not judged
        (
            {"min_replication_factor": "3"},
            TopicSettings("t", 1, 1),
            "replication factor 1 is below topic.creation.policy.min.replication.factor (3)",
        ),
        (
            {"max_replication_factor": "3"},
            TopicSettings("t", 1, 5),
            "replication factor 5 is above topic.creation.policy.max.replication.factor (3)",
        ),
        ({"min_replication_factor": "3"}, TopicSettings("t", 1, -1), None),
        (
            {"required_configs": "min.insync.replicas,retention.ms"},
            TopicSettings("t", 1, 1, {"retention.ms": "1"}),
            "it does not set min.insync.replicas (topic.creation.policy.required.configs)",
        ),
        (
            {"allowed_cleanup_policies": "delete"},
            TopicSettings("t", 1, 1, {"cleanup.policy": "compact,delete"}),
            "cleanup.policy 'compact,delete' is not allowed (topic.creation.policy.allowed.cleanup.policies = delete)",
        ),
        ({"allowed_cleanup_policies": "compact,delete"}, TopicSettings("t", 1, 1, {"cleanup.policy": "compact"}), None),
        (
            {"name_pattern": "team-a\\..+"},
            TopicSettings("team-b.x", 1, 1),
            "the name does not match topic.creation.policy.name.pattern 'team-a\\\\..+'",
        ),
        ({"name_pattern": "team-a\\..+"}, TopicSettings("team-a.x", 1, 1), None),
        (
            {"max_retention_ms": "86400000"},
            TopicSettings("t", 1, 1, {"retention.ms": "-1"}),
            "retention.ms -1 is above topic.creation.policy.max.retention.ms (86400000)",
        ),
        ({"max_retention_ms": "86400000"}, TopicSettings("t", 1, 1, {"retention.ms": "3600000"}), None),
    ],
)
def test_each_limit(props: dict[str, str], settings: TopicSettings, expected: str | None) -> None:
    message = refusal(limits(**props), settings)
    if expected is None:
        assert message is None
    else:
        assert message == (
            f"The worker's create-topic policy (topic.creation.policy.class) rejected topic "
            f"{settings.name!r}: {expected}. Change the connector's topic.creation.* settings to "
            f"satisfy the policy, or have an administrator create the topic."
        )


def test_every_broken_limit_is_named_at_once() -> None:
    message = refusal(limits(max_partitions="2", min_replication_factor="2"), TopicSettings("t", 3, 1))
    assert message is not None and "3 partitions is above" in message and "replication factor 1 is below" in message


@pytest.mark.parametrize(
    ("props", "key", "says"),
    [
        ({"max.partitions": "zero"}, "topic.creation.policy.max.partitions", "Expected an integer"),
        ({"max.partitions": "0"}, "topic.creation.policy.max.partitions", "at least 1"),
        ({"name.pattern": "("}, "topic.creation.policy.name.pattern", "not a valid regular expression"),
        (
            {"allowed.cleanup.policies": "forever"},
            "topic.creation.policy.allowed.cleanup.policies",
            "not a cleanup policy",
        ),
        (
            {"min.replication.factor": "3", "max.replication.factor": "2"},
            "topic.creation.policy.min.replication.factor",
            "above topic.creation.policy.max.replication.factor",
        ),
    ],
)
def test_bad_limits_are_named_by_their_full_key(props: dict[str, str], key: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        LimitsPolicy().configure(props)
    assert key in caught.value.problems and says in caught.value.problems[key]


class OnlyEvenPartitions(CreateTopicPolicy):
    configured: Mapping[str, str] = {}

    def configure(self, props: Mapping[str, str]) -> None:
        OnlyEvenPartitions.configured = dict(props)

    def validate(self, request: RequestMetadata) -> None:
        if request.partitions % 2:
            raise PolicyViolationError(f"{request.topic} wants {request.partitions} partitions; only even counts")


class NotAPolicy:
    pass


def worker(**props: str) -> WorkerConfig:
    return WorkerConfig.from_properties({"bootstrap.servers": "127.0.0.1:1", **props})


def test_a_custom_policy_class_is_loaded_and_gets_its_keys_without_the_prefix() -> None:
    policy = load_topic_policy(
        worker(**{"topic.creation.policy.class": f"{__name__}.OnlyEvenPartitions", "topic.creation.policy.team": "a"})
    )
    assert isinstance(policy, OnlyEvenPartitions) and OnlyEvenPartitions.configured == {"team": "a"}
    assert "t wants 3 partitions; only even counts" in (refusal(policy, TopicSettings("t", 3, 1)) or "")
    assert load_topic_policy(worker()) is None


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("no.such.module.Policy", "could not be found"),
        (f"{__name__}.Missing", "could not be found"),
        (f"{__name__}.NotAPolicy", "is not a subclass of connectworker.api.CreateTopicPolicy"),
        ("Limits", "could not be found"),
    ],
)
def test_a_bad_policy_class_is_a_configuration_error_naming_the_key(name: str, says: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_topic_policy(worker(**{"topic.creation.policy.class": name}), source="w.properties")
    assert says in caught.value.problems["topic.creation.policy.class"]
    assert "Invalid configuration in w.properties" in str(caught.value)


RULES = parse_topic_creation(
    {
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "3",
        "topic.creation.groups": "big",
        "topic.creation.big.include": "orders,big\\..*",
        "topic.creation.big.partitions": "12",
    }
)


def test_the_policy_runs_after_the_hook_so_a_hook_cannot_get_past_it() -> None:
    policy = limits(max_partitions="6")
    assert decide(RULES, "small", None, "task t-0", policy).settings is not None
    with pytest.raises(TopicCreationError) as caught:  # the rule said 3; the hook raised it to 9
        decide(RULES, "small", lambda s: s.with_partitions(9), "task t-0", policy)
    assert caught.value.kind == "policy_violation" and "9 partitions is above" in str(caught.value)
    lowered = decide(RULES, "big.x", lambda s: s.with_partitions(6), "task t-0", policy)  # a hook may fix it
    assert lowered.settings is not None and lowered.settings.partitions == 6


def test_the_plan_shows_the_verdict_and_the_message() -> None:
    entries = plan_new_topics(
        RULES, ["small", "big.x"], _no_hook, hook_owner="t", enabled=True, policy=limits(max_partitions="6")
    )
    small, big = entries
    assert (small.create, small.policy) == (True, "allowed")
    assert (big.create, big.policy, big.partitions) == (False, "rejected", 12)
    assert "12 partitions is above topic.creation.policy.max.partitions (6)" in big.reason
    without = plan_new_topics(RULES, ["small"], _no_hook, hook_owner="t", enabled=True)
    assert "policy" not in without[0].to_json()


def test_validate_judges_the_topics_rules_name_literally() -> None:
    assert rule_violations(limits(max_partitions="6"), RULES) == {
        "big": [refusal(limits(max_partitions="6"), TopicSettings("orders", 12, 1))]
    }


def _no_hook() -> AbstractContextManager[None]:
    return nullcontext(None)
