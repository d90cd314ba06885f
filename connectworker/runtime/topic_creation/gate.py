"""The interface between the record path and topic creation.

Before a task produces to topics it has not used yet, it asks a `TopicGate` to make them ready. The
gate created for a connector decides what "ready" means: with topic creation off it only notes the
topics (the broker's auto-create applies); with it on, it checks and creates them (topics/creation.py).
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Protocol

from connectworker.config.connector_config import ConnectorConfig
from connectworker.topics.creation import NewTopicHook, TopicCreationService


class TopicGate(Protocol):
    def ensure(self, topics: Collection[str], hook: NewTopicHook | None, task_name: str) -> None:
        """Return once `topics` may be produced to; raise ConnectError if one can never be.

        `hook` (the task's `settings_for_new_topic`; None: none) may adjust or veto a topic about to
        be created; `task_name` names the task in messages."""
        ...

    def forget(self, topic: str) -> None:
        """`topic` vanished (e.g. deleted at run time): check it again on next use."""
        ...

    @property
    def recreates_missing_topics(self) -> bool:
        """Whether a record that met 'unknown topic' should be re-sent after `ensure` again."""
        ...


def connector_gates(service: TopicCreationService) -> Callable[[ConnectorConfig], TopicGate]:
    """The worker's gate factory: each connector's gate, from its name, props and parsed rules."""

    def gate_for(config: ConnectorConfig) -> TopicGate:
        return service.gate_for_rules(config.name, config.props, config.topic_rules)

    return gate_for
