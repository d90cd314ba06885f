"""`table.expand.json.payload` of the outbox EventRouter: a JSON text payload as a struct whose schema is
inferred from the document, as Debezium's `JsonSchemaData` infers it.

Every inferred schema is optional. A string is a string, a boolean a boolean, a whole number an int32 when
it fits, else an int64 when it fits, else a float64; other numbers are float64. An object is a struct
named by its path (`payload`, `payload.address`, …) with a field per member, in the document's order; an
array is an array of its elements' schema, which must all be of one kind (and, for numbers, of one
schema). An array of objects gets the union of its objects' fields, the first object's schema winning
for a field they share (but a bytes field, from a null, gives way to a typed one). A null member is left
out (`table.json.payload.null.behavior=ignore`, the default) or is optional bytes (`optional_bytes`); an
empty array is left out (`table.json.payload.empty.array.behavior=ignore`, the default) or is an array of
optional strings (`optional_string`). Values are then read against the schema; one that does not fit it
(a float in a field an earlier object made int32) fails the expansion, as Debezium's fails it.
"""

from __future__ import annotations

import json
from typing import Any

from connectworker.api.schema import Field, Schema, SchemaType

__all__ = ["JsonPayloadExpander"]

_INT32 = (-(2**31), 2**31 - 1)
_INT64 = (-(2**63), 2**63 - 1)
_OPTIONAL = {kind: Schema(kind, optional=True) for kind in SchemaType}


def _kind(node: Any) -> str:
    """The JSON node type, as Jackson names them: booleans are not numbers."""
    if node is None:
        return "null"
    if isinstance(node, bool):
        return "boolean"
    if isinstance(node, int | float):
        return "number"
    if isinstance(node, str):
        return "string"
    return "array" if isinstance(node, list) else "object"


def _number_schema(node: int | float) -> Schema:
    if isinstance(node, int):
        if _INT32[0] <= node <= _INT32[1]:
            return _OPTIONAL[SchemaType.INT32]
        if _INT64[0] <= node <= _INT64[1]:
            return _OPTIONAL[SchemaType.INT64]
    return _OPTIONAL[SchemaType.FLOAT64]


class JsonPayloadExpander:
    """Reads a JSON text into (schema, struct) under the two behaviours' settings."""

    def __init__(self, null_behavior: str = "ignore", empty_array_behavior: str = "ignore") -> None:
        self._nulls_as_bytes = null_behavior.lower() == "optional_bytes"
        self._empty_as_strings = empty_array_behavior.lower() == "optional_string"

    def expand(self, name: str, text: str) -> tuple[Schema, dict[str, Any]]:
        """The struct `text` (a JSON object) holds and its schema, named `name`; ValueError saying why not
        (not JSON, not an object, an array of mixed kinds, a value that does not fit its schema)."""
        if not text.startswith(("{", "[")):
            raise ValueError(f"Unable to parse payload starting with {text[:1]!r}")
        document = json.loads(text)
        schema = self.schema_of(name, document)
        if not isinstance(document, dict) or schema is None:
            raise ValueError("the payload is a JSON array, not an object")
        return schema, self._struct(document, schema)

    def schema_of(self, key: str | None, node: Any) -> Schema | None:
        """The schema inferred for `node` at path `key`; None for a member left out."""
        kind = _kind(node)
        if kind == "string":
            return _OPTIONAL[SchemaType.STRING]
        if kind == "boolean":
            return _OPTIONAL[SchemaType.BOOLEAN]
        if kind == "number":
            return _number_schema(node)
        if kind == "array":
            if not node:
                return Schema.array(_OPTIONAL[SchemaType.STRING], optional=True) if self._empty_as_strings else None
            return Schema.array(self._element_schema(key, node), optional=True)
        if kind == "object":
            fields: dict[str, Schema] = {}
            for member, value in node.items():
                inner = self.schema_of(member if not key else f"{key}.{member}", value)
                if inner is not None and member not in fields:
                    fields[member] = inner
            return Schema(
                SchemaType.STRUCT,
                optional=True,
                name=key,
                fields=tuple(Field(n, s) for n, s in fields.items()),
            )
        return _OPTIONAL[SchemaType.BYTES] if self._nulls_as_bytes else None

    def _element_schema(self, key: str | None, array: list[Any]) -> Schema:
        present = [element for element in array if element is not None]
        kinds = {_kind(element) for element in present}
        if len(kinds) > 1:
            raise ValueError(f"Field is not a homogenous array ({json.dumps(array)[:200]}: {', '.join(sorted(kinds))})")
        if kinds == {"number"} and len({_number_schema(element) for element in present}) > 1:
            raise ValueError(f"Field is not a homogenous array ({json.dumps(array)[:200]}): different number types")
        if kinds == {"object"}:
            merged: Schema | None = None
            for element in present:
                schema = self.schema_of(key, element)
                merged = schema if merged is None else _merged(merged, schema)  # type: ignore[arg-type]
            assert merged is not None
            return merged
        schema = self.schema_of(None, present[0] if present else None)
        if schema is None:
            raise ValueError(f"Array {json.dumps(array)[:200]} has unrecognized member schema.")
        return schema

    def _struct(self, node: dict[str, Any], schema: Schema) -> dict[str, Any]:
        return {field.name: self._value(node.get(field.name), field.schema, field.name) for field in schema.fields}

    def _value(self, node: Any, schema: Schema, where: str) -> Any:
        if node is None:
            return None
        kind = _kind(node)
        expected = {
            SchemaType.STRING: "string",
            SchemaType.BOOLEAN: "boolean",
            SchemaType.INT32: "number",
            SchemaType.INT64: "number",
            SchemaType.FLOAT64: "number",
            SchemaType.ARRAY: "array",
            SchemaType.STRUCT: "object",
        }.get(schema.type)
        fits = kind == expected and (kind != "number" or _number_schema(node) == schema.as_optional())
        if not fits:
            raise ValueError(f"{where}: {json.dumps(node)[:80]} does not fit its inferred schema {schema.type.value}")
        if kind == "array":
            assert schema.value_schema is not None
            return [self._value(element, schema.value_schema, where) for element in node]
        if kind == "object":
            return self._struct(node, schema)
        return node


def _merged(left: Schema, right: Schema) -> Schema:
    """The union of two objects' struct schemas: `left`'s fields, then those only `right` has; a shared field
    keeps `left`'s schema unless that is bytes (a null's) and `right`'s is not."""
    fields = {field.name: field.schema for field in left.fields}
    for field in right.fields:
        mine = fields.get(field.name)
        if mine is None or (
            mine != field.schema and mine.type is SchemaType.BYTES and field.schema.type is not SchemaType.BYTES
        ):
            fields[field.name] = field.schema
    return Schema(
        SchemaType.STRUCT,
        optional=left.optional,
        name=left.name,
        version=left.version,
        doc=left.doc,
        fields=tuple(Field(n, s) for n, s in fields.items()),
    )
