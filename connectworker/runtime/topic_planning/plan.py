"""The topic-creation dry run of a connector: `connectworker plan`, the herder and the REST plan.

Planning asks the connector's first task, as the running one would be asked, whether to adjust or veto
each new topic (`settings_for_new_topic`); dry-starting the connector and that task is `dry_start.py`,
the rest is `connectworker.topics.plan`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from connectworker.api.topic_policy import CreateTopicPolicy
from connectworker.config.connector_config import ConnectorConfig
from connectworker.runtime.tasks.transform_chain import TransformationChain, TransformError
from connectworker.runtime.topic_creation.required_topics import planned_required_topics
from connectworker.runtime.topic_planning.dry_start import dry_started_hook
from connectworker.topics.admin import TopicAdmin
from connectworker.topics.plan import PlanEntry, plan_new_topics

log = logging.getLogger(__name__)


def plan_topics(
    config: ConnectorConfig,
    topics: Iterable[str],
    *,
    enabled: bool,
    committed: Mapping[str, Any],
    admin: TopicAdmin | None = None,
    validate_only: bool = False,
    broker_honours_validate_only: bool = True,
    policy: CreateTopicPolicy | None = None,
) -> list[PlanEntry]:
    """Plan each topic with the connector's rules and its first task's hook (the task dry-started over
    `committed`, the connector's offsets as the real run would read them); asks the broker which
    topics exist when `admin` is given (and, with `validate_only`, what it says of the settings).

    With transforms, `topics` are the names the connector emits: each is routed through the chain
    (a record with only that topic, at the time now) and the routed name is planned, as the worker
    would create it; `emitted` shows where it came from. The topics the connector requires
    (`SourceConnector.required_topics`) come first."""
    required = planned_required_topics(config.name, config.connector_class().required_topics(config.props), admin)
    return required + _planned_records_topics(
        config,
        topics,
        enabled=enabled,
        committed=committed,
        admin=admin,
        validate_only=validate_only,
        broker_honours_validate_only=broker_honours_validate_only,
        policy=policy,
    )


def _planned_records_topics(
    config: ConnectorConfig,
    topics: Iterable[str],
    *,
    enabled: bool,
    committed: Mapping[str, Any],
    admin: TopicAdmin | None,
    validate_only: bool,
    broker_honours_validate_only: bool,
    policy: CreateTopicPolicy | None,
) -> list[PlanEntry]:
    """The plan of the topics the connector's records go to."""
    names = list(dict.fromkeys(topics))
    routes = _routes(config, names)
    planned = plan_new_topics(
        config.topic_rules,
        dict.fromkeys(t for t, _ in routes.values() if t is not None),
        lambda: dry_started_hook(config, committed),
        hook_owner=f"{config.name} task 0",
        enabled=enabled,
        admin=admin,
        validate_only=validate_only,
        broker_honours_validate_only=broker_honours_validate_only,
        policy=policy,
    )
    if not config.transforms.transforms:
        return planned
    by_topic = {entry.topic: entry for entry in planned}
    entries = []
    for name in names:
        routed, note = routes[name]
        if routed is None:
            entries.append(
                PlanEntry(
                    topic=name,
                    emitted=name,
                    create=False,
                    rule=None,
                    partitions=None,
                    replication_factor=None,
                    configs={},
                    reason=note,
                )
            )
            continue
        entry = by_topic[routed].model_copy(update={"emitted": name})
        entries.append(entry if not note else entry.model_copy(update={"reason": f"{entry.reason}; {note}"}))
    return entries


def _routes(config: ConnectorConfig, names: list[str]) -> dict[str, tuple[str | None, str]]:
    """Each emitted name -> (the topic after the chain or None if dropped, a note on how it was found)."""
    if not config.transforms.transforms:
        return {name: (name, "") for name in names}
    chain = TransformationChain.build(config.transforms)
    try:
        routes: dict[str, tuple[str | None, str]] = {}
        for name in names:
            try:
                record = chain.route(name)
            except TransformError as exc:  # the transform needs the record's data: cannot tell
                routes[name] = (name, f"routing unknown, the transforms need the record's data ({exc})")
                continue
            routes[name] = (
                (record.topic, "") if record is not None else (None, "dropped by the transforms: nothing is produced")
            )
        return routes
    finally:
        chain.close()
