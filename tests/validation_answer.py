"""What `PUT /connector-plugins/{class}/config/validate` answers, without a server: the herder's
validation in the REST API's shape."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connectworker.rest.config_infos import config_infos
from connectworker.rest.models import ConfigInfos
from connectworker.runtime.herder.validation import validate_connector_config


def validated(class_name: str, props: Mapping[str, str], **options: Any) -> ConfigInfos:
    return config_infos(validate_connector_config(class_name, props, **options))
