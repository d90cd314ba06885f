"""`ReplaceField$Key` / `ReplaceField$Value`: keep, drop and rename the fields of the key (or value).

Kafka's keys: `exclude` (fields to drop; it wins over `include`), `include` (if not empty, the only
fields kept), `renames` (``old:new`` pairs) and `replace.null.with.default` (boolean, default true);
all lists default to empty. The deprecated `blacklist` and `whitelist` (Kafka 2.7 to 3.x) are read as
`exclude` and `include` when those are absent, with a warning; when both are given, the new key wins
and the old one is ignored, as in Kafka.

Fields keep their order. A null key (or value) passes unchanged. With a schema the struct gets a
rebuilt schema (same name, version and doc; as Kafka's, it is not optional), and two fields that end
up with the same name are a `DataError`; schemaless, the later one wins. `replace.null.with.default`
is accepted for compatibility: schemas here carry no default values.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance
from connectworker.api.errors import DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Field, Schema, SchemaType
from connectworker.api.transform import Transformation
from connectworker.converters.encoding import SchemaCache
from connectworker.transforms.null_defaults import REPLACE_NULL_WITH_DEFAULT_DEF
from connectworker.transforms.side import Side, require_map, require_struct, schema_of, value_of, with_side

__all__ = ["ReplaceFieldKey", "ReplaceFieldValue", "parse_renames"]

log = logging.getLogger(__name__)

EXCLUDE_CONFIG = "exclude"
INCLUDE_CONFIG = "include"
RENAMES_CONFIG = "renames"
_DEPRECATED = {EXCLUDE_CONFIG: "blacklist", INCLUDE_CONFIG: "whitelist"}
PURPOSE = "field replacement"


def parse_renames(mappings: list[str]) -> dict[str, str]:
    """``old:new`` pairs as a dict (a later pair for the same field wins); ValueError for any other shape.

    Split as Java's `String.split(":")` splits, which drops trailing empty parts: ``:b`` renames the
    field named "" and ``a:`` is invalid."""
    renames: dict[str, str] = {}
    for mapping in mappings:
        parts = mapping.split(":")
        while parts and not parts[-1]:
            parts.pop()
        if len(parts) != 2:
            raise ValueError(f"Invalid rename mapping: {mapping} (expected old:new, e.g. foo:bar,abc:xyz)")
        renames[parts[0]] = parts[1]
    return renames


def _valid_renames(key: str, value: Any) -> None:
    parse_renames(value or [])


class ReplaceField(Transformation):
    """Shared by the `$Key` and `$Value` variants; `_side` says which half of the record they change."""

    _side: Side

    def __init__(self) -> None:
        self._exclude: frozenset[str] = frozenset()
        self._include: frozenset[str] = frozenset()
        self._renames: dict[str, str] = {}
        self._schemas: SchemaCache[Schema] = SchemaCache(self._updated_schema, max_size=16)

    def config_def(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(
                EXCLUDE_CONFIG,
                ConfigType.LIST,
                "",
                importance=Importance.MEDIUM,
                documentation="Fields to exclude. This takes precedence over the fields to include.",
            )
            .define(
                _DEPRECATED[EXCLUDE_CONFIG],
                ConfigType.LIST,
                None,
                importance=Importance.LOW,
                documentation=f"Deprecated. Use {EXCLUDE_CONFIG} instead.",
            )
            .define(
                INCLUDE_CONFIG,
                ConfigType.LIST,
                "",
                importance=Importance.MEDIUM,
                documentation="Fields to include. If specified, only these fields will be used.",
            )
            .define(
                _DEPRECATED[INCLUDE_CONFIG],
                ConfigType.LIST,
                None,
                importance=Importance.LOW,
                documentation=f"Deprecated. Use {INCLUDE_CONFIG} instead.",
            )
            .define(
                RENAMES_CONFIG,
                ConfigType.LIST,
                "",
                validator=_valid_renames,
                importance=Importance.MEDIUM,
                documentation="Field rename mappings: colon-delimited pairs, e.g. foo:bar,abc:xyz.",
            )
            .merge(REPLACE_NULL_WITH_DEFAULT_DEF)
        )

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        self._exclude = frozenset(self._list(props, config, EXCLUDE_CONFIG))
        self._include = frozenset(self._list(props, config, INCLUDE_CONFIG))
        self._renames = parse_renames(config[RENAMES_CONFIG])
        self._schemas = SchemaCache(self._updated_schema, max_size=16)

    @staticmethod
    def _list(props: Mapping[str, str], config: dict[str, Any], key: str) -> list[str]:
        """`key`'s list, or its deprecated alias's when only the alias is given."""
        old = _DEPRECATED[key]
        if old not in props:
            return list(config[key])
        if key in props:
            log.error("%s was configured, as well as the deprecated alias %s. Using the value of %s", key, old, key)
            return list(config[key])
        log.warning(
            "Configuration key %s is deprecated and may be removed in the future. Please update your "
            "configuration to use %s instead.",
            old,
            key,
        )
        return list(config[old] or [])

    def _kept(self, name: str) -> bool:
        return name not in self._exclude and (not self._include or name in self._include)

    def apply_to_copy(self, record: SourceRecord) -> SourceRecord:
        """`apply`, writing into `record`, a copy the transform chain owns: saves a record per step."""
        value = record.value
        if (
            self._side is Side.VALUE
            and record.value_schema is None
            and isinstance(value, dict)
            and not self._include
            and not self._renames
        ):
            updated = dict(value)  # copying, then dropping the few excluded keys, beats filtering every key
            for name in self._exclude:
                updated.pop(name, None)
            record.value = updated
            return record
        return self.apply(record)

    def apply(self, record: SourceRecord) -> SourceRecord:
        if value_of(record, self._side) is None:
            return record
        if schema_of(record, self._side) is None:
            value = require_map(record, self._side, PURPOSE)
            exclude, include, renames = self._exclude, self._include, self._renames
            if not include and not renames:  # the common case, kept cheap: it runs for every record
                updated = {name: field for name, field in value.items() if name not in exclude}
            else:
                updated = {
                    renames.get(name, name): field
                    for name, field in value.items()
                    if name not in exclude and (not include or name in include)
                }
            return with_side(record, self._side, updated, None)
        struct, schema = require_struct(record, self._side, PURPOSE)
        new_schema = self._schemas.get(schema)
        updated = {
            self._renames.get(field.name, field.name): struct.get(field.name)
            for field in schema.fields
            if self._kept(field.name)
        }
        return with_side(record, self._side, updated, new_schema)

    def _updated_schema(self, schema: Schema) -> Schema:
        fields: list[Field] = []
        for field in schema.fields:
            if not self._kept(field.name):
                continue
            name = self._renames.get(field.name, field.name)
            if any(kept.name == name for kept in fields):
                raise DataError(
                    f"Cannot create field because of field name duplication {name} (two fields "
                    f"of the {schema.name or 'unnamed'} struct are named so after {RENAMES_CONFIG})"
                )
            fields.append(Field(name, field.schema))
        # Kafka copies the name, version and doc onto a new struct builder, which leaves it required.
        return Schema(SchemaType.STRUCT, name=schema.name, version=schema.version, doc=schema.doc, fields=tuple(fields))


class ReplaceFieldKey(ReplaceField):
    """Filters and renames the fields of the record key (Kafka's `ReplaceField$Key`)."""

    _side = Side.KEY


class ReplaceFieldValue(ReplaceField):
    """Filters and renames the fields of the record value (Kafka's `ReplaceField$Value`)."""

    _side = Side.VALUE
