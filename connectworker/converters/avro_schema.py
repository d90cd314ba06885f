"""Connect schemas to Avro schemas and back, following Confluent's `AvroData`.

Writing: struct -> record (named after the schema, split at the last dot into namespace and name;
unnamed structs become `io.confluent.connect.avro.ConnectDefault`, `ConnectDefault2`, ...), optional ->
union `["null", T]` with `"default": null` on record fields, int8/int16 -> int with `connect.type`,
int32 -> int, int64 -> long, float -> float, double -> double, map with non-optional string keys -> map,
any other map -> array of `io.confluent.connect.avro.MapEntry` records (`key`, `value`), and the logical
types Date/Time/Timestamp -> `date`/`time-millis`/`timestamp-millis`. With `connect.meta.data` on (the
default) a schema's doc, version and name are kept in `connect.doc`, `connect.version`, `connect.name`.

Reading maps any Avro writer schema back, and also returns a small decoder that turns what fastavro reads
into Connect values (only map-entry arrays need it: they become dicts again).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from connectworker.api.schema import Field, Schema, SchemaType
from connectworker.converters import logical
from connectworker.converters.encoding import required

NAMESPACE = "io.confluent.connect.avro"
DEFAULT_SCHEMA_NAME = "ConnectDefault"
MAP_ENTRY_TYPE_NAME = "MapEntry"
_DEFAULT_FULL_NAME = re.compile(re.escape(f"{NAMESPACE}.{DEFAULT_SCHEMA_NAME}") + r"\d*")
_MAP_ENTRY_FULL_NAME = re.compile(re.escape(f"{NAMESPACE}.{MAP_ENTRY_TYPE_NAME}") + r"\d*")

_PRIMITIVES = {
    SchemaType.INT8: "int",
    SchemaType.INT16: "int",
    SchemaType.INT32: "int",
    SchemaType.INT64: "long",
    SchemaType.FLOAT32: "float",
    SchemaType.FLOAT64: "double",
    SchemaType.BOOLEAN: "boolean",
    SchemaType.STRING: "string",
    SchemaType.BYTES: "bytes",
}
_AVRO_LOGICAL = {logical.DATE: "date", logical.TIME: "time-millis", logical.TIMESTAMP: "timestamp-millis"}


class AvroSchemaError(ValueError):
    """A schema cannot be expressed in the other system; the message says which part and why."""


def avro_map_is_native(schema: Schema) -> bool:
    """Whether a Connect map is written as an Avro map (else as an array of MapEntry records)."""
    key = schema.key_schema
    return key is not None and key.type is SchemaType.STRING and not key.optional


# -- Connect -> Avro ------------------------------------------------------------------------------------


def avro_schema_for(schema: Schema, *, connect_meta_data: bool = True) -> Any:
    """The Avro schema (JSON-ready: str, dict or list) Confluent's AvroConverter derives from `schema`."""
    return _ToAvro(connect_meta_data).convert(schema, namespace="")


