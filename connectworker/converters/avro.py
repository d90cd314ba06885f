"""`AvroConverter` (Confluent's `io.confluent.connect.avro.AvroConverter`), on fastavro.

Messages use Confluent's wire format: magic byte 0, the schema id as 4 big-endian bytes, then the Avro
binary body. Schema ids come from a `SchemaRegistryClient`: pass one to the constructor, or configure
`schema.registry.url` (and the registry's other keys, `registry_config`) to get confluent-kafka's client.

Configs, Confluent's: `auto.register.schemas` (default true; false looks the schema up instead),
`use.latest.version` (default false; with `auto.register.schemas=false`, write with the subject's
latest schema and its id, as Confluent's serializer does), `normalize.schemas` (default false),
`key.subject.name.strategy` / `value.subject.name.strategy` (`TopicNameStrategy`, the default:
``{topic}-key`` / ``{topic}-value``; `RecordNameStrategy`: the record's full name;
`TopicRecordNameStrategy`: ``{topic}-{full name}``; by Confluent's class name or the bare one),
`connect.meta.data` (default true), `schemas.cache.config` (default 1000). Values without a schema are
rejected: Confluent wraps them in its "Anything" record, which no ordinary Avro consumer reads usefully.
"""

from __future__ import annotations

import io
import json
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fastavro import parse_schema, schemaless_reader, schemaless_writer
from fastavro.schema import SchemaParseException

from connectworker.api.errors import ConfigError, RetriableError
from connectworker.api.schema import Schema
from connectworker.converters.avro_schema import (
    AvroDecoder,
    AvroSchemaError,
    avro_map_is_native,
    avro_schema_for,
    connect_schema_for,
    strip_foreign_logical_types,
)
from connectworker.converters.base import Converter, config_bool, config_int
from connectworker.converters.encoding import (
    BoundedCache,
    Dialect,
    Encoder,
    InvalidValue,
    SchemaCache,
    compile_encoder,
)
from connectworker.converters.registry_config import LATEST_TTL_CONFIG
from connectworker.converters.schema_registry import (
    ConfluentSchemaRegistry,
    SchemaRegistryClient,
    SchemaRegistryError,
)

MAGIC_BYTE = 0
AUTO_REGISTER_CONFIG = "auto.register.schemas"
USE_LATEST_VERSION_CONFIG = "use.latest.version"
NORMALIZE_SCHEMAS_CONFIG = "normalize.schemas"
CONNECT_META_DATA_CONFIG = "connect.meta.data"
SCHEMAS_CACHE_CONFIG = "schemas.cache.config"
STRATEGY_PACKAGE = "io.confluent.kafka.serializers.subject."
TOPIC_NAME_STRATEGY = STRATEGY_PACKAGE + "TopicNameStrategy"
RECORD_NAME_STRATEGY = STRATEGY_PACKAGE + "RecordNameStrategy"
TOPIC_RECORD_NAME_STRATEGY = STRATEGY_PACKAGE + "TopicRecordNameStrategy"
_STRATEGIES = ("TopicNameStrategy", "RecordNameStrategy", "TopicRecordNameStrategy")

AVRO_DIALECT = Dialect(
    encode_bytes=lambda data: data,
    string_keyed=avro_map_is_native,
    map_entry=lambda key, value: {"key": key, "value": value},
)

# What fastavro raises for a datum it cannot write or a body it cannot read.
_AVRO_DATA_ERRORS = (ValueError, TypeError, OverflowError, KeyError, AttributeError, EOFError, IndexError)


@dataclass(frozen=True, slots=True)
class _Target:
    """How a schema's values are written to one topic: the magic byte and schema id, and the parsed
    writer schema (the converter's own, or the subject's latest with `use.latest.version`)."""

    header: bytes
    parsed: Any
    expires: float = math.inf  # monotonic seconds; a latest version is asked again after latest.cache.ttl.sec


@dataclass(slots=True)
class _WritePlan:
    schema_text: str
    parsed: Any
    encode: Encoder
    record_name: str | None  # the full name of a record schema, for the record name strategies
    targets: dict[str, _Target] = field(default_factory=dict)  # by topic


@dataclass(frozen=True, slots=True)
class _ReadPlan:
    schema: Schema
    parsed: Any
    decode: AvroDecoder | None


