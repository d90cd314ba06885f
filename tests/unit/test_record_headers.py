"""Record headers through `header.converter`: the bytes each of Kafka's header converters writes for the
typed values a task returns, how the converter is chosen and refused, and what a task sees when a
header cannot be converted. The expected bytes are what Kafka's `SimpleHeaderConverter` (through
`Values.convertToString`), `StringConverter` (Java's `toString()`) and `JsonConverter` (with its
`schemas.enable` default, true) write for the same Connect values."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from connectworker.api import ConfigError, SchemaAndValue, SourceRecord
from connectworker.api.schema import BYTES_SCHEMA, INT32_SCHEMA, STRING_SCHEMA, Schema, SchemaType
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.error_handling import ErrorHandling, Tolerance
from connectworker.config.worker_config import WorkerConfig
from connectworker.converters import (
    ConversionError,
    HeaderConverter,
    SimpleHeaderConverter,
    load_header_converter,
    resolve_header_converter,
)
from connectworker.converters.header_converters import ConverterHeaders
from connectworker.converters.json import JsonConverter
from connectworker.converters.logical import DATE, TIMESTAMP
from connectworker.converters.string import StringConverter
from connectworker.runtime.tasks.error_tolerance import ToleranceExceededError, ToleranceOperator
from connectworker.runtime.tasks.record_conversion import RecordSerializer
from tests.unit.test_worker_source_task import Harness, ScriptedTask

FLOAT32 = Schema(SchemaType.FLOAT32)
INT8 = Schema(SchemaType.INT8)
POINT = Schema.struct("Point", ("x", INT32_SCHEMA), ("label", STRING_SCHEMA.as_optional()))


class UpperHeaders(HeaderConverter):
    """A header converter of a task's own: upper-cased text, with a configurable suffix."""

    def configure(self, configs: Mapping[str, Any]) -> None:
        self.suffix = str(configs.get("suffix", ""))

    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        return None if value is None else (str(value).upper() + self.suffix).encode()


def record(*headers: tuple[str, Any], topic: str = "t", value: str = "v") -> SourceRecord:
    return SourceRecord({"p": 0}, {"n": 1}, topic, value, "k", headers=list(headers))


def serializer(
    header_converter: HeaderConverter | None = None, tolerance: Tolerance = Tolerance.NONE
) -> RecordSerializer:
    key, value = StringConverter(), StringConverter()
    key.configure({}, True)
    value.configure({}, False)
    operator = ToleranceOperator(ErrorHandling(tolerance=tolerance), "c-0", threading.Event())
    return RecordSerializer(key, value, operator, header_converter)


def written(converter: HeaderConverter, value: Any, schema: Schema | None = None) -> bytes | None:
    return converter.from_connect_header("t", "h", schema, value)


# -- what each converter writes ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "schema", "expected"),
    [
        ("text", None, b"text"),
        (None, None, None),
        (True, None, b"true"),
        (42, INT32_SCHEMA, b"42"),
        (0.1, FLOAT32, b"0.1"),
        (1e10, None, b"1.0E10"),
        (b"\x00\x01\xff", None, b"AAH/"),  # bytes as base64 text, as Values.convertToString writes them
        ([1, "a", None], None, b'[1,"a",null]'),
        ({"x": 3, "label": None}, POINT, b'{"x":3,"label":null}'),
        (date(2020, 1, 31), Schema(SchemaType.INT32, name=DATE), b"2020-01-31"),
        (
            datetime(2020, 1, 31, 10, 15, 30, tzinfo=UTC),
            Schema(SchemaType.INT64, name=TIMESTAMP),
            b"2020-01-31T10:15:30.000Z",
        ),
        ("ünïcode", None, "ünïcode".encode()),
    ],
)
def test_simple_header_converter_writes_kafkas_text(value: Any, schema: Schema | None, expected: bytes | None) -> None:
    assert written(SimpleHeaderConverter(), value, schema) == expected


@pytest.mark.parametrize(
    ("value", "schema", "expected"),
    [
        ("text", STRING_SCHEMA, b'{"schema":{"type":"string","optional":false},"payload":"text"}'),
        (1, INT8, b'{"schema":{"type":"int8","optional":false},"payload":1}'),
        (True, None, b'{"schema":null,"payload":true}'),
        (None, None, None),
        (None, STRING_SCHEMA.as_optional(), b'{"schema":{"type":"string","optional":true},"payload":null}'),
        (b"\x01", BYTES_SCHEMA, b'{"schema":{"type":"bytes","optional":false},"payload":"AQ=="}'),
    ],
)
def test_json_converter_writes_headers_in_its_envelope(
    value: Any, schema: Schema | None, expected: bytes | None
) -> None:
    assert written(load_header_converter("org.apache.kafka.connect.json.JsonConverter", {}), value, schema) == expected
    plain = load_header_converter("JsonConverter", {"schemas.enable": "false"})
    assert written(plain, {"a": [1, None]}) == b'{"a":[1,null]}'