class _ToAvro:
    def __init__(self, connect_meta_data: bool) -> None:
        self.meta = connect_meta_data
        self.defined: dict[Schema, str] = {}  # non-optional struct/map schema -> full name already emitted
        self.full_names: set[str] = set()
        self.default_names = 0
        self.map_entries = 0

    def convert(self, schema: Schema, namespace: str) -> Any:
        base = self._base(schema, namespace)
        return ["null", base] if schema.optional else base

    def _base(self, schema: Schema, namespace: str) -> Any:
        if schema.type is SchemaType.STRUCT:
            return self._record(schema, namespace)
        if schema.type is SchemaType.ARRAY:
            if schema.value_schema is None:
                raise AvroSchemaError("an array schema needs an items schema (value_schema)")
            node: dict[str, Any] = {"type": "array", "items": self.convert(schema.value_schema, namespace)}
        elif schema.type is SchemaType.MAP:
            if schema.key_schema is None or schema.value_schema is None:
                raise AvroSchemaError("a map schema needs both a key_schema and a value_schema")
            if not avro_map_is_native(schema):
                node = {"type": "array", "items": self._map_entry(schema, namespace)}
            else:
                node = {"type": "map", "values": self.convert(schema.value_schema, namespace)}
        else:
            node = {"type": _PRIMITIVES[schema.type]}
        self._add_props(node, schema)
        return node["type"] if len(node) == 1 else node

    def _add_props(self, node: dict[str, Any], schema: Schema) -> None:
        if self.meta:
            if schema.doc is not None:
                node["connect.doc"] = schema.doc
            if schema.version is not None:
                node["connect.version"] = schema.version
            if schema.parameters:
                node["connect.parameters"] = dict(schema.parameters)
            if schema.name is not None:
                node["connect.name"] = schema.name
            if schema.type in (SchemaType.INT8, SchemaType.INT16):
                node["connect.type"] = schema.type.value
        name = logical.logical_name(schema)
        if name is not None:
            node["logicalType"] = _AVRO_LOGICAL[name]

    def _record(self, schema: Schema, namespace: str) -> Any:
        key = required(schema)
        known = self.defined.get(key)
        if known is not None:
            return known
        if schema.name is not None:
            space, _, name = schema.name.rpartition(".")
            full_name = schema.name if space else (f"{namespace}.{name}" if namespace else name)
            if full_name in self.full_names:
                raise AvroSchemaError(f"two different struct schemas are both named '{schema.name}'")
        else:
            space, name, full_name = NAMESPACE, DEFAULT_SCHEMA_NAME, f"{NAMESPACE}.{DEFAULT_SCHEMA_NAME}"
            while full_name in self.full_names:
                self.default_names += 1
                name = f"{DEFAULT_SCHEMA_NAME}{self.default_names + 1}"
                full_name = f"{NAMESPACE}.{name}"
        self.full_names.add(full_name)
        self.defined[key] = full_name
        record_namespace = full_name.rpartition(".")[0]
        node: dict[str, Any] = {"type": "record", "name": name}
        if space:
            node["namespace"] = space
        fields = []
        for field in schema.fields:
            entry: dict[str, Any] = {"name": field.name, "type": self.convert(field.schema, record_namespace)}
            if field.schema.doc is not None:
                entry["doc"] = field.schema.doc
            if field.schema.optional:
                entry["default"] = None
            fields.append(entry)
        node["fields"] = fields
        self._add_props(node, schema)
        return node

    def _map_entry(self, schema: Schema, namespace: str) -> Any:
        key = required(schema)
        known = self.defined.get(key)
        if known is not None:
            return known
        self.map_entries += 1
        name = MAP_ENTRY_TYPE_NAME if self.map_entries == 1 else f"{MAP_ENTRY_TYPE_NAME}{self.map_entries}"
        full_name = f"{NAMESPACE}.{name}"
        self.full_names.add(full_name)
        self.defined[key] = full_name
        assert schema.key_schema is not None and schema.value_schema is not None
        fields = []
        for field_name, field_schema in (("key", schema.key_schema), ("value", schema.value_schema)):
            entry: dict[str, Any] = {"name": field_name, "type": self.convert(field_schema, NAMESPACE)}
            if field_schema.optional:
                entry["default"] = None
            fields.append(entry)
        return {"type": "record", "name": name, "namespace": NAMESPACE, "fields": fields}


# -- Avro -> Connect ------------------------------------------------------------------------------------

AvroDecoder = Callable[[Any], Any]


def connect_schema_for(avro: Any) -> tuple[Schema, AvroDecoder | None]:
    """The Connect schema for an Avro writer schema, and the decoder its values need (None: none)."""
    return _ToConnect().convert(avro, namespace="", field_doc=None)


_AVRO_PRIMITIVES = {
    "int": SchemaType.INT32,
    "long": SchemaType.INT64,
    "float": SchemaType.FLOAT32,
    "double": SchemaType.FLOAT64,
    "boolean": SchemaType.BOOLEAN,
    "string": SchemaType.STRING,
    "bytes": SchemaType.BYTES,
}
_CONNECT_TYPE_PROP = {"int8": SchemaType.INT8, "int16": SchemaType.INT16}
_LOGICAL_FROM_AVRO = {
    ("int", "date"): logical.DATE,
    ("int", "time-millis"): logical.TIME,
    ("long", "timestamp-millis"): logical.TIMESTAMP,
}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _full_name(name: str, namespace: str) -> str:
    return name if "." in name or not namespace else f"{namespace}.{name}"


