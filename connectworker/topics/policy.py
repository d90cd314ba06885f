"""Applying a `CreateTopicPolicy` to the settings of a new topic, and the built-in `LimitsPolicy`.

`LimitsPolicy` covers what operators of a shared cluster usually want without writing a class; every
limit is optional (`topic.creation.policy.class=connectworker.topics.policy.LimitsPolicy`, then its
keys under `topic.creation.policy.`). A value of -1 (partitions, replication factor) means "the broker's
default", which a limit cannot judge: it is let through, as the broker would decide it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, at_least
from connectworker.api.errors import ConfigError
from connectworker.api.topic_policy import CreateTopicPolicy, PolicyViolationError, RequestMetadata
from connectworker.api.topic_settings import CLEANUP_POLICY, RETENTION_MS, USE_BROKER_DEFAULT, TopicSettings
from connectworker.topics.rules import TopicCreationRules

__all__ = ["POLICY_PREFIX", "LimitsPolicy", "policy_violation", "request_for", "rule_violations"]

POLICY_PREFIX = "topic.creation.policy."
CLEANUP_POLICIES = ("delete", "compact", "compact,delete")


def request_for(settings: TopicSettings) -> RequestMetadata:
    return RequestMetadata(settings.name, settings.partitions, settings.replication_factor, settings.configs())


def policy_violation(policy: CreateTopicPolicy, settings: TopicSettings) -> str | None:
    """None if `policy` lets `settings` be created; else the message, in the shape of the broker's
    POLICY_VIOLATION (see topics/admin.py), so a task fails alike whichever of the two refused. A policy
    that raises anything but `PolicyViolationError` is a broken policy: that is said too."""
    try:
        policy.validate(request_for(settings))
    except PolicyViolationError as exc:
        why = str(exc) or "no reason given"
    except Exception as exc:
        why = f"the policy {type(policy).__name__} failed: {type(exc).__name__}: {exc}"
    else:
        return None
    return (
        f"The worker's create-topic policy (topic.creation.policy.class) rejected topic {settings.name!r}: "
        f"{why}. Change the connector's topic.creation.* settings to satisfy the policy, or have an "
        f"administrator create the topic."
    )


def rule_violations(policy: CreateTopicPolicy, rules: TopicCreationRules) -> dict[str, list[str]]:
    """What `policy` says of the topics a connector's rules name literally (an include that is a plain
    topic name, not a pattern), by rule name. Topics that only a pattern matches are judged when they
    are created, and by `connectworker plan`."""
    found: dict[str, list[str]] = {}
    for rule in rules.rules:
        for include in rule.include:
            if re.fullmatch(r"[A-Za-z0-9_-]+(?:\\?\.[A-Za-z0-9_-]+)*", include):
                topic = include.replace("\\.", ".")
                if rule.matches(topic) and (violation := policy_violation(policy, rule.settings_for(topic))):
                    found.setdefault(rule.name, []).append(violation)
    return found


def _cleanup_policies(key: str, value: Any) -> None:
    for item in value or []:
        if item not in CLEANUP_POLICIES:
            raise ValueError(f"{item!r} is not a cleanup policy; allowed: {', '.join(CLEANUP_POLICIES)}")


def _regex(key: str, value: Any) -> None:
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise ValueError(f"not a valid regular expression: {exc}") from None


LIMITS = (
    ConfigDef()
    .define(
        "max.partitions",
        ConfigType.INT,
        None,
        validator=at_least(1),
        documentation="Most partitions a new topic may have.",
    )
    .define(
        "min.replication.factor",
        ConfigType.SHORT,
        None,
        validator=at_least(1),
        documentation="Fewest replicas a new topic may have.",
    )
    .define(
        "max.replication.factor",
        ConfigType.SHORT,
        None,
        validator=at_least(1),
        documentation="Most replicas a new topic may have.",
    )
    .define(
        "required.configs",
        ConfigType.LIST,
        [],
        documentation="Topic configs every new topic must set, e.g. min.insync.replicas.",
    )
    .define(
        "allowed.cleanup.policies",
        ConfigType.LIST,
        [],
        validator=_cleanup_policies,
        documentation="Each policy in a new topic's cleanup.policy must be one of these "
        "(delete, compact); a topic that sets none gets the broker's default, "
        "which is not judged.",
    )
    .define(
        "name.pattern",
        ConfigType.STRING,
        None,
        validator=_regex,
        documentation="A regular expression every new topic's whole name must match.",
    )
    .define(
        "max.retention.ms",
        ConfigType.LONG,
        None,
        validator=at_least(-1),
        documentation="Longest retention.ms a new topic may set; -1 (forever) allows "
        "unlimited retention. A topic that sets none gets the broker's default, "
        "which is not judged.",
    )
)


class LimitsPolicy(CreateTopicPolicy):
    """Limits on partitions, replication factor, configs, cleanup policy, name and retention."""

    def __init__(self) -> None:
        self._limits: dict[str, Any] = LIMITS.parse({})
        self._name: re.Pattern[str] | None = None

    def configure(self, props: Mapping[str, str]) -> None:
        try:
            limits = LIMITS.parse(props)
        except ConfigError as exc:  # named as the worker file spells them
            raise ConfigError({POLICY_PREFIX + key: message for key, message in exc.problems.items()}) from None
        low, high = limits["min.replication.factor"], limits["max.replication.factor"]
        if low is not None and high is not None and low > high:
            raise ConfigError(
                {
                    POLICY_PREFIX
                    + "min.replication.factor": f"{low} is above {POLICY_PREFIX}max.replication.factor ({high})"
                }
            )
        self._limits = limits
        self._name = re.compile(limits["name.pattern"]) if limits["name.pattern"] is not None else None

    def validate(self, request: RequestMetadata) -> None:
        limits = self._limits
        problems = [*self._counts(request, limits), *self._configs(request, limits)]
        if self._name is not None and not self._name.fullmatch(request.topic):
            problems.append(f"the name does not match {POLICY_PREFIX}name.pattern {limits['name.pattern']!r}")
        if problems:
            raise PolicyViolationError("; ".join(problems))

    @staticmethod
    def _counts(request: RequestMetadata, limits: Mapping[str, Any]) -> list[str]:
        problems = []
        partitions, replicas = request.partitions, request.replication_factor
        if (
            limits["max.partitions"] is not None
            and partitions != USE_BROKER_DEFAULT
            and partitions > limits["max.partitions"]
        ):
            problems.append(
                f"{partitions} partitions is above {POLICY_PREFIX}max.partitions ({limits['max.partitions']})"
            )
        if replicas != USE_BROKER_DEFAULT:
            if limits["min.replication.factor"] is not None and replicas < limits["min.replication.factor"]:
                problems.append(
                    f"replication factor {replicas} is below {POLICY_PREFIX}min.replication.factor "
                    f"({limits['min.replication.factor']})"
                )
            if limits["max.replication.factor"] is not None and replicas > limits["max.replication.factor"]:
                problems.append(
                    f"replication factor {replicas} is above {POLICY_PREFIX}max.replication.factor "
                    f"({limits['max.replication.factor']})"
                )
        return problems

    @staticmethod
    def _configs(request: RequestMetadata, limits: Mapping[str, Any]) -> list[str]:
        problems = []
        configs = request.configs
        missing = [key for key in limits["required.configs"] if key not in configs]
        if missing:
            problems.append(f"it does not set {', '.join(missing)} ({POLICY_PREFIX}required.configs)")
        allowed = limits["allowed.cleanup.policies"]
        cleanup = configs.get(CLEANUP_POLICY)
        if allowed and cleanup is not None:
            refused = [p.strip() for p in cleanup.split(",") if p.strip() not in allowed]
            if refused:
                problems.append(
                    f"cleanup.policy {cleanup!r} is not allowed ({POLICY_PREFIX}allowed.cleanup.policies "
                    f"= {','.join(allowed)})"
                )
        retention, longest = configs.get(RETENTION_MS), limits["max.retention.ms"]
        if longest is not None and longest != -1 and retention is not None:
            try:
                ms = int(retention)
            except ValueError:
                problems.append(f"retention.ms {retention!r} is not a number")
            else:
                if ms == -1 or ms > longest:
                    problems.append(f"retention.ms {ms} is above {POLICY_PREFIX}max.retention.ms ({longest})")
        return problems
