"""`InsertField$Key` / `InsertField$Value`: add fields holding the record's topic, partition, timestamp
or a fixed string to the key (or value).

Kafka's keys, each naming the field to insert, none by default: `topic.field`, `partition.field`,
`offset.field`, `timestamp.field` and `static.field` (whose value is `static.value`); and
`replace.null.with.default` (boolean, default true). A field name ending in ``!`` makes the inserted
field required in the schema, one ending in ``?`` (or neither) optional. As in Kafka:

- at least one field must be configured, and `static.field` needs `static.value`;
- a null key (or value), a tombstone, passes unchanged;
- schemaless, the fields go into a copy of the map (replacing entries of the same name), the timestamp
  as milliseconds since the epoch; the partition and timestamp are left out when the record has none;
- with a schema, the struct gets a new schema: the old fields, then topic (string), partition (int32),
  offset (int64), timestamp (Kafka's Timestamp logical type, a UTC `datetime` value) and the static
  field (string). It keeps the schema's name, version and doc but, as Kafka's, is not optional. A
  field name the struct already has is a `DataError`.

`offset.field` is refused when the transform is configured: Kafka only knows a record's offset in a
sink connector, and fails on every non-null source record that asks for it. This worker runs source
connectors only. `replace.null.with.default` is accepted for compatibility; schemas here carry no
default values, so a null field stays null either way.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance
from connectworker.api.errors import ConfigError, DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Field, Schema, SchemaType
from connectworker.api.transform import Transformation
from connectworker.converters import logical
from connectworker.converters.encoding import SchemaCache
from connectworker.transforms.null_defaults import REPLACE_NULL_WITH_DEFAULT_DEF
from connectworker.transforms.side import Side, require_map, require_struct, schema_of, value_of, with_side

__all__ = ["InsertFieldKey", "InsertFieldValue"]

TOPIC_FIELD_CONFIG = "topic.field"
PARTITION_FIELD_CONFIG = "partition.field"
OFFSET_FIELD_CONFIG = "offset.field"
TIMESTAMP_FIELD_CONFIG = "timestamp.field"
STATIC_FIELD_CONFIG = "static.field"
STATIC_VALUE_CONFIG = "static.value"
PURPOSE = "field insertion"

_OPTIONALITY_DOC = " Suffix with ! to make this a required field, or ? to keep it optional (the default)."


@dataclass(frozen=True, slots=True)
class _Insertion:
    name: str
    optional: bool

    @staticmethod
    def parse(key: str, spec: str | None) -> _Insertion | None:
        if spec is None:
            return None
        name, optional = (spec[:-1], spec.endswith("?")) if spec.endswith(("?", "!")) else (spec, True)
        if not name:
            raise ConfigError({key: f"Invalid value {spec!r}: the field name is empty"})
        return _Insertion(name, optional)


def _not_for_source_records(key: str, value: Any) -> None:
    if value is not None:
        raise ValueError(
            "a record's Kafka offset is only known to sink connectors, and this worker runs source "
            "connectors (Kafka fails every non-null source record with 'Only SinkRecord supported "
            "for [field insertion]'); remove offset.field"
        )


class InsertField(Transformation):
    """Shared by the `$Key` and `$Value` variants; `_side` says which half of the record they change."""

    _side: Side

    def __init__(self) -> None:
        self._topic: _Insertion | None = None
        self._partition: _Insertion | None = None
        self._timestamp: _Insertion | None = None
        self._static: _Insertion | None = None
        self._static_value: str | None = None
        self._schemas: SchemaCache[Schema] = SchemaCache(self._updated_schema, max_size=16)

    def config_def(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(
                TOPIC_FIELD_CONFIG,
                ConfigType.STRING,
                None,
                importance=Importance.MEDIUM,
                documentation="Field name for Kafka topic." + _OPTIONALITY_DOC,
            )
            .define(
                PARTITION_FIELD_CONFIG,
                ConfigType.STRING,
                None,
                importance=Importance.MEDIUM,
                documentation="Field name for Kafka partition." + _OPTIONALITY_DOC,
            )
            .define(
                OFFSET_FIELD_CONFIG,
                ConfigType.STRING,
                None,
                validator=_not_for_source_records,
                importance=Importance.MEDIUM,
                documentation="Field name for Kafka offset - only applicable to sink connectors, so refused here.",
            )
            .define(
                TIMESTAMP_FIELD_CONFIG,
                ConfigType.STRING,
                None,
                importance=Importance.MEDIUM,
                documentation="Field name for record timestamp." + _OPTIONALITY_DOC,
            )
            .define(
                STATIC_FIELD_CONFIG,
                ConfigType.STRING,
                None,
                importance=Importance.MEDIUM,
                documentation="Field name for static data field." + _OPTIONALITY_DOC,
            )
            .define(
                STATIC_VALUE_CONFIG,
                ConfigType.STRING,
                None,
                importance=Importance.MEDIUM,
                documentation="Static field value, if field name configured.",
            )
            .merge(REPLACE_NULL_WITH_DEFAULT_DEF)
        )

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        self._topic = _Insertion.parse(TOPIC_FIELD_CONFIG, config[TOPIC_FIELD_CONFIG])
        self._partition = _Insertion.parse(PARTITION_FIELD_CONFIG, config[PARTITION_FIELD_CONFIG])
        self._timestamp = _Insertion.parse(TIMESTAMP_FIELD_CONFIG, config[TIMESTAMP_FIELD_CONFIG])
        self._static = _Insertion.parse(STATIC_FIELD_CONFIG, config[STATIC_FIELD_CONFIG])
        self._static_value = config[STATIC_VALUE_CONFIG]
        if not (self._topic or self._partition or self._timestamp or self._static):
            raise ConfigError(
                f"No field insertion configured: set at least one of {TOPIC_FIELD_CONFIG}, "
                f"{PARTITION_FIELD_CONFIG}, {TIMESTAMP_FIELD_CONFIG} or {STATIC_FIELD_CONFIG}"
            )
        if self._static is not None and self._static_value is None:
            raise ConfigError(
                {
                    STATIC_VALUE_CONFIG: f"No value specified for static field: {self._static.name} "
                    f"(set {STATIC_VALUE_CONFIG})"
                }
            )
        self._schemas = SchemaCache(self._updated_schema, max_size=16)
        only_static = self._static is not None and not (self._topic or self._partition or self._timestamp)
        self._static_only = (self._static.name, self._static_value) if only_static and self._static else None

    def apply_to_copy(self, record: SourceRecord) -> SourceRecord:
        """`apply`, writing into `record`, a copy the transform chain owns: saves a record per step."""
        if self._static_only is not None and self._side is Side.VALUE and record.value_schema is None:
            value = record.value
            if isinstance(value, dict):
                name, static = self._static_only
                record.value = {**value, name: static}
                return record
        return self.apply(record)

    def apply(self, record: SourceRecord) -> SourceRecord:
        if value_of(record, self._side) is None:
            return record
        if schema_of(record, self._side) is None:
            value = require_map(record, self._side, PURPOSE)
            if self._static_only is not None:  # the common case, kept cheap: it runs for every record
                name, static = self._static_only
                return with_side(record, self._side, {**value, name: static}, None)
            updated = dict(value)
            for name, inserted in self._inserted(record, schemaless=True):
                updated[name] = inserted
            return with_side(record, self._side, updated, None)
        struct, schema = require_struct(record, self._side, PURPOSE)
        new_schema = self._schemas.get(schema)
        updated = {field.name: struct.get(field.name) for field in schema.fields}
        for name, inserted in self._inserted(record, schemaless=False):
            updated[name] = inserted
        return with_side(record, self._side, updated, new_schema)

    def _inserted(self, record: SourceRecord, *, schemaless: bool) -> list[tuple[str, Any]]:
        """The (field, value) pairs the record gets; the partition and timestamp only when it has them."""
        fields: list[tuple[str, Any]] = []
        if self._topic is not None:
            fields.append((self._topic.name, record.topic))
        if self._partition is not None and record.partition is not None:
            fields.append((self._partition.name, record.partition))
        if self._timestamp is not None and record.timestamp is not None:
            fields.append(
                (
                    self._timestamp.name,
                    record.timestamp if schemaless else logical.from_wire(logical.TIMESTAMP, record.timestamp),
                )
            )
        if self._static is not None and self._static_value is not None:
            fields.append((self._static.name, self._static_value))
        return fields

    def _updated_schema(self, schema: Schema) -> Schema:
        added = [
            (self._topic, Schema(SchemaType.STRING)),
            (self._partition, Schema(SchemaType.INT32)),
            (self._timestamp, Schema(SchemaType.INT64, name=logical.TIMESTAMP, version=1)),
            (self._static, Schema(SchemaType.STRING)),
        ]
        fields = list(schema.fields)
        for insertion, field_schema in added:
            if insertion is None:
                continue
            if any(field.name == insertion.name for field in fields):
                raise DataError(
                    f"Cannot create field because of field name duplication {insertion.name} "
                    f"(the {schema.name or 'unnamed'} struct already has it)"
                )
            fields.append(Field(insertion.name, field_schema.as_optional() if insertion.optional else field_schema))
        # Kafka copies the name, version and doc onto a new struct builder, which leaves it required.
        return Schema(SchemaType.STRUCT, name=schema.name, version=schema.version, doc=schema.doc, fields=tuple(fields))


class InsertFieldKey(InsertField):
    """Inserts into the record key (Kafka's `InsertField$Key`)."""

    _side = Side.KEY


class InsertFieldValue(InsertField):
    """Inserts into the record value (Kafka's `InsertField$Value`)."""

    _side = Side.VALUE