class _ToConnect:
    def __init__(self) -> None:
        self.named: dict[str, tuple[Schema, AvroDecoder | None] | None] = {}  # None while being defined
        self.map_entries: dict[str, tuple[tuple[Schema, Any], tuple[Schema, Any]]] = {}

    def convert(self, avro: Any, namespace: str, field_doc: str | None) -> tuple[Schema, AvroDecoder | None]:
        if isinstance(avro, list):
            return self._union(avro, namespace, field_doc)
        if isinstance(avro, str):
            if avro in _AVRO_PRIMITIVES:
                return Schema(_AVRO_PRIMITIVES[avro], doc=field_doc), None
            return self._reference(_full_name(avro, namespace))
        if not isinstance(avro, dict):
            raise AvroSchemaError(f"unexpected Avro schema node {avro!r}")
        kind = avro.get("type")
        if isinstance(kind, dict | list):
            return self.convert(kind, namespace, field_doc)
        doc = _text(avro.get("connect.doc")) or field_doc
        version = _integer(avro.get("connect.version"))
        name = _text(avro.get("connect.name"))
        if kind == "record":
            return self._record(avro, namespace, doc)
        if kind in ("enum", "fixed"):
            schema_type = SchemaType.STRING if kind == "enum" else SchemaType.BYTES
            result = (Schema(schema_type, name=name, version=version, doc=doc), None)
            self.named[self._full_name_of(avro, namespace)] = result
            return result
        if kind == "array":
            items = avro.get("items")
            if isinstance(items, dict | str):
                entry = self._map_entry(items, namespace)
                if entry is not None:
                    key, value = entry
                    schema = Schema(
                        SchemaType.MAP, name=name, version=version, doc=doc, key_schema=key[0], value_schema=value[0]
                    )
                    return schema, _entries_decoder(key[1], value[1])
            element, decode = self.convert(items, namespace, None)
            schema = Schema(SchemaType.ARRAY, name=name, version=version, doc=doc, value_schema=element)
            return schema, None if decode is None else _list_decoder(decode)
        if kind == "map":
            value_schema, decode = self.convert(avro.get("values"), namespace, None)
            schema = Schema(
                SchemaType.MAP,
                name=name,
                version=version,
                doc=doc,
                key_schema=Schema(SchemaType.STRING),
                value_schema=value_schema,
            )
            return schema, None if decode is None else _dict_decoder(decode)
        if kind in _AVRO_PRIMITIVES:
            logical_name = _LOGICAL_FROM_AVRO.get((kind, avro.get("logicalType", "")))
            schema_type = _AVRO_PRIMITIVES[kind]
            if kind == "int":
                schema_type = _CONNECT_TYPE_PROP.get(avro.get("connect.type", ""), schema_type)
            raw = avro.get("connect.parameters")
            parameters = tuple((k, str(v)) for k, v in raw.items()) if isinstance(raw, dict) else ()
            return Schema(schema_type, name=logical_name or name, version=version, doc=doc, parameters=parameters), None
        raise AvroSchemaError(f"Avro type {kind!r} has no Connect equivalent")

    @staticmethod
    def _full_name_of(avro: dict[str, Any], namespace: str) -> str:
        name = avro.get("name")
        if not isinstance(name, str) or not name:
            raise AvroSchemaError(f"Avro {avro.get('type')} has no name")
        own_namespace = avro.get("namespace", namespace)
        return _full_name(name, own_namespace if isinstance(own_namespace, str) else namespace)

    def _reference(self, full_name: str) -> tuple[Schema, AvroDecoder | None]:
        if full_name not in self.named:
            raise AvroSchemaError(f"unknown Avro type name '{full_name}'")
        known = self.named[full_name]
        if known is None:
            raise AvroSchemaError(f"Avro type '{full_name}' is recursive, which Connect cannot express")
        return known

    def _record(self, avro: dict[str, Any], namespace: str, doc: str | None) -> tuple[Schema, Any]:
        full_name = self._full_name_of(avro, namespace)
        self.named[full_name] = None
        record_namespace = full_name.rpartition(".")[0]
        fields = []
        decoders = []
        for raw in avro.get("fields", []):
            field_schema, decode = self.convert(raw["type"], record_namespace, raw.get("doc"))
            fields.append(Field(raw["name"], field_schema))
            if decode is not None:
                decoders.append((raw["name"], decode))
        name = _text(avro.get("connect.name"))
        if name is None and not _DEFAULT_FULL_NAME.fullmatch(full_name):
            name = full_name
        schema = Schema(
            SchemaType.STRUCT, name=name, version=_integer(avro.get("connect.version")), doc=doc, fields=tuple(fields)
        )
        result = (schema, _struct_decoder(tuple(decoders)) if decoders else None)
        self.named[full_name] = result
        return result

    def _union(self, branches: list[Any], namespace: str, field_doc: str | None) -> tuple[Schema, Any]:
        others = [branch for branch in branches if branch != "null"]
        if len(others) != 1 or len(branches) != 2:
            raise AvroSchemaError(f"Avro union {branches!r} is not supported; only [null, T] maps to Connect")
        schema, decode = self.convert(others[0], namespace, field_doc)
        optional = schema.as_optional()
        if decode is None:
            return optional, None
        return optional, lambda value: None if value is None else decode(value)

    def _map_entry(self, items: Any, namespace: str) -> tuple[tuple[Schema, Any], tuple[Schema, Any]] | None:
        """Key and value of a MapEntry record (defined here or earlier), or None when `items` is not one."""
        if isinstance(items, str):
            return self.map_entries.get(_full_name(items, namespace))
        if items.get("type") != "record":
            return None
        full_name = self._full_name_of(items, namespace)
        fields = items.get("fields", [])
        field_names = [f.get("name") for f in fields]
        if not _MAP_ENTRY_FULL_NAME.fullmatch(full_name) or field_names != ["key", "value"]:
            return None
        entry_namespace = full_name.rpartition(".")[0]
        entry = (
            self.convert(fields[0]["type"], entry_namespace, None),
            self.convert(fields[1]["type"], entry_namespace, None),
        )
        self.map_entries[full_name] = entry
        return entry


