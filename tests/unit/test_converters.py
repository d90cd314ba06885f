"""String, ByteArray and JSON converters, and converter lookup by class name."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from datetime import UTC, date, datetime, time
from typing import Any

import pytest

from connectworker.api.errors import ConfigError
from connectworker.api.schema import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT64_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaType,
)
from connectworker.converters import (
    AvroConverter,
    ByteArrayConverter,
    ConversionError,
    Converter,
    JsonConverter,
    StringConverter,
    converter_config_for,
    load_converter,
    resolve_converter,
    schema_from_json,
    schema_to_json,
)
from connectworker.converters.logical import DATE, TIME, TIMESTAMP


def json_converter(**configs: str) -> JsonConverter:
    converter = JsonConverter()
    converter.configure(configs, is_key=False)
    return converter


ADDRESS = Schema.struct("com.example.Address", ("street", STRING_SCHEMA), ("zip", OPTIONAL_STRING_SCHEMA))
PERSON = Schema(
    SchemaType.STRUCT,
    name="com.example.Person",
    version=2,
    doc="A person",
    fields=Schema.struct(
        None,
        ("name", STRING_SCHEMA),
        ("age", Schema(SchemaType.INT8, optional=True)),
        ("score", FLOAT64_SCHEMA),
        ("active", BOOLEAN_SCHEMA),
        ("tags", Schema.array(STRING_SCHEMA)),
        ("attributes", Schema.map(STRING_SCHEMA, INT32_SCHEMA, optional=True)),
        ("address", ADDRESS.as_optional()),
        ("photo", OPTIONAL_BYTES_SCHEMA),
    ).fields,
)
PERSON_VALUE = {
    "name": "Ann",
    "age": 42,
    "score": 1.5,
    "active": True,
    "tags": ["a", "b"],
    "attributes": {"height": 170},
    "address": {"street": "Main St 1", "zip": None},
    "photo": b"\x00\xff",
}


# -- StringConverter ------------------------------------------------------------------------------------


def test_string_converter_encodes_text_and_passes_bytes_through() -> None:
    converter = StringConverter()
    converter.configure({}, is_key=True)
    assert converter.from_connect_data("t", STRING_SCHEMA, "héllo") == "héllo".encode()
    assert converter.from_connect_data("t", None, b"\x00raw") == b"\x00raw"
    assert converter.from_connect_data("t", None, 42) == b"42"
    assert converter.from_connect_data("t", None, None) is None
    assert converter.to_connect_data("t", "héllo".encode()) == (OPTIONAL_STRING_SCHEMA, "héllo")
    assert converter.to_connect_data("t", None) == (OPTIONAL_STRING_SCHEMA, None)


def test_string_converter_honours_converter_encoding() -> None:
    converter = StringConverter()
    converter.configure({"converter.encoding": "ISO-8859-1"}, is_key=False)
    assert converter.from_connect_data("t", None, "é") == b"\xe9"
    assert converter.to_connect_data("t", b"\xe9") == (OPTIONAL_STRING_SCHEMA, "é")


def test_string_converter_errors_name_topic_and_setting() -> None:
    with pytest.raises(ConfigError, match=r"converter\.encoding"):
        StringConverter().configure({"converter.encoding": "no-such-charset"}, is_key=False)
    converter = StringConverter()
    converter.configure({"converter.encoding": "ascii"}, is_key=False)
    with pytest.raises(ConversionError, match="topic 'events'") as info:
        converter.from_connect_data("events", None, "é")
    assert info.value.topic == "events"
    with pytest.raises(ConversionError, match="topic 'events'"):
        converter.to_connect_data("events", b"\xff")


# -- ByteArrayConverter ---------------------------------------------------------------------------------


def test_bytearray_converter_passes_bytes_through() -> None:
    converter = ByteArrayConverter()
    converter.configure({}, is_key=False)
    assert converter.from_connect_data("t", BYTES_SCHEMA, b"\x01\x02") == b"\x01\x02"
    assert converter.from_connect_data("t", None, bytearray(b"ab")) == b"ab"
    assert converter.from_connect_data("t", None, memoryview(b"cd")) == b"cd"
    assert converter.from_connect_data("t", None, None) is None
    assert converter.to_connect_data("t", b"xy") == (OPTIONAL_BYTES_SCHEMA, b"xy")
    assert converter.to_connect_data("t", None) == (OPTIONAL_BYTES_SCHEMA, None)


def test_bytearray_converter_rejects_other_values_and_schemas() -> None:
    converter = ByteArrayConverter()
    converter.configure({}, is_key=False)
    expected = "ByteArrayConverter is not compatible with objects of type str"
    with pytest.raises(ConversionError, match=expected):
        converter.from_connect_data("clicks", None, "text")
    with pytest.raises(ConversionError, match="Invalid schema type for ByteArrayConverter: STRING"):
        converter.from_connect_data("clicks", STRING_SCHEMA, b"x")


# -- JsonConverter: what Kafka writes -------------------------------------------------------------------


def test_json_envelope_for_struct_is_byte_identical_to_kafka() -> None:
    expected = (
        '{"schema":{"type":"struct","fields":['
        '{"type":"string","optional":false,"field":"name"},'
        '{"type":"int8","optional":true,"field":"age"},'
        '{"type":"double","optional":false,"field":"score"},'
        '{"type":"boolean","optional":false,"field":"active"},'
        '{"type":"array","items":{"type":"string","optional":false},"optional":false,"field":"tags"},'
        '{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"int32","optional":false},'
        '"optional":true,"field":"attributes"},'
        '{"type":"struct","fields":[{"type":"string","optional":false,"field":"street"},'
        '{"type":"string","optional":true,"field":"zip"}],"optional":true,"name":"com.example.Address",'
        '"field":"address"},'
        '{"type":"bytes","optional":true,"field":"photo"}],'
        '"optional":false,"name":"com.example.Person","version":2,"doc":"A person"},'
        '"payload":{"name":"Ann","age":42,"score":1.5,"active":true,"tags":["a","b"],'
        '"attributes":{"height":170},"address":{"street":"Main St 1","zip":null},"photo":"AP8="}}'
    )
    assert json_converter().from_connect_data("people", PERSON, PERSON_VALUE) == expected.encode()


def test_json_primitive_envelopes_match_kafka() -> None:
    converter = json_converter()
    assert converter.from_connect_data("t", BOOLEAN_SCHEMA, True) == (
        b'{"schema":{"type":"boolean","optional":false},"payload":true}'
    )
    assert converter.from_connect_data("t", OPTIONAL_STRING_SCHEMA, None) == (
        b'{"schema":{"type":"string","optional":true},"payload":null}'
    )
    assert converter.from_connect_data("t", Schema(SchemaType.FLOAT32), 12.5) == (
        b'{"schema":{"type":"float","optional":false},"payload":12.5}'
    )


def test_json_schemaless_values_get_a_null_schema() -> None:
    converter = json_converter()
    assert converter.from_connect_data("t", None, {"a": [1, 2.5, None, "x"]}) == (
        b'{"schema":null,"payload":{"a":[1,2.5,null,"x"]}}'
    )
    assert converter.from_connect_data("t", None, None) is None
    assert converter.from_connect_data("t", None, b"\x01\x02") == b'{"schema":null,"payload":"AQI="}'


def test_json_without_schemas_writes_the_bare_value() -> None:
    converter = json_converter(**{"schemas.enable": "false"})
    assert converter.from_connect_data("t", None, {"k": "v", "n": 1}) == b'{"k":"v","n":1}'
    assert converter.from_connect_data("t", ADDRESS, {"street": "x", "zip": "9"}) == (b'{"street":"x","zip":"9"}')
    assert converter.from_connect_data("t", OPTIONAL_STRING_SCHEMA, None) == b"null"
    assert converter.from_connect_data("t", None, None) is None


def test_json_writes_utf8_and_jackson_spellings() -> None:
    converter = json_converter(**{"schemas.enable": "false"})
    assert converter.from_connect_data("t", None, "grüße ✓") == '"grüße ✓"'.encode()
    assert converter.from_connect_data("t", None, [math.nan, math.inf, -math.inf]) == (
        b'["NaN","Infinity","-Infinity"]'
    )


def test_json_map_with_non_string_keys_is_array_of_pairs() -> None:
    schema = Schema.map(INT32_SCHEMA, STRING_SCHEMA)
    converter = json_converter()
    data = converter.from_connect_data("t", schema, {1: "a", 2: "b"})
    assert data == (
        b'{"schema":{"type":"map","keys":{"type":"int32","optional":false},'
        b'"values":{"type":"string","optional":false},"optional":false},"payload":[[1,"a"],[2,"b"]]}'
    )
    assert converter.to_connect_data("t", data) == (schema, {1: "a", 2: "b"})


def test_json_logical_types_are_written_as_kafka_integers() -> None:
    schema = Schema.struct(
        None,
        ("day", Schema(SchemaType.INT32, name=DATE)),
        ("at", Schema(SchemaType.INT64, name=TIMESTAMP)),
        ("clock", Schema(SchemaType.INT32, name=TIME)),
    )
    value = {
        "day": date(2024, 1, 2),
        "at": datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=UTC),
        "clock": time(1, 2, 3, 4000),
    }
    converter = json_converter(**{"schemas.enable": "false"})
    assert converter.from_connect_data("t", schema, value) == (b'{"day":19724,"at":1704164645678,"clock":3723004}')
    round_trip = json_converter()
    written = round_trip.from_connect_data("t", schema, value)
    assert round_trip.to_connect_data("t", written) == (schema, value)


# -- JsonConverter: reading -----------------------------------------------------------------------------


def test_json_round_trip_of_struct_keeps_schema_and_value() -> None:
    converter = json_converter()
    data = converter.from_connect_data("people", PERSON, PERSON_VALUE)
    assert converter.to_connect_data("people", data) == (PERSON, PERSON_VALUE)


def test_json_reads_what_kafka_wrote() -> None:
    # Kafka's own test input: pretty-printed, field key first, "optional" omitted.
    kafka_written = b"""{ "schema": { "type": "struct", "fields": [
        { "field": "field1", "type": "boolean" },
        { "field": "field2", "type": "string" },
        { "field": "field3", "type": "bytes", "optional": true } ] },
      "payload": { "field1": true, "field2": "string", "field3": "AAE=" } }"""
    schema, value = json_converter().to_connect_data("t", kafka_written)
    assert schema == Schema.struct(
        None, ("field1", BOOLEAN_SCHEMA), ("field2", STRING_SCHEMA), ("field3", OPTIONAL_BYTES_SCHEMA)
    )
    assert value == {"field1": True, "field2": "string", "field3": b"\x00\x01"}


def test_json_schemaless_reading() -> None:
    assert json_converter().to_connect_data("t", b'{"schema":null,"payload":{"a":[1,2.5]}}') == (None, {"a": [1, 2.5]})
    plain = json_converter(**{"schemas.enable": "false"})
    assert plain.to_connect_data("t", b'{"a":1}') == (None, {"a": 1})
    assert plain.to_connect_data("t", b"") == (None, None)
    assert plain.to_connect_data("t", None) == (None, None)


def test_json_envelope_is_required_when_schemas_enabled() -> None:
    converter = json_converter()
    expected = (
        'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain '
        "additional fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in "
        "your converter configuration."
    )
    for data in (b'{"a":1}', b'{"schema":null,"payload":1,"extra":2}', b"[1]", b""):
        with pytest.raises(ConversionError) as info:
            converter.to_connect_data("orders", data)
        assert expected in str(info.value)
        assert "topic 'orders'" in str(info.value)


def test_json_reading_reports_bad_json_and_bad_payloads() -> None:
    converter = json_converter()
    with pytest.raises(ConversionError, match="serialization error"):
        converter.to_connect_data("t", b"{not json")
    missing = b'{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"id"}]},"payload":{}}'
    with pytest.raises(ConversionError, match="field 'id' is required") as info:
        converter.to_connect_data("t", missing)
    assert info.value.field == "id"
    with pytest.raises(ConversionError, match="Unknown schema type: widget"):
        converter.to_connect_data("t", b'{"schema":{"type":"widget"},"payload":1}')


# -- JsonConverter: validation errors -------------------------------------------------------------------


def test_json_required_field_none_names_field_and_topic() -> None:
    value = dict(PERSON_VALUE, address={"street": None})
    with pytest.raises(ConversionError) as info:
        json_converter().from_connect_data("people", PERSON, value)
    message = str(info.value)
    assert "topic 'people'" in message
    assert "field 'address.street' is required" in message
    assert info.value.field == "address.street"
    assert info.value.topic == "people"


def test_json_type_mismatches_and_unknown_fields_are_errors() -> None:
    converter = json_converter()
    with pytest.raises(ConversionError, match=r"field 'tags\[1\]' expected str"):
        converter.from_connect_data("t", PERSON, dict(PERSON_VALUE, tags=["a", 3]))
    with pytest.raises(ConversionError, match="field 'age' value 300 is out of range for int8"):
        converter.from_connect_data("t", PERSON, dict(PERSON_VALUE, age=300))
    with pytest.raises(ConversionError, match="field 'nickname' is not in the"):
        converter.from_connect_data("t", PERSON, dict(PERSON_VALUE, nickname="A"))
    with pytest.raises(ConversionError, match="the value is required"):
        converter.from_connect_data("t", STRING_SCHEMA, None)
    with pytest.raises(ConversionError, match="no JSON form without a schema"):
        converter.from_connect_data("t", None, {"when": date(2024, 1, 1)})


def test_json_equal_schema_objects_share_one_cached_plan() -> None:
    converter = json_converter()
    first = Schema.struct("x.Y", ("id", INT64_SCHEMA))
    second = Schema.struct("x.Y", ("id", INT64_SCHEMA))
    assert first is not second
    written = converter.from_connect_data("t", first, {"id": 1})
    assert written == converter.from_connect_data("t", second, {"id": 1})
    assert converter._writers.get(first) is converter._writers.get(second)


def test_json_schema_json_round_trips() -> None:
    node = schema_to_json(PERSON)
    assert list(node) == ["type", "fields", "optional", "name", "version", "doc"]
    assert schema_from_json(json.loads(json.dumps(node))) == PERSON
    assert schema_from_json(None) is None


def test_json_rejects_bad_schemas_enable() -> None:
    with pytest.raises(ConfigError, match=r"schemas\.enable"):
        json_converter(**{"schemas.enable": "yes"})


# -- registry: finding converters by name ---------------------------------------------------------------


class UpperConverter(Converter):
    """A third-party converter, importable as tests.unit.test_converters.UpperConverter."""

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        self.is_key = is_key
        self.configs = dict(configs)

    def from_connect_data(self, topic: str, schema: Schema | None, value: Any) -> bytes | None:
        return None if value is None else str(value).upper().encode()

    def to_connect_data(self, topic: str, data: bytes | None) -> tuple[Schema | None, Any]:
        return OPTIONAL_STRING_SCHEMA, None if data is None else data.decode()


class NotAConverter:
    pass


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("org.apache.kafka.connect.storage.StringConverter", StringConverter),
        ("org.apache.kafka.connect.converters.ByteArrayConverter", ByteArrayConverter),
        ("org.apache.kafka.connect.json.JsonConverter", JsonConverter),
        ("connectworker.converters.json.JsonConverter", JsonConverter),
        ("connectworker.converters.JsonConverter", JsonConverter),
        ("JsonConverter", JsonConverter),
        ("  StringConverter ", StringConverter),
        ("connectworker.converters.bytearray.ByteArrayConverter", ByteArrayConverter),
        ("tests.unit.test_converters.UpperConverter", UpperConverter),
    ],
)
def test_load_converter_accepts_kafka_python_and_bare_names(name: str, expected: type) -> None:
    converter = load_converter(name, {}, is_key=False)
    assert type(converter) is expected
    assert converter.is_key is False


def test_load_converter_accepts_confluent_avro_name() -> None:
    converter = load_converter(
        "io.confluent.connect.avro.AvroConverter", {"schema.registry.url": "http://127.0.0.1:1"}, is_key=True
    )
    assert isinstance(converter, AvroConverter)
    assert converter.subject("orders") == "orders-key"
    converter.close()


def test_load_converter_passes_configs_and_is_key() -> None:
    converter = load_converter("JsonConverter", {"schemas.enable": "false"}, is_key=True, key="key.converter")
    assert isinstance(converter, JsonConverter)
    assert converter.schemas_enabled is False
    assert converter.is_key is True


@pytest.mark.parametrize(
    "name",
    [
        "org.apache.kafka.connect.converters.IntegerConverter",
        "YamlConverter",
        "no.such.module.Converter",
        "tests.unit.test_converters.Missing",
    ],
)
def test_load_converter_unknown_name_lists_builtins(name: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_converter(name, {}, is_key=False, key="value.converter")
    assert list(info.value.problems) == ["value.converter"]
    message = info.value.problems["value.converter"]
    assert f"Unknown converter class '{name}'" in message
    for builtin in (
        "org.apache.kafka.connect.storage.StringConverter",
        "org.apache.kafka.connect.converters.ByteArrayConverter",
        "org.apache.kafka.connect.json.JsonConverter",
        "io.confluent.connect.avro.AvroConverter",
        "JsonConverter",
    ):
        assert builtin in message


def test_load_converter_rejects_classes_that_are_not_converters() -> None:
    with pytest.raises(ConfigError, match=r"not a subclass of connectworker\.converters\.base\.Converter"):
        load_converter("tests.unit.test_converters.NotAConverter", {}, is_key=False)


def test_load_converter_reports_converter_settings_under_the_key() -> None:
    with pytest.raises(ConfigError) as info:
        load_converter("JsonConverter", {"schemas.enable": "maybe"}, is_key=False, key="value.converter")
    assert list(info.value.problems) == ["value.converter.schemas.enable"]
    with pytest.raises(ConfigError) as avro_info:
        load_converter("AvroConverter", {}, is_key=True)
    assert list(avro_info.value.problems) == ["key.converter.schema.registry.url"]


def test_converter_config_for_strips_the_prefix() -> None:
    props = {
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter.schemas.enable": "false",
        "value.converter.schemas.cache.size": "10",
        "key.converter.schemas.enable": "true",
        "value.converterx": "nope",
    }
    assert converter_config_for("value.converter", props) == {"schemas.enable": "false", "schemas.cache.size": "10"}
    assert converter_config_for("key.converter.", props) == {"schemas.enable": "true"}


def test_resolve_converter_prefers_the_connector_class_and_its_own_settings() -> None:
    worker = {"value.converter": "JsonConverter", "value.converter.schemas.enable": "false"}
    from_worker = resolve_converter("value.converter", {}, worker)
    assert isinstance(from_worker, JsonConverter) and from_worker.schemas_enabled is False
    connector = {"value.converter": "org.apache.kafka.connect.json.JsonConverter"}
    from_connector = resolve_converter("value.converter", connector, worker)
    assert isinstance(from_connector, JsonConverter) and from_connector.schemas_enabled is True
    key = resolve_converter("key.converter", {}, {}, default="StringConverter")
    assert isinstance(key, StringConverter) and key.is_key is True
    with pytest.raises(ConfigError, match=r"key\.converter"):
        resolve_converter("key.converter", {}, {})


def test_schema_parameters_are_written_after_doc_and_read_back_as_kafkas_json_converter_does() -> None:
    decimal = Schema(
        SchemaType.BYTES,
        name="org.apache.kafka.connect.data.Decimal",
        version=1,
        doc="a price",
        parameters=(("scale", "2"), ("connect.decimal.precision", "10")),
    )
    node = schema_to_json(decimal.as_optional())
    assert list(node) == ["type", "optional", "name", "version", "doc", "parameters"]
    assert node["parameters"] == {"scale": "2", "connect.decimal.precision": "10"}
    assert schema_from_json(node) == decimal.as_optional()
    assert "parameters" not in schema_to_json(Schema(SchemaType.BYTES))