@pytest.mark.parametrize(
    ("value", "schema", "expected"),
    [
        ("text", None, b"text"),
        (True, None, b"true"),
        (2.5, FLOAT32, b"2.5"),
        (1e10, None, b"1.0E10"),
        (["a", 1, None], None, b"[a, 1, null]"),
        ({"a": 1}, None, b"{a=1}"),
        ({"x": 3, "label": None}, POINT, b"Struct{x=3}"),
        (datetime(2020, 1, 31, 10, 15, 30, tzinfo=UTC), None, b"Fri Jan 31 10:15:30 UTC 2020"),
        (b"\x00raw", None, b"\x00raw"),
    ],
)
def test_string_converter_writes_javas_to_string(value: Any, schema: Schema | None, expected: bytes) -> None:
    assert (
        written(load_header_converter("org.apache.kafka.connect.storage.StringConverter", {}), value, schema)
        == expected
    )


def test_byte_array_converter_passes_bytes_and_refuses_anything_else_naming_the_header() -> None:
    converter = load_header_converter("org.apache.kafka.connect.converters.ByteArrayConverter", {})
    assert written(converter, b"\x00\xff") == b"\x00\xff"
    with pytest.raises(ConversionError) as info:
        converter.from_connect_header("orders", "trace-id", None, "abc")
    assert str(info.value) == (
        "ByteArrayConverter could not convert header 'trace-id' of a record for topic "
        "'orders': ByteArrayConverter is not compatible with objects of type str"
    )


def test_a_value_with_no_connect_type_is_refused_naming_the_header() -> None:
    with pytest.raises(
        ConversionError,
        match="SimpleHeaderConverter could not convert header 'h' of a record for "
        "topic 't': Failed to serialize unexpected value type set",
    ):
        written(SimpleHeaderConverter(), {1, 2})


# -- the record path -----------------------------------------------------------------------------------
def test_a_poll_without_headers_carries_no_header_column() -> None:
    converted = serializer().convert_records([record(), record()])
    assert converted.headers is None


def test_typed_headers_of_a_poll_are_converted_and_plain_strings_pass_as_they_are() -> None:
    converted = serializer().convert_records(
        [
            record(),
            record(("s", "plain"), ("n", 7), ("f", SchemaAndValue(FLOAT32, 0.1)), ("none", None), ("n", True)),
        ]
    )
    assert converted.headers == [None, [("s", "plain"), ("n", b"7"), ("f", b"0.1"), ("none", None), ("n", b"true")]]


def test_a_header_that_cannot_be_converted_fails_the_poll_naming_stage_and_header() -> None:
    headers = load_header_converter("ByteArrayConverter", {})
    with pytest.raises(ToleranceExceededError) as info:
        serializer(headers).convert_records([record(("ok", b"1")), record(("bad", "text"))])
    assert "header converter" in str(info.value) and "header 'bad'" in str(info.value)


def test_under_errors_tolerance_all_a_record_whose_header_fails_is_dropped() -> None:
    headers = load_header_converter("ByteArrayConverter", {})
    good, bad = record(("ok", b"1"), value="good"), record(("bad", "text"), value="bad")
    converted = serializer(headers, Tolerance.ALL).convert_records([good, bad])
    assert converted.values == [b"good"] and converted.dropped == [bad]
    assert converted.headers == [[("ok", b"1")]]


def test_a_task_with_headers_produces_the_converted_bytes(tmp_path: Path) -> None:
    h = Harness(tmp_path, ScriptedTask(), header_converter=load_header_converter("JsonConverter", {})).start()
    h.task.polls.put([record(("n", SchemaAndValue(INT32_SCHEMA, 5)), ("t", "x")), record()])
    h.wait_committed({"n": 1})
    h.stop()
    assert h.producer is not None
    assert [m.headers() for m in h.producer.delivered] == [
        [("n", b'{"schema":{"type":"int32","optional":false},"payload":5}'), ("t", b'{"schema":null,"payload":"x"}')],
        None,
    ]


