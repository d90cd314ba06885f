"""What the worker would do with each topic of a task: the dry run of topic creation, for tests.

The plan is `connectworker.topics.plan.plan_new_topics` (the logic behind `connectworker plan`) with
the worker's topic creation enabled and no broker: every topic is new. A test sees the rule (group)
that matched, the final `TopicSettings` after the task's `settings_for_new_topic`, or None when the
worker would leave the topic to the broker's auto-create.

Where the running worker would fail the task (the hook raises, or returns something that is not
settings for the topic asked about), planning raises too, so the test fails with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field

from connectworker.api.topic_settings import TopicSettings
from connectworker.topics.decisions import NewTopicHook, TopicCreationError
from connectworker.topics.plan import plan_new_topics
from connectworker.topics.rule_parser import parse_topic_creation
from connectworker.topics.rules import TopicCreationRules

__all__ = ["TopicPlan", "parse_rules", "plan_topics"]


@dataclass(frozen=True)
class TopicPlan:
    """What the worker would do with one topic it does not know yet."""

    topic: str
    rule: str | None
    """The matching group (Kafka's spelling) or rule (the KIP draft's), "default" for the default
    group; None when no rule matched, the connector defines none, or the name is not a legal topic."""
    settings: TopicSettings | None = field(hash=False)
    """The settings the worker would create the topic with; None: not created by the worker."""
    reason: str
    """Why, in the words of `connectworker plan`."""
    vetoed: bool = False
    """True when the task's `settings_for_new_topic` returned None for this topic."""

    @property
    def create(self) -> bool:
        """Whether the worker would create the topic (otherwise the broker's auto-create applies)."""
        return self.settings is not None


def parse_rules(rules: Mapping[str, str] | TopicCreationRules, *, source: str | None = None) -> TopicCreationRules:
    """Rules as given, or read from the `topic.creation.*` keys of a connector config with the worker's
    own parser; other keys are ignored. A bad rule raises `ConfigError` naming every offending key."""
    if isinstance(rules, TopicCreationRules):
        return rules
    return parse_topic_creation(rules, source=source)


@dataclass
class _Call:
    """One call of the task's hook, as the planner made it."""

    returned: TopicSettings | None = None
    raised: BaseException | None = None


class _RecordingHook:
    """The task's `settings_for_new_topic`, with what each call returned or raised kept by topic."""

    def __init__(self, hook: NewTopicHook) -> None:
        self._hook = hook
        self.calls: dict[str, _Call] = {}

    def __call__(self, settings: TopicSettings) -> TopicSettings | None:
        call = self.calls[settings.name] = _Call()
        try:
            call.returned = self._hook(settings)
        except BaseException as exc:
            call.raised = exc
            raise
        return call.returned


def plan_topics(
    rules: TopicCreationRules,
    topics: Iterable[str],
    open_hook: AbstractContextManager[NewTopicHook],
    *,
    hook_owner: str,
) -> dict[str, TopicPlan]:
    """Plan each of `topics` (in order, without repeats) with `rules` and the hook `open_hook` yields.

    Raises what the hook raised for a topic, and `TopicCreationError` when it returned something the
    worker refuses (not a `TopicSettings`, or settings for another topic).
    """

    recording: list[_RecordingHook] = []

    @contextmanager
    def hook() -> Iterator[NewTopicHook]:
        with open_hook as task_hook:
            recording.append(_RecordingHook(task_hook))
            yield recording[0]

    entries = plan_new_topics(rules, topics, hook, hook_owner=hook_owner, enabled=True)
    calls = recording[0].calls if recording else {}
    plans: dict[str, TopicPlan] = {}
    for entry in entries:
        call = calls.get(entry.topic)
        if call is not None and call.raised is not None:
            raise call.raised
        if call is not None and call.returned is not None and not entry.create:
            raise TopicCreationError(entry.reason)
        settings = None
        if entry.create:
            assert entry.partitions is not None and entry.replication_factor is not None
            settings = TopicSettings(entry.topic, entry.partitions, entry.replication_factor, entry.configs)
        plans[entry.topic] = TopicPlan(
            entry.topic,
            entry.rule,
            settings,
            entry.reason,
            vetoed=call is not None and call.returned is None and not entry.create,
        )
    return plans
