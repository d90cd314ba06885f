"""Dry run of topic creation: for each topic, would the worker create it, by which rule, with which
final settings (after the connector task's `settings_for_new_topic`), and optionally what the broker
itself says when asked with ``validate_only``.

The hook comes from the caller: dry-starting a connector and its task to get one is the runtime's job
(`connectworker.runtime.topic_plan.plan_topics`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from typing import Any

from pydantic import BaseModel

from connectworker.api.errors import ConnectError
from connectworker.api.topic_policy import CreateTopicPolicy
from connectworker.api.topic_settings import TopicSettings
from connectworker.topics.admin import Outcome, TopicAdmin
from connectworker.topics.decisions import HookNotAsked, PlannedHook, check_replication, decide
from connectworker.topics.names import validate_topic_name
from connectworker.topics.policy import policy_violation
from connectworker.topics.rules import TopicCreationRules

TANSU_NOTE = (
    "this broker does not honour validate_only (the Tansu test broker creates the topic and "
    "accepts any settings), so its verdict proves nothing"
)


class BrokerVerdict(BaseModel):
    """The broker's answer to CreateTopics with `validate_only`."""

    valid: bool
    error: str | None = None
    note: str | None = None


class PlanEntry(BaseModel):
    """What the worker would do with one topic: `connectworker plan --json` and the REST plan print it."""

    topic: str
    create: bool
    emitted: str | None = None
    """The name the connector emits, when its transforms route it to `topic` (set only with transforms)."""
    rule: str | None
    partitions: int | None
    replication_factor: int | None
    configs: dict[str, str]
    reason: str
    exists: bool | None = None
    policy: str | None = None
    """With a worker policy (`topic.creation.policy.class`): `allowed`, or `rejected` (the reason says why)."""
    broker_verdict: BrokerVerdict | None = None

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(exclude_unset=True)


def broker_honours_validate_only(admin: TopicAdmin) -> bool:
    """Tansu (our embedded broker) announces itself by its default cluster id."""
    return "tansu" not in (admin.cluster_id() or "").lower()


def plan_new_topics(
    rules: TopicCreationRules,
    topics: Iterable[str],
    open_hook: Callable[[], AbstractContextManager[PlannedHook]],
    *,
    hook_owner: str,
    enabled: bool,
    admin: TopicAdmin | None = None,
    validate_only: bool = False,
    broker_honours_validate_only: bool = True,
    policy: CreateTopicPolicy | None = None,
) -> list[PlanEntry]:
    """Plan each topic; asks the broker which topics exist when `admin` is given.

    `open_hook` is entered once, after the broker was asked, for the hook that adjusts or vetoes new
    topics (a dry-started task's `settings_for_new_topic`, named `hook_owner` in messages; or why it could
    not be asked), and exited before the broker is asked to validate.
    """
    names = list(dict.fromkeys(topics))
    existing: set[str] = set()
    if admin is not None:  # illegal names cannot be described; they are planned without the broker
        existing, _ = admin.describe([n for n in names if validate_topic_name(n) is None])
    with open_hook() as hook:
        entries = [_plan_one(rules, topic, hook, hook_owner, enabled, existing, admin, policy) for topic in names]
    if admin is not None and validate_only:
        _ask_broker(admin, entries, broker_honours_validate_only)
    return entries


def _plan_one(
    rules: TopicCreationRules,
    topic: str,
    planned_hook: PlannedHook,
    hook_owner: str,
    enabled: bool,
    existing: set[str],
    admin: TopicAdmin | None,
    policy: CreateTopicPolicy | None,
) -> PlanEntry:
    def entry(
        create: bool,
        reason: str,
        rule: str | None = None,
        settings: TopicSettings | None = None,
        verdict: str | None = None,
    ) -> PlanEntry:
        planned = PlanEntry(
            topic=topic,
            create=create,
            rule=rule,
            partitions=settings.partitions if settings else None,
            replication_factor=settings.replication_factor if settings else None,
            configs=settings.configs() if settings else {},
            reason=reason,
            exists=(topic in existing) if admin is not None else None,
        )
        if verdict is not None:  # set only with a policy: the JSON leaves out what was never set
            planned.policy = verdict
        return planned

    if why := validate_topic_name(topic):
        return entry(False, f"invalid topic name: {why}")
    if topic in existing:
        return entry(False, "topic exists; existing topics are never altered")
    if not enabled:
        return entry(False, "the worker's topic.creation.enable is false; the broker's auto-create applies")
    if not rules.configured:
        return entry(False, "the connector defines no topic.creation rules; the broker's auto-create applies")
    hook = None if isinstance(planned_hook, HookNotAsked) else planned_hook
    try:
        decision = decide(rules, topic, hook, hook_owner)
    except ConnectError as exc:
        return entry(False, str(exc))
    if isinstance(planned_hook, HookNotAsked) and decision.rule is not None:
        decision.reason = f"{decision.reason}; {planned_hook.why}"
    if decision.settings is None:
        return entry(False, decision.reason, decision.rule)
    if policy is not None and (violation := policy_violation(policy, decision.settings)) is not None:
        return entry(False, violation, decision.rule, decision.settings, "rejected")
    if admin is not None and (problem := check_replication(decision.settings, admin.broker_count())):
        return entry(False, problem, decision.rule, decision.settings)
    return entry(True, decision.reason, decision.rule, decision.settings, "allowed" if policy is not None else None)


def _ask_broker(admin: TopicAdmin, entries: list[PlanEntry], honours: bool) -> None:
    wanted = [e for e in entries if e.create]
    settings = [TopicSettings(e.topic, e.partitions or -1, e.replication_factor or -1, e.configs) for e in wanted]
    results = admin.create(settings, validate_only=True)
    for e in wanted:
        result = results[e.topic]
        error = "topic already exists" if result.outcome is Outcome.ALREADY_EXISTS else None
        e.broker_verdict = BrokerVerdict(
            valid=result.outcome in (Outcome.CREATED, Outcome.UNSUPPORTED),
            error=str(result.error) if result.error is not None else error,
            note=None if honours else TANSU_NOTE,
        )
