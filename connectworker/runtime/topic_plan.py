"""The topic-creation dry run of a connector: `connectworker plan`, the herder and the REST plan.

Planning asks the connector's first task, as the running one would be asked, whether to adjust or veto
each new topic (`settings_for_new_topic`); starting the connector and that task is the runtime's part,
the rest is `connectworker.topics.plan`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from connectworker.config.connector_config import ConnectorConfig
from connectworker.runtime.plan_context import PlanTaskContext
from connectworker.topics.admin import TopicAdmin
from connectworker.topics.creation import NewTopicHook
from connectworker.topics.plan import PlanEntry, plan_new_topics


@contextmanager
def started_task_hook(config: ConnectorConfig) -> Iterator[NewTopicHook]:
    """The `settings_for_new_topic` of a started instance of the connector's first task (with no
    committed offsets); the task, then the connector, are stopped on exit."""
    connector = config.connector_class()
    connector.start(config.props)
    task_configs = connector.task_configs(config.tasks_max) or [{}]
    task_props = {**config.props, **task_configs[0]}
    task = connector.task_class()()
    try:
        task.initialize(PlanTaskContext(task_props))
        task.start(task_props)
    except BaseException:
        connector.stop()
        raise
    try:
        yield task.settings_for_new_topic
    finally:
        task.stop()
        connector.stop()


def plan_topics(config: ConnectorConfig, topics: Iterable[str], *, enabled: bool,
                admin: TopicAdmin | None = None, validate_only: bool = False,
                broker_honours_validate_only: bool = True) -> list[PlanEntry]:
    """Plan each topic with the connector's rules and its first task's hook; asks the broker which
    topics exist when `admin` is given (and, with `validate_only`, what it says of the settings)."""
    return plan_new_topics(config.topic_rules, topics, lambda: started_task_hook(config),
                           hook_owner=f"{config.name} task 0", enabled=enabled, admin=admin,
                           validate_only=validate_only, broker_honours_validate_only=broker_honours_validate_only)