def test_a_task_whose_header_cannot_be_converted_fails_naming_the_header(tmp_path: Path) -> None:
    h = Harness(tmp_path, ScriptedTask(), header_converter=load_header_converter("ByteArrayConverter", {})).start()
    h.task.polls.put([record(("trace", "not bytes"))])
    trace = h.wait_failed()
    assert "header converter failed" in trace and "header 'trace'" in trace
    assert h.sent() == []


# -- choosing the converter ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("org.apache.kafka.connect.storage.SimpleHeaderConverter", SimpleHeaderConverter),
        ("SimpleHeaderConverter", SimpleHeaderConverter),
        ("connectworker.converters.SimpleHeaderConverter", SimpleHeaderConverter),
        ("tests.unit.test_record_headers.UpperHeaders", UpperHeaders),
    ],
)
def test_header_converters_by_kafka_python_and_bare_names(name: str, cls: type) -> None:
    assert type(load_header_converter(name, {})) is cls


@pytest.mark.parametrize(
    "name",
    [
        "org.apache.kafka.connect.storage.StringConverter",
        "ByteArrayConverter",
        "connectworker.converters.json.JsonConverter",
    ],
)
def test_record_converters_kafka_uses_for_headers_are_adapted(name: str) -> None:
    assert isinstance(load_header_converter(name, {}), ConverterHeaders)


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("io.confluent.connect.avro.AvroConverter", "it converts record keys and values, not headers"),
        ("NoSuchConverter", "it is not a built-in header converter name"),
        ("no_such_module.Converter", "module 'no_such_module' cannot be imported"),
        ("tests.unit.test_record_headers.UpperConverter", "has no attribute 'UpperConverter'"),
        (
            "tests.unit.test_record_headers.Harness",
            "it is not a subclass of connectworker.converters.header_converters.HeaderConverter",
        ),
    ],
)
def test_a_class_that_is_no_header_converter_is_refused_naming_the_key(name: str, why: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_header_converter(name, {})
    message = info.value.problems["header.converter"]
    assert f"Invalid header converter class '{name}'" in message and why in message
    assert "org.apache.kafka.connect.storage.SimpleHeaderConverter" in message  # says what is allowed


def test_a_bad_setting_of_the_header_converter_names_its_key() -> None:
    with pytest.raises(ConfigError) as info:
        load_header_converter("JsonConverter", {"schemas.enable": "maybe"})
    assert set(info.value.problems) == {"header.converter.schemas.enable"}


def test_the_connectors_header_converter_wins_with_its_own_settings_as_in_kafka() -> None:
    worker = {"header.converter": "tests.unit.test_record_headers.UpperHeaders", "header.converter.suffix": "!"}
    assert type(resolve_header_converter({}, {})) is SimpleHeaderConverter
    from_worker = resolve_header_converter({}, worker)
    assert written(from_worker, "a") == b"A!"
    connector = {"header.converter": "JsonConverter", "header.converter.schemas.enable": "false"}
    own = resolve_header_converter(connector, worker)
    assert isinstance(own, ConverterHeaders) and isinstance(own.converter, JsonConverter)
    assert own.converter.schemas_enabled is False


def test_worker_and_connector_files_take_header_converter() -> None:
    config = WorkerConfig.from_properties(
        {"header.converter": "JsonConverter", "header.converter.schemas.enable": "false"}
    )
    assert config.header_converter == "JsonConverter"
    assert config.pass_through["header.converter.schemas.enable"] == "false"
    assert WorkerConfig.from_properties({}).header_converter == "org.apache.kafka.connect.storage.SimpleHeaderConverter"
    props = {"name": "c", "connector.class": "DataGen", "header.converter": "StringConverter"}
    assert parse_connector_config(props).props["header.converter"] == "StringConverter"
    with pytest.raises(ConfigError) as info:
        parse_connector_config({**props, "header.converter": "io.confluent.connect.avro.AvroConverter"})
    assert "not headers" in info.value.problems["header.converter"]


def test_the_environment_sets_the_worker_header_converter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONNECT_HEADER_CONVERTER", "org.apache.kafka.connect.storage.StringConverter")
    monkeypatch.setenv("CONNECT_HEADER_CONVERTER_CONVERTER_ENCODING", "ISO-8859-1")
    config = WorkerConfig.from_properties({})
    assert config.header_converter == "org.apache.kafka.connect.storage.StringConverter"
    assert config.pass_through["header.converter.converter.encoding"] == "ISO-8859-1"
