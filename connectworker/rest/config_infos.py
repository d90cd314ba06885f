"""The herder's validation and a plugin's config declarations in Kafka's `ConfigInfos` /
`ConfigKeyInfo` shapes."""

from __future__ import annotations

from connectworker.api.config_def import ConfigKey
from connectworker.rest.models import ConfigInfo, ConfigInfos, ConfigKeyInfo, ConfigValueInfo
from connectworker.runtime.herder.values import Validation, shown_default


def key_info(key: ConfigKey) -> ConfigKeyInfo:
    return ConfigKeyInfo(
        name=key.name,
        type=key.type.value,
        required=key.required,
        default_value=shown_default(key),
        importance=key.importance.value,
        documentation=key.documentation,
        group=key.group,
        order=key.order_in_group,
        width=key.width,
        display_name=key.display_name or key.name,
        dependents=list(key.dependents),
    )


def config_infos(validation: Validation) -> ConfigInfos:
    configs = [
        ConfigInfo(
            definition=key_info(key.definition),
            value=ConfigValueInfo(
                name=key.name,
                value=key.value,
                recommended_values=key.recommended_values,
                errors=key.errors,
                visible=key.visible,
            ),
        )
        for key in validation.keys
    ]
    return ConfigInfos(
        name=validation.name, error_count=validation.error_count, groups=validation.groups, configs=configs
    )
