"""Per-schema decoders from parsed JSON to Connect values (Kafka `JsonConverter.convertToConnect`).

Kafka's reader is lenient where Jackson coerces (a JSON string read as an int becomes 0); these decoders
reject such mismatches instead, naming the field. Extra JSON object members that a struct schema does
not list are ignored, as in Kafka.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any

from connectworker.api.schema import Schema, SchemaType
from connectworker.converters import logical
from connectworker.converters.encoding import InvalidValue, convert_elements, wrong_type

Decoder = Callable[[Any], Any]

_INT_RANGES = {
    SchemaType.INT8: (-(2**7), 2**7 - 1),
    SchemaType.INT16: (-(2**15), 2**15 - 1),
    SchemaType.INT32: (-(2**31), 2**31 - 1),
    SchemaType.INT64: (-(2**63), 2**63 - 1),
}
# Jackson writes non-finite doubles as these strings; read them back as floats.
_NON_FINITE = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


def compile_decoder(schema: Schema) -> Decoder:
    """A function that turns the JSON payload for `schema` into the Connect value."""
    decode = _decoder_for_present_value(schema)
    optional = schema.optional

    def decode_nullable(node: Any) -> Any:
        if node is None:
            if optional:
                return None
            raise InvalidValue(f"is required ({schema.type.value} schema, not optional) but the JSON is null")
        return decode(node)

    return decode_nullable


def _decoder_for_present_value(schema: Schema) -> Decoder:
    name = logical.logical_name(schema)
    if name is not None:
        return _logical(schema, name)
    kind = schema.type
    if kind in _INT_RANGES:
        return _integer(schema)
    if kind in (SchemaType.FLOAT32, SchemaType.FLOAT64):
        return _floating(schema)
    if kind is SchemaType.BOOLEAN:
        return _exact(schema, bool)
    if kind is SchemaType.STRING:
        return _exact(schema, str)
    if kind is SchemaType.BYTES:
        return _bytes(schema)
    if kind is SchemaType.ARRAY:
        return _array(schema)
    if kind is SchemaType.MAP:
        return _map(schema)
    return _struct(schema)


def _logical(schema: Schema, name: str) -> Decoder:
    def decode(node: Any) -> Any:
        if node.__class__ is not int:
            raise InvalidValue(f"must be a JSON integer for {name}, got {type(node).__name__} {node!r}")
        try:
            return logical.from_wire(name, node)
        except (ValueError, OverflowError) as exc:
            raise InvalidValue(f"{node} is not a valid {name}: {exc}") from None

    return decode


def _integer(schema: Schema) -> Decoder:
    low, high = _INT_RANGES[schema.type]

    def decode(node: Any) -> Any:
        if node.__class__ is not int:
            raise wrong_type(schema, node)
        if not low <= node <= high:
            raise InvalidValue(f"value {node} is out of range for {schema.type.value} [{low}, {high}]")
        return node

    return decode


def _floating(schema: Schema) -> Decoder:
    def decode(node: Any) -> Any:
        if node.__class__ is float:
            return node
        if node.__class__ is int:
            return float(node)
        special = _NON_FINITE.get(node) if isinstance(node, str) else None
        if special is None:
            raise wrong_type(schema, node)
        return special

    return decode


def _exact(schema: Schema, python_type: type) -> Decoder:
    def decode(node: Any) -> Any:
        if node.__class__ is not python_type:
            raise wrong_type(schema, node)
        return node

    return decode


def _bytes(schema: Schema) -> Decoder:
    def decode(node: Any) -> Any:
        if not isinstance(node, str):
            raise InvalidValue(f"must be a base64 JSON string for a bytes schema, got {type(node).__name__}")
        try:
            return base64.b64decode(node, validate=True)
        except binascii.Error as exc:
            raise InvalidValue(f"is not valid base64: {exc}") from None

    return decode


def _array(schema: Schema) -> Decoder:
    assert schema.value_schema is not None  # schema_from_json guarantees it
    item = compile_decoder(schema.value_schema)

    def decode(node: Any) -> Any:
        if not isinstance(node, list):
            raise wrong_type(schema, node)
        return convert_elements(item, node)

    return decode


def _map(schema: Schema) -> Decoder:
    assert schema.key_schema is not None and schema.value_schema is not None
    decode_key = compile_decoder(schema.key_schema)
    decode_value = compile_decoder(schema.value_schema)
    if schema.key_schema.type is SchemaType.STRING:

        def decode_object(node: Any) -> Any:
            if not isinstance(node, dict):
                raise InvalidValue(
                    f"Maps with string fields should be encoded as JSON objects, but found {type(node).__name__}"
                )
            out = {}
            key = None
            try:
                for key, element in node.items():
                    out[key] = decode_value(element)
            except InvalidValue as exc:
                exc.path.append(f"[{key!r}]")
                raise
            return out

        return decode_object

    def decode_pairs(node: Any) -> Any:
        if not isinstance(node, list):
            raise InvalidValue(
                "Maps with non-string fields should be encoded as JSON array of tuples, but "
                f"found {type(node).__name__}"
            )
        out = {}
        for index, pair in enumerate(node):
            key = None
            if not isinstance(pair, list) or len(pair) != 2:
                problem = InvalidValue(f"is not a [key, value] pair: {pair!r}")
                problem.path.append(f"[{index}]")
                raise problem
            try:
                key = decode_key(pair[0])
                out[key] = decode_value(pair[1])
            except InvalidValue as exc:
                exc.path.append(f"[{index}]")
                raise
            except TypeError:
                problem = InvalidValue(f"has a key of type {type(key).__name__}, which Python cannot use as a dict key")
                problem.path.append(f"[{index}]")
                raise problem from None
        return out

    return decode_pairs


def _struct(schema: Schema) -> Decoder:
    fields = tuple((f.name, compile_decoder(f.schema)) for f in schema.fields)

    def decode(node: Any) -> Any:
        if not isinstance(node, dict):
            raise InvalidValue(f"Structs should be encoded as JSON objects, but found {type(node).__name__}")
        get = node.get
        out = {}
        name = ""
        try:
            for name, decode_field in fields:
                out[name] = decode_field(get(name))
        except InvalidValue as exc:
            exc.path.append(f".{name}")
            raise
        return out

    return decode
