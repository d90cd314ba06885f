"""Config declarations and validation results in Kafka's `ConfigKeyInfo` / `ConfigInfos` shapes.

Validation goes through `validate_connector`, which also reports each `topic.creation.<group>.*`
problem against its own key (Kafka's validate endpoint misses per-group problems).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connectworker.api.config_def import NO_DEFAULT, ConfigKey, ConfigType, config_text
from connectworker.api.errors import ConfigError
from connectworker.api.topic_policy import CreateTopicPolicy
from connectworker.config.connector_config import KeyReport, validate_connector
from connectworker.config.worker_config import WorkerConfig
from connectworker.rest.models import ConfigInfo, ConfigInfos, ConfigKeyInfo, ConfigValueInfo
from connectworker.runtime.observability.secrets import (
    HIDDEN,
    connector_class_of,
    declared_passwords,
    is_secret_key,
    scrub,
)
from connectworker.topics.policy import rule_violations
from connectworker.topics.rule_parser import parse_topic_creation


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


def _policy_errors(policy: CreateTopicPolicy, props: Mapping[str, str], reports: Mapping[str, KeyReport]) -> None:
    try:
        rules = parse_topic_creation(props)
    except ConfigError:  # the rules' own problems are reported already
        return
    for rule, violations in rule_violations(policy, rules).items():
        keys = [k for k in reports if k.startswith(f"topic.creation.{rule}.")]
        target = next((k for k in keys if k.endswith("include")), keys[0] if keys else None)
        if target is not None:
            reports[target].value.errors.extend(violations)


def validate(
    class_name: str,
    props: Mapping[str, str],
    *,
    exactly_once_worker: bool | None = None,
    policy: CreateTopicPolicy | None = None,
    worker: WorkerConfig | None = None,
) -> ConfigInfos:
    """Every declared key's outcome, secrets hidden; `class_name` names the result. With the worker's
    create-topic `policy`, the topics the rules name literally are judged too (against the rule's include);
    with the `worker`, the client overrides are judged by its override policy."""
    reports = validate_connector(props, exactly_once_worker=exactly_once_worker, worker=worker)
    if policy is not None:
        _policy_errors(policy, props, reports)
    passwords = declared_passwords(connector_class_of(props)) | {
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
