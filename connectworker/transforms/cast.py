"""`Cast$Key` / `Cast$Value`: cast the whole key (or value), or some of its top-level fields, to another type.

Kafka's keys: `spec` (required list: one type for the whole key or value, e.g. ``int64``, or
``field:type`` pairs, e.g. ``f1:int32,f2:string``) and `replace.null.with.default` (boolean, default true;
accepted, without effect, as schemas here carry no default values). Types are Kafka's schema type names,
case-insensitive: int8, int16, int32, int64, float32, float64, boolean and string. Casting from bytes is
possible to string only (base64); casting from or to a struct, map or array is refused, and so is a
nested field (Kafka casts top-level fields only). A null key (or value) passes through unchanged.

The conversions follow Java's, since Kafka's are Java's; `cast_rules` holds them and says how they go.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance
from connectworker.api.errors import DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Field, Schema, SchemaType
from connectworker.api.transform import Transformation
from connectworker.converters.encoding import SchemaCache
from connectworker.transforms.cast_rules import LOGICAL_NAMES, OUTPUT_TYPES, cast_value, type_list
from connectworker.transforms.null_defaults import REPLACE_NULL_WITH_DEFAULT_DEF
from connectworker.transforms.side import Side, require_map, require_struct, schema_of, value_of, with_side

__all__ = ["CastKey", "CastValue", "parse_cast_spec"]

SPEC_CONFIG = "spec"
PURPOSE = "cast types"


def parse_cast_spec(entries: list[str]) -> tuple[SchemaType | None, dict[str, SchemaType]]:
    """The whole-value type (or None) and the per-field types `spec` asks for. Raises ValueError saying
    what is wrong, as Kafka's `ConfigException`s do."""
    if not entries:
        raise ValueError("Must specify at least one field to cast.")
    whole: SchemaType | None = None
    fields: dict[str, SchemaType] = {}
    for entry in entries:
        parts = entry.split(":")
        if len(parts) > 1:  # Java's split drops trailing empty parts, so "f:" names the type "f"
            while parts and not parts[-1]:
                parts.pop()
        if len(parts) > 2 or not parts:
            raise ValueError(f"Invalid cast mapping: {entry}")
        target = _output_type(parts[-1].strip())
        if len(parts) == 1:
            whole = target
        else:
            fields[parts[0].strip()] = target
    if whole is not None and len(entries) > 1:
        raise ValueError(
            "Cast transformations that specify a type to cast the entire value to may only specify "
            "a single cast in their spec"
        )
    return whole, fields


def _output_type(text: str) -> SchemaType:
    target = SchemaType.__members__.get(text.upper())
    if target is None:
        raise ValueError(f"Invalid type found in casting spec: {text}")
    if target not in OUTPUT_TYPES:
        raise ValueError(
            f"Cast transformation does not support casting to {target.name}; supported types are "
            f"{type_list(OUTPUT_TYPES)}"
        )
    return target


def _validate_spec(key: str, value: Any) -> None:
    parse_cast_spec(list(value or []))


class Cast(Transformation):
    """Shared by the `$Key` and `$Value` variants; `_side` says which half of the record they cast."""

    _side: Side

    def __init__(self) -> None:
        self._whole: SchemaType | None = None
        self._fields: dict[str, SchemaType] = {}
        self._schemas: SchemaCache[Schema] = SchemaCache(self._cast_schema, max_size=16)

    def config_def(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(
                SPEC_CONFIG,
                ConfigType.LIST,
                validator=_validate_spec,
                importance=Importance.HIGH,
                documentation="Fields and the types to cast them to, as field1:type,field2:type, to cast "
                "fields of maps or structs; or a single type to cast the entire value. Valid "
                "types are int8, int16, int32, int64, float32, float64, boolean and string; "
                "bytes can be cast to string only.",
            )
            .merge(REPLACE_NULL_WITH_DEFAULT_DEF)
        )

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        self._whole, self._fields = parse_cast_spec(config[SPEC_CONFIG])
        self._schemas = SchemaCache(self._cast_schema, max_size=16)

    def apply(self, record: SourceRecord) -> SourceRecord:
        value, schema = value_of(record, self._side), schema_of(record, self._side)
        if value is None:
            return record
        if self._whole is not None:
            cast = cast_value(value, schema, self._whole)
            return with_side(record, self._side, cast, None if schema is None else self._schemas.get(schema))
        if schema is None:
            updated = dict(require_map(record, self._side, PURPOSE))
            for name, target in self._fields.items():
                # As Kafka: a field the map lacks is added, as null.
                updated[name] = _cast_field(updated.get(name), None, target, name)
            return with_side(record, self._side, updated, None)
        struct_value, struct_schema = require_struct(record, self._side, PURPOSE)
        new_schema = self._schemas.get(struct_schema)
        cast_struct: dict[str, Any] = {}
        for field in struct_schema.fields:
            field_target = self._fields.get(field.name)
            item = struct_value.get(field.name)
            cast_struct[field.name] = (
                item if field_target is None else _cast_field(item, field.schema, field_target, field.name)
            )
        return with_side(record, self._side, cast_struct, new_schema)

    def _cast_schema(self, schema: Schema) -> Schema:
        if self._whole is not None:
            # Kafka keeps the name even when it is a logical type's, which then describes a value it no
            # longer is (a Timestamp schema over a long): a logical name is dropped here.
            name = None if schema.name in LOGICAL_NAMES else schema.name
            return Schema(self._whole, schema.optional, name, schema.version, schema.doc)
        fields = tuple(
            field
            if field.name not in self._fields
            else Field(field.name, Schema(self._fields[field.name], field.schema.optional))
            for field in schema.fields
        )
        return Schema(SchemaType.STRUCT, schema.optional, schema.name, schema.version, schema.doc, fields=fields)


def _cast_field(value: Any, schema: Schema | None, target: SchemaType, name: str) -> Any:
    try:
        return cast_value(value, schema, target)
    except DataError as exc:
        raise DataError(f"{exc} (field {name!r})") from None


class CastKey(Cast):
    """Casts the record key (Kafka's `Cast$Key`)."""

    _side = Side.KEY


class CastValue(Cast):
    """Casts the record value (Kafka's `Cast$Value`)."""

    _side = Side.VALUE
