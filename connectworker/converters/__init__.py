"""Converters between Connect data (schema + Python value) and Kafka bytes: String, ByteArray, JSON, Avro;
and header converters (`SimpleHeaderConverter`, Kafka's default, or the String, ByteArray and JSON ones)."""

from connectworker.converters.avro import AvroConverter
from connectworker.converters.base import ConversionError, Converter
from connectworker.converters.bytearray import ByteArrayConverter
from connectworker.converters.header_converters import HeaderConverter, SimpleHeaderConverter
from connectworker.converters.json import JsonConverter
from connectworker.converters.json_schema import schema_from_json, schema_to_json
from connectworker.converters.registry import (
    BUILTIN_CONVERTERS,
    KAFKA_CLASS_NAMES,
    converter_class,
    converter_config_for,
    load_converter,
    load_header_converter,
    resolve_converter,
    resolve_header_converter,
)
from connectworker.converters.schema_registry import (
    ConfluentSchemaRegistry,
    SchemaRegistryAuthError,
    SchemaRegistryClient,
    SchemaRegistryError,
    SchemaRegistryUnavailableError,
)
from connectworker.converters.string import StringConverter

__all__ = [
    "BUILTIN_CONVERTERS",
    "KAFKA_CLASS_NAMES",
    "AvroConverter",
    "ByteArrayConverter",
    "ConfluentSchemaRegistry",
    "ConversionError",
    "Converter",
    "HeaderConverter",
    "JsonConverter",
    "SchemaRegistryAuthError",
    "SchemaRegistryClient",
    "SchemaRegistryError",
    "SchemaRegistryUnavailableError",
    "SimpleHeaderConverter",
    "StringConverter",
    "converter_class",
    "converter_config_for",
    "load_converter",
    "load_header_converter",
    "resolve_converter",
    "resolve_header_converter",
    "schema_from_json",
    "schema_to_json",
]
