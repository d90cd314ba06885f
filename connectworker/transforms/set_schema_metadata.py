"""`SetSchemaMetadata$Key` / `SetSchemaMetadata$Value`: set the name and/or version of the key (or value)
schema.

Kafka's keys: `schema.name` (string) and `schema.version` (int), at least one of them, and
`replace.null.with.default` (boolean, default true; accepted for compatibility, as schemas here carry
no default values). The key (or value) itself is left as it is: struct values here are plain dicts
that do not point to their schema, so there is nothing to copy over. As in Kafka, a record whose key
(or value) and schema are both null passes unchanged, and one with data but no schema is a
`DataError`; a null value under a schema gets the updated schema.

Kafka fails on any schema but a struct ("Cannot list fields on non-struct type": it copies the field
list of every schema, which only a struct has, although its code goes on to handle array and map
schemas); here a schema of any type is updated, as that code evidently intends.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from connectworker.api.config_def import ConfigDef, ConfigType, Importance
from connectworker.api.errors import ConfigError, DataError
from connectworker.api.record import SourceRecord
from connectworker.api.transform import Transformation
from connectworker.transforms.null_defaults import REPLACE_NULL_WITH_DEFAULT_DEF
from connectworker.transforms.side import Side, schema_of, value_of, with_side

__all__ = ["SetSchemaMetadataKey", "SetSchemaMetadataValue"]

SCHEMA_NAME_CONFIG = "schema.name"
SCHEMA_VERSION_CONFIG = "schema.version"
PURPOSE = "updating schema metadata"


class SetSchemaMetadata(Transformation):
    """Shared by the `$Key` and `$Value` variants; `_side` says which half of the record they change."""

    _side: Side

    def __init__(self) -> None:
        self._name: str | None = None
        self._version: int | None = None

    def config_def(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(
                SCHEMA_NAME_CONFIG,
                ConfigType.STRING,
                None,
                importance=Importance.HIGH,
                documentation="Schema name to set.",
            )
            .define(
                SCHEMA_VERSION_CONFIG,
                ConfigType.INT,
                None,
                importance=Importance.HIGH,
                documentation="Schema version to set.",
            )
            .merge(REPLACE_NULL_WITH_DEFAULT_DEF)
        )

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        self._name = config[SCHEMA_NAME_CONFIG]
        self._version = config[SCHEMA_VERSION_CONFIG]
        if self._name is None and self._version is None:
            raise ConfigError(
                f"Neither schema name nor version configured: set {SCHEMA_NAME_CONFIG}, {SCHEMA_VERSION_CONFIG} or both"
            )

    def apply(self, record: SourceRecord) -> SourceRecord:
        schema, value = schema_of(record, self._side), value_of(record, self._side)
        if schema is None:
            if value is None:
                return record
            raise DataError(
                f"Schema required for [{PURPOSE}] (record {self._side.value} on topic {record.topic!r} has none)"
            )
        updated = dataclasses.replace(
            schema,
            name=self._name if self._name is not None else schema.name,
            version=self._version if self._version is not None else schema.version,
        )
        return with_side(record, self._side, value, updated)


class SetSchemaMetadataKey(SetSchemaMetadata):
    """Sets the name and/or version of the record key schema (Kafka's `SetSchemaMetadata$Key`)."""

    _side = Side.KEY


class SetSchemaMetadataValue(SetSchemaMetadata):
    """Sets the name and/or version of the record value schema (Kafka's `SetSchemaMetadata$Value`)."""

    _side = Side.VALUE