def strip_foreign_logical_types(avro: Any) -> Any:
    """`avro` without the logical types Connect has no equivalent for (decimal, uuid, *-micros, ...).

    fastavro would otherwise hand back `Decimal`, `UUID` or microsecond datetimes where the Connect schema
    says bytes, string or int64; without the annotation it returns the underlying primitive.
    """
    if isinstance(avro, list):
        return [strip_foreign_logical_types(branch) for branch in avro]
    if not isinstance(avro, dict):
        return avro
    out = {}
    for key, value in avro.items():
        if key == "logicalType" and (avro.get("type"), value) not in _LOGICAL_FROM_AVRO:
            continue
        if key in ("type", "items", "values"):
            value = strip_foreign_logical_types(value)
        elif key == "fields" and isinstance(value, list):
            value = [{**f, "type": strip_foreign_logical_types(f.get("type"))} for f in value]
        out[key] = value
    return out


def _list_decoder(decode: AvroDecoder) -> AvroDecoder:
    return lambda value: [decode(item) for item in value]


def _dict_decoder(decode: AvroDecoder) -> AvroDecoder:
    return lambda value: {key: decode(item) for key, item in value.items()}


def _entries_decoder(decode_key: AvroDecoder | None, decode_value: AvroDecoder | None) -> AvroDecoder:
    def decode(entries: Any) -> Any:
        out = {}
        for entry in entries:
            key, value = entry["key"], entry["value"]
            if decode_key is not None:
                key = decode_key(key)
            if decode_value is not None:
                value = decode_value(value)
            out[key] = value
        return out

    return decode


def _struct_decoder(decoders: tuple[tuple[str, AvroDecoder], ...]) -> AvroDecoder:
    def decode(record: Any) -> Any:
        for name, decode_field in decoders:
            record[name] = decode_field(record[name])
        return record

    return decode
