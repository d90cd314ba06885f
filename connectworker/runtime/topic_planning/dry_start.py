"""A connector and its first task started for a dry run, with no side effect outside this process.

A dry run (`connectworker plan`, `GET /connectors/{name}/topics/plan`, topic drift) asks the connector's
first task, as the running one would be asked, whether to adjust or veto each new topic
(`settings_for_new_topic`). It must not touch what the connector reads or writes: a CDC task's `start`
creates a replication slot or takes a snapshot lock. So the connector and the task are started with
their `dry_start`, which promises to create, lock and write nothing; one that does not implement it (the
API's default refuses) is not started at all, and the plan goes on with the rules alone, saying why.

The task reads the committed offsets the real run would use (`committed`, keyed by canonical partition
JSON), so what it answers, and what it logs of what a real start would do, is true of the next run.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from connectworker.api.errors import DryRunUnsupported
from connectworker.config.connector_config import ConnectorConfig
from connectworker.runtime.connector_context import DetachedConnectorContext
from connectworker.runtime.topic_planning.plan_context import PlanTaskContext
from connectworker.topics.decisions import HookNotAsked, PlannedHook

log = logging.getLogger(__name__)

__all__ = ["dry_started_hook"]


@contextmanager
def dry_started_hook(config: ConnectorConfig, committed: Mapping[str, Any]) -> Iterator[PlannedHook]:
    """The `settings_for_new_topic` of the connector's first task, dry-started over `committed`, or why
    it could not be asked (`HookNotAsked`); the task, then the connector, are stopped on exit."""
    owner = f"{config.name} task 0"
    connector = config.connector_class()
    context = DetachedConnectorContext(config.name, "the dry run")
    connector.initialize(context)
    log.info(
        "Dry run: connector %s and its task 0 are dry-started (dry_start: nothing outside this process is "
        "created, locked or written) only to be asked settings_for_new_topic; nothing is polled, produced or "
        "committed",
        config.name,
    )
    try:
        connector.dry_start(config.props)
    except DryRunUnsupported as exc:  # refused before it started: nothing to stop
        yield _not_asked(owner, exc)
        return
    try:
        if context.error is not None:
            raise context.error
        task_configs = connector.task_configs(config.tasks_max) or [{}]
        task_props = {**config.props, **task_configs[0]}
        task = connector.task_class()()
        task.initialize(PlanTaskContext(task_props, committed))
        try:
            task.dry_start(task_props)
        except DryRunUnsupported as exc:  # refused before it started: nothing to stop
            yield _not_asked(owner, exc)
            return
        except BaseException:
            task.stop()
            raise
        try:
            yield task.settings_for_new_topic
        finally:
            task.stop()
    finally:
        connector.stop()


def _not_asked(owner: str, exc: DryRunUnsupported) -> HookNotAsked:
    log.info("Dry run: the settings_for_new_topic of %s is not asked: %s", owner, exc)
    return HookNotAsked(f"settings_for_new_topic of {owner} not asked ({exc}): the rule's settings")
