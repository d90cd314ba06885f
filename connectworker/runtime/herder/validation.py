"""Validating a connector config, the herder's answer to `PUT /connector-plugins/{class}/config/validate`
(Kafka's `validateConnectorConfig`).

One reading of the config (`read_connector_config`), which also reports each `topic.creation.<group>.*`
problem against its own key (Kafka's validate endpoint misses per-group problems); the create-topic
policy judges the rules that reading typed. Secret values, and the errors that may quote them, are
hidden in the answer.
"""

from __future__ import annotations

from collections.abc import Mapping

from connectworker.api.config_def import NO_DEFAULT, ConfigType, config_text
from connectworker.api.topic_policy import CreateTopicPolicy
from connectworker.config.connector_keys import KeyReport
from connectworker.config.connector_reading import read_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.herder.values import HIDDEN, ValidatedKey, Validation
from connectworker.runtime.observability.secrets import declared_passwords, is_secret_key, scrub
from connectworker.topics.policy import rule_violations
from connectworker.topics.rules import TopicCreationRules


def validate_connector_config(
    class_name: str,
    props: Mapping[str, str],
    *,
    policy: CreateTopicPolicy | None = None,
    worker: WorkerConfig | None = None,
) -> Validation:
    """Every declared key's outcome, secrets hidden; `class_name` names the result. With the worker's
    create-topic `policy`, the topics the rules name literally are judged too (against the rule's include);
    with the `worker`, the client overrides are judged by its override policy and the exactly-once keys
    against its `exactly.once.source.support`."""
    reading = read_connector_config(props, worker=worker)
    reports = reading.reports
    rules = reading.topic_creation.rules
    if policy is not None and rules is not None:  # rules with problems are reported already
        _policy_errors(policy, rules, reports)
    passwords = declared_passwords(reading.connector_class) | {
        name for name, r in reports.items() if r.definition.type is ConfigType.PASSWORD
    }
    keys: list[ValidatedKey] = []
    groups: list[str] = []
    for name, report in reports.items():
        group = report.definition.group
        if group and group not in groups:
            groups.append(group)
        secret = is_secret_key(name, passwords)
        value = report.value.value
        if value is None and report.value.errors:  # a key refused without a typed value: as the user set it
            value = props.get(name)
        shown = None if value is None or value is NO_DEFAULT else config_text(value)
        keys.append(
            ValidatedKey(
                name,
                report.definition,
                HIDDEN if secret and shown is not None else shown,
                [str(v) for v in report.value.recommended_values],
                [scrub(e, props.get(name)) if secret else e for e in report.value.errors],
                report.value.visible,
            )
        )
    return Validation(class_name, keys, groups)


def _policy_errors(policy: CreateTopicPolicy, rules: TopicCreationRules, reports: Mapping[str, KeyReport]) -> None:
    for rule, violations in rule_violations(policy, rules).items():
        keys = [k for k in reports if k.startswith(f"topic.creation.{rule}.")]
        target = next((k for k in keys if k.endswith("include")), keys[0] if keys else None)
        if target is not None:
            reports[target].value.errors.extend(violations)
