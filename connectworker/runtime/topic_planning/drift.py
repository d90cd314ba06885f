"""Drift of a connector's existing topics from its rules: `connectworker topics drift` and
`GET /connectors/{name}/topics/drift`.

What a rule wants is decided as for a new topic: the rule, then the hook of a dry-started instance of the
connector's first task (as `plan` does), then the worker's policy. The comparison is
`connectworker.topics.drift`; here the topics are described and, when asked, fixed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from connectworker.api.topic_policy import CreateTopicPolicy
from connectworker.config.connector_config import ConnectorConfig
from connectworker.runtime.topic_creation.required_topics import REQUIRED_RULE, required_drift
from connectworker.runtime.topic_planning.dry_start import dry_started_hook
from connectworker.topics.admin import TopicAdmin
from connectworker.topics.decisions import HookNotAsked, TopicCreationError, decide
from connectworker.topics.drift import TopicDrift, compare
from connectworker.topics.names import validate_topic_name

__all__ = ["apply_fixes", "drift_report"]


def drift_report(
    config: ConnectorConfig,
    topics: Iterable[str],
    *,
    admin: TopicAdmin,
    committed: Mapping[str, Any],
    policy: CreateTopicPolicy | None = None,
) -> list[TopicDrift]:
    """Each topic compared with what the connector's rule would create now; the topics the connector
    requires (always in the report) with the settings it requires. The first task's hook is asked of a
    dry-started instance over `committed` (the connector's offsets)."""
    required = {r.name: r for r in config.connector_class().required_topics(config.props)}
    names = sorted(set(topics) | set(required))
    invalid = {name: why for name in names if (why := validate_topic_name(name))}
    states = admin.describe_states([name for name in names if name not in invalid])
    report = []
    with dry_started_hook(config, committed) as planned:
        hook = None if isinstance(planned, HookNotAsked) else planned
        for topic in names:
            if topic in invalid:
                report.append(TopicDrift(topic, note=f"not compared: invalid topic name: {invalid[topic]}"))
                continue
            state = states[topic]
            if topic in required:  # compared with what the connector requires, not with a rule
                report.append(
                    required_drift(required[topic], state)
                    if state is not None
                    else TopicDrift(
                        topic, REQUIRED_RULE, note="does not exist; created before the connector's tasks start"
                    )
                )
                continue
            if state is None:
                report.append(TopicDrift(topic, note="does not exist; the worker creates it by its rule on first use"))
                continue
            try:
                decision = decide(config.topic_rules, topic, hook, f"{config.name} task 0", policy)
            except TopicCreationError as exc:
                report.append(TopicDrift(topic, note=f"not compared: {exc}"))
                continue
            if decision.settings is None:
                report.append(TopicDrift(topic, decision.rule, note=f"not managed: {decision.reason}"))
                continue
            drift = compare(state, decision.settings, decision.rule)
            if isinstance(planned, HookNotAsked):
                drift.note = planned.why
            report.append(drift)
    return report


def apply_fixes(admin: TopicAdmin, report: Sequence[TopicDrift]) -> list[str]:
    """Fix what can be fixed in place: partitions added (CreatePartitions), configs set
    (IncrementalAlterConfigs). Both requests are first sent with `validate_only`, so a broker that does
    not support one (`UnsupportedCallError`) or refuses a change stops this before anything changed.
    Returns one line per change made."""
    totals = {d.topic: int(f.wanted) for d in report for f in d.fixable if f.what == "partitions"}
    configs = {d.topic: {f.what: f.wanted for f in d.fixable if f.what != "partitions"} for d in report}
    configs = {topic: values for topic, values in configs.items() if values}
    admin.add_partitions(totals, validate_only=True)
    admin.set_configs(configs, validate_only=True)
    admin.add_partitions(totals)
    admin.set_configs(configs)
    return [f"{topic}: partitions increased to {total}" for topic, total in sorted(totals.items())] + [
        f"{topic}: set {', '.join(f'{k}={v}' for k, v in sorted(values.items()))}"
        for topic, values in sorted(configs.items())
    ]
