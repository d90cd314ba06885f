"""`JsonConverter`, byte-compatible with Kafka's `org.apache.kafka.connect.json.JsonConverter`.

With `schemas.enable=true` (the default) every message is the envelope
`{"schema":<schema JSON>,"payload":<value>}`; a value without a schema gets `"schema":null`. With
`schemas.enable=false` the message is the bare JSON value. Output is compact with raw UTF-8, like Jackson.

Speed: a schemaless value is one call of the standard library's C encoder, made once (`fast_json`);
`JSONEncoder.encode` would build that encoder, and a circular-reference table, for every value. A schema'd
value is checked and reshaped by an encoder compiled once per schema, and the envelope prefix (the
schema's JSON text) is cached with it. A poll is converted in C loops (`from_connect_values`), a run of
values sharing one schema (or having none) at a time, with no Python call per record; when that schema
holds no floats (`fast_json.writes_alike`), pydantic-core's serializer writes the bytes, byte for byte what
the standard library's encoder writes for them, in half the time.

Known differences from Kafka, all in spellings rather than meaning: floats are written with Python's
shortest repr (`1e-05`, `10000000.0`) where Java writes `1.0E-5` / `1.0E7`; and a *schemaless* map whose
keys are not strings is written as a JSON object with stringified keys (Kafka writes `[[k, v], ...]`;
with a schema the key schema decides, exactly as in Kafka).
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from operator import is_
from typing import Any, cast

from connectworker.api.schema import Schema, SchemaType
from connectworker.converters.base import Converter, config_bool, config_int
from connectworker.converters.encoding import (
    BoundedCache,
    Dialect,
    Encoder,
    InvalidValue,
    SchemaCache,
    compile_batch_encoder,
    compile_encoder,
)
from connectworker.converters.fast_json import CompactJson, native_dumps, writes_alike
from connectworker.converters.json_decode import Decoder, compile_decoder
from connectworker.converters.json_schema import SchemaJsonError, schema_from_json, schema_to_json

SCHEMAS_ENABLE_CONFIG = "schemas.enable"
SCHEMAS_CACHE_SIZE_CONFIG = "schemas.cache.size"

ENVELOPE_ERROR = (
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional '
    "fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter "
    "configuration."
)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _schemaless_default(value: Any) -> Any:
    """Called by the JSON encoder for values it has no form for: only bytes have one (base64, as Kafka)."""
    if isinstance(value, bytes | bytearray | memoryview):
        return _b64(bytes(value))
    raise TypeError(f"values of type {type(value).__name__} have no JSON form without a schema")


def _reject_constant(token: str) -> Any:
    raise ValueError(f"{token} is not valid JSON")


JSON_DIALECT = Dialect(
    encode_bytes=_b64,
    string_keyed=lambda schema: schema.key_schema is not None and schema.key_schema.type is SchemaType.STRING,
    map_entry=lambda key, value: [key, value],
)

_ENCODER = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_schemaless_default)
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
_FAST = CompactJson(_ENCODER)
_NULL_ENVELOPE = '{"schema":null,"payload":'


def _fast_text(plain: Any) -> str | None:
    """`plain` as JSON by the fast encoder; None for a value it cannot write (NaN, a circular or an
    unwritable value), which the checking encoder then writes or names."""
    try:
        return _FAST.one(plain)
    except (ValueError, TypeError, RecursionError):
        return None


def _jackson_floats(value: Any) -> Any:
    """`value` with NaN and infinities replaced by the strings Jackson writes for them."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, dict):
        return {key: _jackson_floats(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_jackson_floats(item) for item in value]
    return value


@dataclass(frozen=True, slots=True)
class _WritePlan:
    envelope_prefix: str
    encode: Encoder
    encode_all: Callable[[Sequence[Any]], list[Any]]
    native_prefix: bytes | None
    """`envelope_prefix` in UTF-8 when the schema's values are written by `native_dumps` (writes_alike)."""


@dataclass(frozen=True, slots=True)
class _ReadPlan:
    schema: Schema
    decode: Decoder


def _write_plan(schema: Schema) -> _WritePlan:
    schema_text = _ENCODER.encode(schema_to_json(schema))
    prefix = '{"schema":' + schema_text + ',"payload":'
    native: bytes | None = None
    if writes_alike(schema):
        try:
            native = prefix.encode()
        except UnicodeEncodeError:  # a lone surrogate in the schema: the checking path names the problem
            native = None
    encode = compile_encoder(schema, JSON_DIALECT)
    return _WritePlan(prefix, encode, compile_batch_encoder(schema, JSON_DIALECT, encode), native)


class JsonConverter(Converter):
    """Kafka's JSON converter. Configs: `schemas.enable` (default true), `schemas.cache.size` (1000)."""

    def __init__(self) -> None:
        self.schemas_enabled = True
        self._cache_size = 1000
        self._writers: SchemaCache[_WritePlan] = SchemaCache(_write_plan, self._cache_size)
        self._readers: BoundedCache[str, _ReadPlan] = BoundedCache(self._cache_size)

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        self.is_key = is_key
        self.schemas_enabled = config_bool(configs, SCHEMAS_ENABLE_CONFIG, True)
        self._cache_size = config_int(configs, SCHEMAS_CACHE_SIZE_CONFIG, 1000)
        self._writers = SchemaCache(_write_plan, self._cache_size)
        self._readers = BoundedCache(self._cache_size)

    # -- Connect -> bytes ---------------------------------------------------------------------------

    def from_connect_data(self, topic: str, schema: Schema | None, value: Any) -> bytes | None:
        if schema is None:
            if value is None:
                return None
            text = self._dumps(topic, value)
            if self.schemas_enabled:
                text = _NULL_ENVELOPE + text + "}"
        else:
            plan = self._plan_for(topic, schema)
            try:
                plain = plan.encode(value)
            except InvalidValue as exc:
                raise self._error(topic, exc.describe(), field=exc.location) from None
            text = self._dumps(topic, plain)
            if self.schemas_enabled:
                text = plan.envelope_prefix + text + "}"
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise self._error(topic, f"the value holds text that is not valid Unicode: {exc}") from None

    def from_connect_values(
        self, topics: Sequence[str], schemas: Sequence[Schema | None], values: Sequence[Any]
    ) -> list[bytes | None]:
        """A poll's values in C loops, a run of values sharing one schema (or having none) at a time: a poll
        of one table is one run, a stream mixing a few tables a few. A run the fast encoder cannot write
        (NaN, circular, bad for its schema, not JSON) goes through `from_connect_data` value by value, which
        writes or names each exactly as it always does."""
        count = len(values)
        if count and all(map(is_, schemas, repeat(schemas[0], count))):
            return self._run(topics, schemas, values)
        out: list[bytes | None] = []
        start = 0
        while start < count:
            schema, end = schemas[start], start + 1
            while end < count and schemas[end] is schema:
                end += 1
            out += self._run(topics[start:end], schemas[start:end], values[start:end])
            start = end
        return out

    def _run(
        self, topics: Sequence[str], schemas: Sequence[Schema | None], values: Sequence[Any]
    ) -> list[bytes | None]:
        """`values`, all of the schema `schemas[0]`, in C loops (one by one if the fast encoder cannot)."""
        if len(values) < 2:
            return list(map(self.from_connect_data, topics, schemas, values))
        schema = schemas[0]
        try:
            if schema is None:
                prefix = _NULL_ENVELOPE
                plain: Sequence[Any] = values
            else:
                plan = self._writers.get(schema)
                prefix, plain = plan.envelope_prefix, plan.encode_all(values)
                native = plan.native_prefix
                if native is not None:  # a schema's None value is written "null", as by from_connect_data
                    data = list(map(native_dumps, plain))
                    if self.schemas_enabled:
                        return [native + item + b"}" for item in data]
                    return cast("list[bytes | None]", data)
            texts = _FAST.many(plain)
            wrapped = [prefix + text + "}" for text in texts] if self.schemas_enabled else texts
            out: list[bytes | None] = list(map(str.encode, wrapped))
        except Exception:
            return list(map(self.from_connect_data, topics, schemas, values))
        if schema is None and "null" in texts:  # schemaless None (a tombstone) is a Kafka null, not "null"
            out = [None if text == "null" else data for text, data in zip(texts, out, strict=True)]
        return out

    def _plan_for(self, topic: str, schema: Schema) -> _WritePlan:
        try:
            return self._writers.get(schema)
        except (ValueError, SchemaJsonError) as exc:
            raise self._error(topic, f"the schema is invalid: {exc}") from None

    def _dumps(self, topic: str, plain: Any) -> str:
        fast = _fast_text(plain)
        if fast is not None:
            return fast
        try:
            return _ENCODER.encode(plain)
        except ValueError as exc:
            if "Out of range float" not in str(exc):
                raise self._error(topic, f"the value cannot be written as JSON: {exc}") from None
        except (TypeError, RecursionError) as exc:
            raise self._error(topic, f"the value cannot be written as JSON: {exc}") from None
        return _ENCODER.encode(_jackson_floats(plain))

    # -- bytes -> Connect ---------------------------------------------------------------------------

    def to_connect_data(self, topic: str, data: bytes | None) -> tuple[Schema | None, Any]:
        if data is None:
            return None, None
        raw = bytes(data)
        if not raw.strip():
            # Jackson reads empty input as a "missing" node, which Kafka treats as a null payload.
            if self.schemas_enabled:
                raise self._error(topic, ENVELOPE_ERROR)
            return None, None
        try:
            node = _DECODER.decode(raw.decode("utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise self._error(
                topic, f"Converting byte[] to Kafka Connect data failed due to serialization error: {exc}"
            ) from None
        if not self.schemas_enabled:
            return None, node
        if not (isinstance(node, dict) and len(node) == 2 and "schema" in node and "payload" in node):
            raise self._error(topic, ENVELOPE_ERROR)
        schema_node = node["schema"]
        if schema_node is None:
            return None, node["payload"]
        plan = self._read_plan(topic, schema_node)
        try:
            return plan.schema, plan.decode(node["payload"])
        except InvalidValue as exc:
            raise self._error(topic, exc.describe(), field=exc.location) from None

    def _read_plan(self, topic: str, schema_node: Any) -> _ReadPlan:
        # The parsed schema JSON re-encoded compactly is a cheap, exact cache key.
        key = _ENCODER.encode(schema_node)
        plan = self._readers.get(key)
        if plan is not None:
            return plan
        try:
            schema = schema_from_json(schema_node)
        except SchemaJsonError as exc:
            raise self._error(topic, str(exc)) from None
        assert schema is not None  # a JSON null schema is handled by the caller
        plan = _ReadPlan(schema, compile_decoder(schema))
        self._readers.put(key, plan)
        return plan
