"""Config declarations and validation results in Kafka's `ConfigKeyInfo` / `ConfigInfos` shapes.

Validation goes through `validate_connector`, which also reports each `topic.creation.<group>.*`
problem against its own key (Kafka's validate endpoint misses per-group problems).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connectworker.api.config_def import NO_DEFAULT, ConfigKey, ConfigType, config_text
from connectworker.config.connector_config import validate_connector
from connectworker.rest.models import ConfigInfo, ConfigInfos, ConfigKeyInfo, ConfigValueInfo
from connectworker.runtime.secrets import HIDDEN, connector_class_of, declared_passwords, is_secret_key, scrub


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
        name=key.name, type=key.type.value, required=key.required, default_value=default,
        importance=key.importance.value, documentation=key.documentation, group=key.group,
        order=key.order_in_group, width=key.width, display_name=key.display_name or key.name,
        dependents=list(key.dependents))


def validate(class_name: str, props: Mapping[str, str], *, exactly_once_worker: bool | None = None) -> ConfigInfos:
    """Every declared key's outcome, secrets hidden; `class_name` names the result."""
    reports = validate_connector(props, exactly_once_worker=exactly_once_worker)
    passwords = declared_passwords(connector_class_of(props)) | {
        name for name, r in reports.items() if r.definition.type is ConfigType.PASSWORD}
    configs: list[ConfigInfo] = []
    groups: list[str] = []
    for name, report in reports.items():
        group = report.definition.group
        if group and group not in groups:
            groups.append(group)
        secret = is_secret_key(name, passwords)
        value = config_string(report.value.value)
        configs.append(ConfigInfo(definition=key_info(report.definition), value=ConfigValueInfo(
            name=name, value=HIDDEN if secret and value is not None else value,
            recommended_values=[str(v) for v in report.value.recommended_values],
            errors=[scrub(e, props.get(name)) if secret else e for e in report.value.errors],
            visible=report.value.visible)))
    error_count = sum(len(c.value.errors) for c in configs)
    return ConfigInfos(name=class_name, error_count=error_count, groups=groups, configs=configs)

