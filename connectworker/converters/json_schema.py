"""Connect schemas as JSON, in the exact shape of Kafka's `JsonConverter` (`asJsonSchema`/`asConnectSchema`).

Key order matters for byte-identical output: `type`, then `items` / `keys`,`values` / `fields`, then
`optional`, `name`, `version`, `doc`, `parameters`; a struct field is its schema's JSON with `field` appended last.
"""

from __future__ import annotations

from typing import Any

from connectworker.api.schema import Field, Schema, SchemaType

_TYPES_BY_NAME = {t.value: t for t in SchemaType}


class SchemaJsonError(ValueError):
    """A JSON schema in an envelope is malformed; the message is Kafka's."""


def schema_to_json(schema: Schema) -> dict[str, Any]:
    """The JSON object Kafka writes in the envelope's `schema` slot for `schema`."""
    node: dict[str, Any] = {"type": schema.type.value}
    if schema.type is SchemaType.ARRAY:
        node["items"] = schema_to_json(_child(schema.value_schema, "array", "items (value_schema)"))
    elif schema.type is SchemaType.MAP:
        node["keys"] = schema_to_json(_child(schema.key_schema, "map", "key_schema"))
        node["values"] = schema_to_json(_child(schema.value_schema, "map", "value_schema"))
    elif schema.type is SchemaType.STRUCT:
        fields = []
        for field in schema.fields:
            field_node = schema_to_json(field.schema)
            field_node["field"] = field.name
            fields.append(field_node)
        node["fields"] = fields
    node["optional"] = schema.optional
    if schema.name is not None:
        node["name"] = schema.name
    if schema.version is not None:
        node["version"] = schema.version
    if schema.doc is not None:
        node["doc"] = schema.doc
    if schema.parameters:
        node["parameters"] = dict(schema.parameters)
    return node


def _child(child: Schema | None, kind: str, what: str) -> Schema:
    if child is None:
        raise SchemaJsonError(f"the {kind} schema has no {what}")
    return child


def schema_from_json(node: Any) -> Schema | None:
    """The Connect schema for the envelope's `schema` JSON; None for JSON null (a schemaless value)."""
    if node is None:
        return None
    if not isinstance(node, dict):
        raise SchemaJsonError(f"Schema must be a JSON object, found {type(node).__name__}")
    type_name = node.get("type")
    if not isinstance(type_name, str):
        raise SchemaJsonError("Schema must contain 'type' field")
    schema_type = _TYPES_BY_NAME.get(type_name)
    if schema_type is None:
        raise SchemaJsonError(f"Unknown schema type: {type_name}")
    fields: tuple[Field, ...] = ()
    key_schema = value_schema = None
    if schema_type is SchemaType.ARRAY:
        items = node.get("items")
        if items is None:
            raise SchemaJsonError("Array schema did not specify the element type")
        value_schema = schema_from_json(items)
    elif schema_type is SchemaType.MAP:
        if node.get("keys") is None:
            raise SchemaJsonError("Map schema did not specify the key type")
        if node.get("values") is None:
            raise SchemaJsonError("Map schema did not specify the value type")
        key_schema = schema_from_json(node["keys"])
        value_schema = schema_from_json(node["values"])
    elif schema_type is SchemaType.STRUCT:
        raw_fields = node.get("fields")
        if not isinstance(raw_fields, list):
            raise SchemaJsonError('Struct schema\'s "fields" argument is not an array.')
        parsed = []
        for raw in raw_fields:
            name = raw.get("field") if isinstance(raw, dict) else None
            if not isinstance(name, str):
                raise SchemaJsonError("Struct schema's field name not specified properly")
            field_schema = schema_from_json(raw)
            if field_schema is None:
                raise SchemaJsonError(f"Struct schema's field '{name}' has a null schema")
            parsed.append(Field(name, field_schema))
        fields = tuple(parsed)
    name = node.get("name")
    version = node.get("version")
    doc = node.get("doc")
    parameters = node.get("parameters")
    return Schema(
        schema_type,
        optional=node.get("optional") is True,
        name=name if isinstance(name, str) else None,
        version=version if isinstance(version, int) and not isinstance(version, bool) else None,
        doc=doc if isinstance(doc, str) else None,
        fields=fields,
        key_schema=key_schema,
        value_schema=value_schema,
        parameters=tuple((k, str(v)) for k, v in parameters.items()) if isinstance(parameters, dict) else (),
    )
