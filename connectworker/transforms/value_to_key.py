"""`ValueToKey`: the record key becomes a struct (or, schemaless, a map) of some of the value's fields.

Kafka's keys: `fields` (required, non-empty list) and `replace.null.with.default` (boolean, default true).
The value is left as it is. With a schema, the key schema is an unnamed, required struct whose fields take
the value's field schemas, and a field the value schema lacks is an error; without one, a missing field
becomes a null entry of the key, as Kafka's does.
"""

from __future__ import annotations

from collections.abc import Mapping

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, non_empty_list
from connectworker.api.errors import DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Schema
from connectworker.api.transform import Transformation
from connectworker.converters.encoding import SchemaCache
from connectworker.transforms.null_defaults import REPLACE_NULL_WITH_DEFAULT_DEF
from connectworker.transforms.side import Side, require_map, require_struct, with_side

__all__ = ["ValueToKey"]

FIELDS_CONFIG = "fields"
PURPOSE = "copying fields from value to key"


class ValueToKey(Transformation):
    """Replace the record key with a new key formed from a subset of fields in the record value."""

    def __init__(self) -> None:
        self._fields: list[str] = []
        self._key_schemas: SchemaCache[Schema] = SchemaCache(self._key_schema, max_size=16)

    def config_def(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(
                FIELDS_CONFIG,
                ConfigType.LIST,
                validator=non_empty_list,
                importance=Importance.HIGH,
                documentation="Field names on the record value to extract as the record key.",
            )
            .merge(REPLACE_NULL_WITH_DEFAULT_DEF)
        )

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        self._fields = list(config[FIELDS_CONFIG])
        self._key_schemas = SchemaCache(self._key_schema, max_size=16)

    def apply(self, record: SourceRecord) -> SourceRecord:
        if record.value_schema is None:
            value = require_map(record, Side.VALUE, PURPOSE)
            return with_side(record, Side.KEY, {name: value.get(name) for name in self._fields}, None)
        struct, schema = require_struct(record, Side.VALUE, PURPOSE)
        key_schema = self._key_schemas.get(schema)
        return with_side(record, Side.KEY, {name: struct.get(name) for name in self._fields}, key_schema)

    def _key_schema(self, value_schema: Schema) -> Schema:
        by_name = {field.name: field.schema for field in value_schema.fields}
        fields: list[tuple[str, Schema]] = []
        for name in self._fields:
            if name not in by_name:
                raise DataError(f"Field does not exist: {name}")
            if any(existing == name for existing, _ in fields):
                raise DataError(f"Cannot create field because of field name duplication {name}")
            fields.append((name, by_name[name]))
        return Schema.struct(None, *fields)
