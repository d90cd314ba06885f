"""The topic-creation dry run of a connector: `connectworker plan`, the herder and the REST plan.

Planning asks the connector's first task, as the running one would be asked, whether to adjust or veto
each new topic (`settings_for_new_topic`); dry-starting the connector and that task is `dry_start.py`,
the rest is `connectworker.topics.plan`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from connectworker.api.record import SourceRecord
from connectworker.api.topic_policy import CreateTopicPolicy
from connectworker.config.connector_config import ConnectorConfig
from connectworker.runtime.tasks.transform_chain import TransformationChain, TransformError
from connectworker.runtime.topic_creation.required_topics import planned_required_topics
from connectworker.runtime.topic_planning.dry_start import dry_started_hook
from connectworker.topics.admin import TopicAdmin
from connectworker.topics.plan import PlanEntry, plan_new_topics
from connectworker.transforms.side import with_topic

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
    samples: Sequence[SourceRecord] = (),
) -> list[PlanEntry]:
    """Plan each topic with the connector's rules and its first task's hook (the task dry-started over
    `committed`, the connector's offsets as the real run would read them); asks the broker which
    topics exist when `admin` is given (and, with `validate_only`, what it says of the settings).

    With transforms, `topics` are the names the connector emits: each is routed through the chain
    (a record with only that topic, at the time now; or each of `samples`, sample records, emitted to
    it) and the routed names are planned, as the worker would create them; `emitted` shows where each
    came from. The topics the connector requires (`SourceConnector.required_topics`) come first."""
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
        samples=samples,
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
    samples: Sequence[SourceRecord] = (),
) -> list[PlanEntry]:
    """The plan of the topics the connector's records go to."""
    names = list(dict.fromkeys(topics))
    routes = _routes(config, names, samples)
    planned = plan_new_topics(
        config.topic_rules,
        dict.fromkeys(t for _, t, _ in routes if t is not None),
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
    for name, routed, note in routes:
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


Route = tuple[str, str | None, str]
"""Where records emitted to a name go: the name, the topic after the chain (None: dropped), and a note on
how it was found."""


def _routes(config: ConnectorConfig, names: list[str], samples: Sequence[SourceRecord] = ()) -> list[Route]:
    """Each emitted name's routes, in order: one, or with `samples` one per topic the samples go to."""
    if not config.transforms.transforms:
        return [(name, name, "") for name in names]
    chain = TransformationChain.build(config.transforms)
    try:
        return [route for name in names for route in _sample_routes(chain, name, samples) or [_route(chain, name)]]
    finally:
        chain.close()


def _route(chain: TransformationChain, name: str) -> Route:
    try:
        record = chain.route(name)
    except TransformError as exc:  # the transform needs the record's data: cannot tell
        return name, name, f"routing unknown, the transforms need the record's data ({exc})"
    return (
        (name, record.topic, "")
        if record is not None
        else (name, None, "dropped by the transforms: nothing is produced")
    )


def _sample_routes(chain: TransformationChain, name: str, samples: Sequence[SourceRecord]) -> list[Route]:
    """Where each sample record emitted to `name` goes, a topic the samples share listed once (none
    without samples)."""
    by_topic: dict[str | None, list[str]] = {}
    for number, sample in enumerate(samples, 1):
        try:
            record = chain.apply(with_topic(sample, name))
        except TransformError as exc:
            by_topic.setdefault(name, []).append(f"the transforms fail on sample record {number}: {exc}")
            continue
        by_topic.setdefault(None if record is None else record.topic, []).append(f"sample record {number}")
    return [
        (name, topic, "; ".join(notes))
        if topic is not None
        else (name, None, f"{', '.join(notes)} dropped by the transforms: nothing is produced")
        for topic, notes in by_topic.items()
    ]
