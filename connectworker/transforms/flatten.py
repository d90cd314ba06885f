"""`Flatten$Key` / `Flatten$Value`: nested structs (or maps) become top-level fields named by their path.

Kafka's key: `delimiter` (default "."; trimmed like every string setting, as Kafka's are), placed between
the names of each level: ``{"a": {"b": 1}}`` becomes ``{"a.b": 1}``. Arrays, and whatever they hold, are
left as they are. A null key (or value) passes through unchanged.

With a schema, a flattened field is optional when it or any struct above it is optional (a null parent
leaves its fields null); the flattened struct keeps the name, version and doc of the original but, as in
Kafka, not its optionality. Map fields under a schema are refused, as Kafka refuses them, and so are two
paths that flatten to the same name. Without a schema, a later duplicate name overwrites an earlier one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance
from connectworker.api.errors import DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Field, Schema, SchemaType
from connectworker.api.transform import Transformation
from connectworker.converters.encoding import SchemaCache
from connectworker.transforms.side import Side, require_map, require_struct, schema_of, value_of, with_side

__all__ = ["FlattenKey", "FlattenValue"]

DELIMITER_CONFIG = "delimiter"
DELIMITER_DEFAULT = "."
PURPOSE = "flattening"

_LEAF_TYPES = frozenset(SchemaType) - {SchemaType.MAP, SchemaType.STRUCT}
# Python types a schemaless value may hold that are kept as they are (Connect's primitives and arrays).
_SCHEMALESS_LEAVES = (bool, int, float, str, bytes, bytearray, memoryview, list, tuple)


@dataclass(frozen=True, slots=True)
class _Flattened:
    """A struct schema flattened, with the path of original field names behind each flattened field."""

    schema: Schema
    paths: tuple[tuple[str, ...], ...]


class Flatten(Transformation):
    """Shared by the `$Key` and `$Value` variants; `_side` says which half of the record they flatten."""

    _side: Side

    def __init__(self) -> None:
        self._delimiter = DELIMITER_DEFAULT
        self._schemas: SchemaCache[_Flattened] = SchemaCache(self._flatten_schema, max_size=16)

    def config_def(self) -> ConfigDef:
        return ConfigDef().define(
            DELIMITER_CONFIG,
            ConfigType.STRING,
            DELIMITER_DEFAULT,
            importance=Importance.MEDIUM,
            documentation="Delimiter to insert between field names from the input record when generating field "
            "names for the output record",
        )

    def configure(self, props: Mapping[str, str]) -> None:
        self._delimiter = self.config_def().parse(props)[DELIMITER_CONFIG]
        self._schemas = SchemaCache(self._flatten_schema, max_size=16)

    def apply(self, record: SourceRecord) -> SourceRecord:
        if value_of(record, self._side) is None:
            return record
        if schema_of(record, self._side) is None:
            flat: dict[str, Any] = {}
            self._flatten_map(require_map(record, self._side, PURPOSE), "", flat)
            return with_side(record, self._side, flat, None)
        struct, schema = require_struct(record, self._side, PURPOSE)
        flattened = self._schemas.get(schema)
        values = {
            field.name: _value_at(struct, path)
            for field, path in zip(flattened.schema.fields, flattened.paths, strict=True)
        }
        return with_side(record, self._side, values, flattened.schema)

    def _name(self, prefix: str, name: str) -> str:
        return name if not prefix else prefix + self._delimiter + name

    def _flatten_map(self, value: dict[str, Any], prefix: str, out: dict[str, Any]) -> None:
        for key, item in value.items():
            if not isinstance(key, str):
                raise DataError(
                    f"Flatten transformation needs string keys, found {type(key).__name__} key {key!r}"
                    f"{f' (under {prefix})' if prefix else ''}"
                )
            name = self._name(prefix, key)
            if isinstance(item, dict):
                self._flatten_map(item, name, out)
            elif item is None or isinstance(item, _SCHEMALESS_LEAVES):
                out[name] = item
            else:
                raise DataError(
                    f"Flatten transformation was passed a value of type {type(item).__name__} which is "
                    f"not supported by Connect's data API (for field {name})."
                )

    def _flatten_schema(self, schema: Schema) -> _Flattened:
        fields: dict[str, Schema] = {}
        paths: list[tuple[str, ...]] = []
        self._collect(schema, (), "", schema.optional, fields, paths)
        flat = Schema(
            SchemaType.STRUCT,
            False,
            schema.name,
            schema.version,
            schema.doc,
            fields=tuple(Field(name, field_schema) for name, field_schema in fields.items()),
        )
        return _Flattened(flat, tuple(paths))

    def _collect(
        self,
        schema: Schema,
        path: tuple[str, ...],
        prefix: str,
        optional: bool,
        fields: dict[str, Schema],
        paths: list[tuple[str, ...]],
    ) -> None:
        for field in schema.fields:
            name = self._name(prefix, field.name)
            field_optional = optional or field.schema.optional
            if field.schema.type is SchemaType.STRUCT:
                self._collect(field.schema, (*path, field.name), name, field_optional, fields, paths)
                continue
            if field.schema.type not in _LEAF_TYPES:
                raise DataError(
                    f"Flatten transformation does not support {field.schema.type.name} for record with "
                    f"schemas (for field {name})."
                )
            if name in fields:
                raise DataError(f"Cannot create field because of field name duplication {name}")
            fields[name] = field.schema.as_optional() if field_optional else field.schema
            paths.append((*path, field.name))


def _value_at(struct: dict[str, Any], path: tuple[str, ...]) -> Any:
    """The value at `path` in nested structs; None when a struct on the way is null."""
    current: Any = struct
    for step in path[:-1]:
        current = current.get(step)
        if current is None:
            return None
        if not isinstance(current, dict):
            raise DataError(
                f"Only Struct objects supported for [{PURPOSE}], found: {type(current).__name__} "
                f"(field {step!r} of path {'.'.join(path)!r})"
            )
    return current.get(path[-1])


class FlattenKey(Flatten):
    """Flattens the record key (Kafka's `Flatten$Key`)."""

    _side = Side.KEY


class FlattenValue(Flatten):
    """Flattens the record value (Kafka's `Flatten$Value`)."""

    _side = Side.VALUE