class AvroConverter(Converter):
    """Connect data <-> Confluent-framed Avro, with schema ids from a Schema Registry."""

    def __init__(self, registry: SchemaRegistryClient | None = None) -> None:
        self._given_registry = registry
        self._registry: SchemaRegistryClient | None = registry
        self._owned_registry: ConfluentSchemaRegistry | None = None
        self.auto_register = True
        self.use_latest_version = False
        self.normalize = False
        self.strategy = "TopicNameStrategy"
        self._latest_ttl: float = math.inf
        self.connect_meta_data = True
        self._cache_size = 1000
        self._writers: SchemaCache[_WritePlan] = SchemaCache(self._write_plan, self._cache_size)
        self._readers: BoundedCache[int, _ReadPlan] = BoundedCache(self._cache_size)

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        self.is_key = is_key
        self.auto_register = config_bool(configs, AUTO_REGISTER_CONFIG, True)
        self.use_latest_version = config_bool(configs, USE_LATEST_VERSION_CONFIG, False)
        self.normalize = config_bool(configs, NORMALIZE_SCHEMAS_CONFIG, False)
        self.connect_meta_data = config_bool(configs, CONNECT_META_DATA_CONFIG, True)
        self._cache_size = config_int(configs, SCHEMAS_CACHE_CONFIG, 1000)
        ttl = config_int(configs, LATEST_TTL_CONFIG, -1, minimum=-1)
        self._latest_ttl = math.inf if ttl < 0 else float(ttl)
        strategy_key = "key.subject.name.strategy" if is_key else "value.subject.name.strategy"
        self.strategy = _strategy(strategy_key, str(configs.get(strategy_key, TOPIC_NAME_STRATEGY)))
        self._writers = SchemaCache(self._write_plan, self._cache_size)
        self._readers = BoundedCache(self._cache_size)
        if self._given_registry is None:
            self.close()
            self._owned_registry = ConfluentSchemaRegistry.from_config(configs)
            self._registry = self._owned_registry

    def close(self) -> None:
        if self._owned_registry is not None:
            self._owned_registry.close()
            self._owned_registry = None
            self._registry = None

    def subject(self, topic: str, record_name: str | None = None) -> str:
        """The registry subject for this converter's side of `topic`, by the configured strategy;
        `record_name` is the full name of the written record schema (None if it is no record)."""
        if self.strategy == "TopicNameStrategy":
            return f"{topic}-key" if self.is_key else f"{topic}-value"
        if record_name is None:
            side = "key" if self.is_key else "value"
            raise self._error(
                topic,
                f"{self.strategy} needs a record schema (a struct), but the {side} schema is "
                f"not one; use TopicNameStrategy for {side}s of other types",
            )
        return record_name if self.strategy == "RecordNameStrategy" else f"{topic}-{record_name}"

    # -- Connect -> bytes ---------------------------------------------------------------------------

    def from_connect_data(self, topic: str, schema: Schema | None, value: Any) -> bytes | None:
        if value is None:
            return None
        if schema is None:
            raise self._error(
                topic,
                f"AvroConverter needs a schema, but the record has a value of type "
                f"{type(value).__name__} and no schema; give the record a schema or use "
                "JsonConverter",
            )
        try:
            plan = self._writers.get(schema)
        except (AvroSchemaError, SchemaParseException, ValueError) as exc:
            raise self._error(topic, f"the schema cannot be expressed in Avro: {exc}") from None
        try:
            datum = plan.encode(value)
        except InvalidValue as exc:
            raise self._error(topic, exc.describe(), field=exc.location) from None
        target = plan.targets.get(topic)
        if target is None or (target.expires < math.inf and target.expires < time.monotonic()):
            target = self._target(topic, plan)
        out = io.BytesIO()
        out.write(target.header)
        try:
            schemaless_writer(out, target.parsed, datum, disable_tuple_notation=True)
        except _AVRO_DATA_ERRORS as exc:
            raise self._error(topic, f"fastavro could not write the value: {exc}") from None
        return out.getvalue()

    def _write_plan(self, schema: Schema) -> _WritePlan:
        avro = avro_schema_for(schema, connect_meta_data=self.connect_meta_data)
        text = json.dumps(avro, separators=(",", ":"))
        record_name = None
        if isinstance(avro, dict) and avro.get("type") == "record":
            namespace = avro.get("namespace")
            record_name = f"{namespace}.{avro['name']}" if namespace else str(avro["name"])
        return _WritePlan(text, parse_schema(avro), compile_encoder(schema, AVRO_DIALECT), record_name)

    def _target(self, topic: str, plan: _WritePlan) -> _Target:
        registry = self._require_registry(topic)
        subject = self.subject(topic, plan.record_name)
        latest = self.use_latest_version and not self.auto_register  # auto.register.schemas wins, as Confluent's
        parsed, expires = plan.parsed, math.inf
        try:
            if self.auto_register:
                schema_id = registry.register(subject, plan.schema_text, normalize=self.normalize)
            elif latest:
                schema_id, text = registry.latest(subject)
                parsed = self._latest_schema(topic, subject, text)
                expires = time.monotonic() + self._latest_ttl
            else:
                schema_id = registry.lookup(subject, plan.schema_text, normalize=self.normalize)
        except RetriableError:
            raise
        except SchemaRegistryError as exc:
            if self.auto_register:
                problem = f"the schema could not be registered under subject '{subject}'"
            elif latest:
                problem = (
                    f"the latest schema of subject '{subject}' could not be read ({USE_LATEST_VERSION_CONFIG}=true)"
                )
            else:
                problem = (
                    f"the schema is not registered under subject '{subject}' "
                    f"({AUTO_REGISTER_CONFIG}=false: register it first)"
                )
            raise self._error(topic, f"{problem}: {exc}") from exc
        target = _Target(bytes([MAGIC_BYTE]) + schema_id.to_bytes(4, "big"), parsed, expires)
        plan.targets[topic] = target
        return target

    def _latest_schema(self, topic: str, subject: str, text: str) -> Any:
        try:
            return parse_schema(strip_foreign_logical_types(json.loads(text)))
        except (SchemaParseException, ValueError, KeyError, TypeError) as exc:
            raise self._error(topic, f"the latest schema of subject '{subject}' cannot be parsed: {exc}") from None

    def _require_registry(self, topic: str) -> SchemaRegistryClient:
        if self._registry is None:
            raise self._error(topic, "the converter has no schema registry: call configure() first")
        return self._registry

    # -- bytes -> Connect ---------------------------------------------------------------------------

    def to_connect_data(self, topic: str, data: bytes | None) -> tuple[Schema | None, Any]:
        if data is None:
            return None, None
        if len(data) < 5 or data[0] != MAGIC_BYTE:
            raise self._error(
                topic,
                "Unknown magic byte! The data is not in the Confluent Avro wire format "
                "(magic byte 0, 4-byte schema id, Avro body)",
            )
        schema_id = int.from_bytes(data[1:5], "big")
        plan = self._readers.get(schema_id)
        if plan is None:
            plan = self._read_plan(topic, schema_id)
        body = io.BytesIO(data)
        body.seek(5)
        try:
            value = schemaless_reader(body, plan.parsed, None)
        except _AVRO_DATA_ERRORS as exc:
            raise self._error(topic, f"the Avro body does not match schema id {schema_id}: {exc}") from None
        if plan.decode is not None:
            value = plan.decode(value)
        return plan.schema, value

    def _read_plan(self, topic: str, schema_id: int) -> _ReadPlan:
        registry = self._require_registry(topic)
        try:
            text = registry.get_schema(schema_id)
        except RetriableError:
            raise
        except SchemaRegistryError as exc:
            raise self._error(topic, f"schema id {schema_id} could not be fetched: {exc}") from exc
        try:
            avro = json.loads(text)
            parsed = parse_schema(strip_foreign_logical_types(avro))
            schema, decode = connect_schema_for(avro)
        except (AvroSchemaError, SchemaParseException, ValueError, KeyError, TypeError) as exc:
            raise self._error(topic, f"schema id {schema_id} has no Connect equivalent: {exc}") from None
        plan = _ReadPlan(schema, parsed, decode)
        self._readers.put(schema_id, plan)
        return plan


def _strategy(key: str, name: str) -> str:
    """The bare name of a subject name strategy given by Confluent's class name or the bare one."""
    bare = name.strip().removeprefix(STRATEGY_PACKAGE)
    if bare not in _STRATEGIES:
        allowed = ", ".join(STRATEGY_PACKAGE + strategy for strategy in _STRATEGIES)
        raise ConfigError(
            {key: f"'{name.strip()}' is not a subject name strategy; use one of {allowed} (or the bare class name)"}
        )
    return bare
