"""`replace.null.with.default`, the key Kafka's field transforms share (KIP-581): whether a null field
that has a default value takes that default. Accepted for compatibility; schemas here carry no default
values, so it changes nothing."""

from __future__ import annotations

from connectworker.api.config_def import ConfigDef, ConfigType, Importance

__all__ = ["REPLACE_NULL_WITH_DEFAULT_CONFIG", "REPLACE_NULL_WITH_DEFAULT_DEF"]

REPLACE_NULL_WITH_DEFAULT_CONFIG = "replace.null.with.default"
REPLACE_NULL_WITH_DEFAULT_DEF = ConfigDef().define(
    REPLACE_NULL_WITH_DEFAULT_CONFIG,
    ConfigType.BOOLEAN,
    True,
    importance=Importance.MEDIUM,
    documentation="Whether a null field that has a default value takes that default. "
    "Accepted for compatibility: schemas here carry no default values.",
)
