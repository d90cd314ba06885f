"""Config declarations and validation results in Kafka's `ConfigKeyInfo` / `ConfigInfos` shapes.

Validation is one reading of the config (`read_connector_config`), which also reports each
`topic.creation.<group>.*` problem against its own key (Kafka's validate endpoint misses per-group
problems); the create-topic policy judges the rules that reading typed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connectworker.api.config_def import NO_DEFAULT, ConfigKey, ConfigType, config_text
from connectworker.api.topic_policy import CreateTopicPolicy
from connectworker.config.connector_keys import KeyReport
from connectworker.config.connector_reading import read_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.rest.models import ConfigInfo, ConfigInfos, ConfigKeyInfo, ConfigValueInfo
from connectworker.runtime.observability.secrets import (
    HIDDEN,
    declared_passwords,
    is_secret_key,
    scrub,
)
from connectworker.topics.policy import rule_violations
from connectworker.topics.rules import TopicCreationRules


def config_string(value: Any) -> str | None:
    """A typed config value written the way a properties file would hold it."""
    if value is None or value is NO_DEFAULT:
        return None
    return config_text(value)


def key_info(key: ConfigKey) -> ConfigKeyInfo:
    default = config_string(key.default)
    if key.type is ConfigType.PASSWORD and default is not None:
        default = HIDDEN
    return ConfigKeyInfo(
        name=key.name,
        type=key.type.value,
        required=key.required,
        default_value=default,
        importance=key.importance.value,
        documentation=key.documentation,
        group=key.group,
        order=key.order_in_group,
        width=key.width,
        display_name=key.display_name or key.name,
        dependents=list(key.dependents),
    )


def _policy_errors(policy: CreateTopicPolicy, rules: TopicCreationRules, reports: Mapping[str, KeyReport]) -> None:
    for rule, violations in rule_violations(policy, rules).items():
        keys = [k for k in reports if k.startswith(f"topic.creation.{rule}.")]
        target = next((k for k in keys if k.endswith("include")), keys[0] if keys else None)
        if target is not None:
            reports[target].value.errors.extend(violations)


def validate(
    class_name: str,
    props: Mapping[str, str],
    *,
    policy: CreateTopicPolicy | None = None,
    worker: WorkerConfig | None = None,
) -> ConfigInfos:
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
    configs: list[ConfigInfo] = []
    groups: list[str] = []
    for name, report in reports.items():
        group = report.definition.group
        if group and group not in groups:
            groups.append(group)
        secret = is_secret_key(name, passwords)
        value = config_string(report.value.value)
        configs.append(
            ConfigInfo(
                definition=key_info(report.definition),
                value=ConfigValueInfo(
                    name=name,
                    value=HIDDEN if secret and value is not None else value,
                    recommended_values=[str(v) for v in report.value.recommended_values],
                    errors=[scrub(e, props.get(name)) if secret else e for e in report.value.errors],
                    visible=report.value.visible,
                ),
            )
        )
    error_count = sum(len(c.value.errors) for c in configs)
    return ConfigInfos(name=class_name, error_count=error_count, groups=groups, configs=configs)
