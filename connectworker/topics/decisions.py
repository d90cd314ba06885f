"""What the worker decides for one missing topic: the connector's rules, then the task's
`settings_for_new_topic`, then the worker's create-topic policy (runtime/topic_creation/service.py asks, once it knows
the topic is missing), and how a failure is named for the metrics."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from confluent_kafka import KafkaError

from connectworker.api.errors import ConnectError
from connectworker.api.topic_policy import CreateTopicPolicy
from connectworker.api.topic_settings import USE_BROKER_DEFAULT, TopicSettings
from connectworker.topics.policy import policy_violation
from connectworker.topics.rules import TopicCreationRules

__all__ = [
    "Decision",
    "HookNotAsked",
    "NewTopicHook",
    "PlannedHook",
    "TopicCreationError",
    "check_replication",
    "decide",
    "error_kind",
]

NewTopicHook = Callable[[TopicSettings], TopicSettings | None]
"""What may adjust or veto the settings of a topic about to be created: a task's
`SourceTask.settings_for_new_topic`. None where nothing does (a Spark DataFrame write)."""


@dataclass(frozen=True)
class HookNotAsked:
    """A dry run could not ask the task's `settings_for_new_topic`: its connector or task cannot be
    started without side effects (`dry_start`), or failed to. `why` goes into every decision it leaves
    to the rules alone."""

    why: str


PlannedHook = NewTopicHook | HookNotAsked | None
"""What a dry run decides with: the hook of a dry-started task, why there is none, or none at all."""


class TopicCreationError(ConnectError):
    """Topic creation cannot proceed; the task fails with this message. `kind` classifies the failure
    for the metrics (`hook`, `invalid_name`, `replication_factor`, `timeout`, `not_visible`, or the
    broker's error name in snake case, e.g. `policy_violation`)."""

    def __init__(self, message: str, *, kind: str = "error") -> None:
        super().__init__(message)
        self.kind = kind


@dataclass
class Decision:
    """What the worker decided for one missing topic."""

    topic: str
    rule: str | None
    settings: TopicSettings | None  # None: not created by the worker
    reason: str


def decide(
    rules: TopicCreationRules,
    topic: str,
    hook: NewTopicHook | None,
    hook_owner: str,
    policy: CreateTopicPolicy | None = None,
) -> Decision:
    """Apply the connector's rules and the task's `settings_for_new_topic` (`hook`; None: the rule's
    settings as they are) to one missing topic, then the worker's create-topic `policy`, which raises
    `TopicCreationError` (kind `policy_violation`) for settings it refuses: no hook gets past it."""
    match = rules.match(topic)
    if match is None:
        return Decision(topic, None, None, "no topic.creation rule matches; the broker's auto-create applies")
    if hook is None:
        return _allowed(policy, Decision(topic, match.rule, match.settings, f"rule {match.rule!r}"))
    try:
        settings = hook(match.settings)
    except Exception as exc:
        raise TopicCreationError(
            f"settings_for_new_topic of {hook_owner} raised for topic {topic!r}: {type(exc).__name__}: {exc}",
            kind="hook",
        ) from exc
    if settings is None:
        return Decision(
            topic,
            match.rule,
            None,
            f"settings_for_new_topic of {hook_owner} returned None; the broker's auto-create applies",
        )
    if not isinstance(settings, TopicSettings):
        raise TopicCreationError(
            f"settings_for_new_topic of {hook_owner} returned {type(settings).__name__} "
            f"for topic {topic!r}; expected TopicSettings or None",
            kind="hook",
        )
    if settings.name != topic:
        raise TopicCreationError(
            f"settings_for_new_topic of {hook_owner} returned settings for topic "
            f"{settings.name!r} when asked about {topic!r}",
            kind="hook",
        )
    return _allowed(policy, Decision(topic, match.rule, settings, f"rule {match.rule!r}"))


def _allowed(policy: CreateTopicPolicy | None, decision: Decision) -> Decision:
    if (
        policy is not None
        and decision.settings is not None
        and (violation := policy_violation(policy, decision.settings)) is not None
    ):
        raise TopicCreationError(violation, kind="policy_violation")
    return decision


def error_kind(code: int | None) -> str:
    """A broker error code as a metric label: KafkaError's name in snake case (`policy_violation`)."""
    if code is None:
        return "error"
    name = KafkaError(code).name()
    return name.lstrip("_").lower() or "error"


def check_replication(settings: TopicSettings, brokers: int) -> str | None:
    rf = settings.replication_factor
    if rf != USE_BROKER_DEFAULT and rf > brokers:
        return (
            f"Cannot create topic {settings.name!r} with replication factor {rf}: the cluster has "
            f"{brokers} live broker(s). Replication factor must be positive and not larger than the "
            f"number of brokers in the Kafka cluster, or -1 to use the broker's default."
        )
    return None
