"""HeaderFrom, InsertHeader, DropHeaders and TimestampConverter, against Kafka's documented behaviour and
its unit tests (`HeaderFromTest`, `InsertHeaderTest`, `DropHeadersTest`, `TimestampConverterTest`).

Expected texts of `SimpleDateFormat` parsing and of Kafka's number literals were checked against a JVM
(English locale, UTC; JDK 17 for dates, JDK 25 for `Float.toString`)."""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import Any

import pytest

from connectworker.api.errors import ConfigError, DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import (
    BOOLEAN_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaAndValue,
    SchemaType,
)
from connectworker.api.transform import Transformation
from connectworker.converters import SimpleHeaderConverter, logical
from connectworker.converters.java_date_format import JavaDateParser
from connectworker.converters.values_text import value_text
from connectworker.transforms.drop_headers import DropHeaders
from connectworker.transforms.header_from import HeaderFromKey, HeaderFromValue
from connectworker.transforms.insert_header import InsertHeader
from connectworker.transforms.registry import builtin_transformation
from connectworker.transforms.timestamp_converter import TimestampConverterKey, TimestampConverterValue


def record(**fields: Any) -> SourceRecord:
    base: dict[str, Any] = {
        "source_partition": {"foo": "bar"},
        "source_offset": {"baz": "quxx"},
        "topic": "topic",
        "partition": 0,
        "key": "key",
        "value": "value",
        "timestamp": 0,
    }
    return SourceRecord(**(base | fields))


def configured(cls: type[Transformation], **props: str) -> Transformation:
    transform = cls()
    transform.configure({k.replace("_", "."): v for k, v in props.items()})
    return transform


def apply(transform: Transformation, rec: SourceRecord) -> SourceRecord:
    result = transform.apply(rec)
    assert result is not None
    return result


def assert_only_headers_changed(original: SourceRecord, transformed: SourceRecord) -> None:
    assert dataclasses.replace(transformed, headers=original.headers) == original


def written(headers: list[tuple[str, Any]]) -> list[tuple[str, str | None]]:
    """The headers as the worker's default header converter, SimpleHeaderConverter, writes them (as text)."""
    converter = SimpleHeaderConverter()
    out: list[tuple[str, str | None]] = []
    for name, value in headers:
        schema, plain = (value.schema, value.value) if isinstance(value, SchemaAndValue) else (None, value)
        data = converter.from_connect_header("topic", name, schema, plain)
        out.append((name, None if data is None else data.decode()))
    return out


# -- builtins are found by Kafka's names --------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("org.apache.kafka.connect.transforms.HeaderFrom$Key", HeaderFromKey),
        ("HeaderFrom$Value", HeaderFromValue),
        ("org.apache.kafka.connect.transforms.InsertHeader", InsertHeader),
        ("DropHeaders", DropHeaders),
        ("org.apache.kafka.connect.transforms.TimestampConverter$Key", TimestampConverterKey),
        ("TimestampConverter$Value", TimestampConverterValue),
    ],
)
def test_registry_names(name: str, cls: type) -> None:
    assert builtin_transformation(name) is cls


# -- DropHeaders ------------------------------------------------------------------------------------
def drop(*names: str) -> Transformation:
    return configured(DropHeaders, headers=",".join(names))


def test_drop_existing_header() -> None:
    original = record(headers=[("existing", "existing-value"), ("to-drop", "existing-value")])
    transformed = apply(drop("to-drop"), original)
    assert transformed.headers == [("existing", "existing-value")]
    assert_only_headers_changed(original, transformed)
    assert original.headers == [("existing", "existing-value"), ("to-drop", "existing-value")]  # untouched


def test_drop_existing_header_with_multiple_values() -> None:
    original = record(
        headers=[("existing", "existing-value"), ("to-drop", "existing-value"), ("to-drop", "existing-other-value")]
    )
    assert apply(drop("to-drop"), original).headers == [("existing", "existing-value")]


def test_drop_non_existing_header() -> None:
    original = record(headers=[("existing", "existing-value")])
    assert apply(drop("to-drop"), original).headers == [("existing", "existing-value")]


def test_drop_several_names_keeps_order_and_case() -> None:
    original = record(headers=[("a", "1"), ("B", b"2"), ("b", None), ("c", "3"), ("a", "4")])
    assert apply(drop("a", "b"), original).headers == [("B", b"2"), ("c", "3")]


@pytest.mark.parametrize("props", [{"headers": ""}, {}])
def test_drop_rejects_empty_or_missing_list(props: dict[str, str]) -> None:
    with pytest.raises(ConfigError) as err:
        DropHeaders().configure(props)
    assert "headers" in err.value.problems


def test_drop_empty_list_message() -> None:
    with pytest.raises(ConfigError, match="Empty list"):
        DropHeaders().configure({"headers": ""})


# -- InsertHeader -----------------------------------------------------------------------------------
def insert(header: str, literal: str) -> Transformation:
    return configured(InsertHeader, header=header, value_literal=literal)


def test_insertion_with_existing_other_header() -> None:
    original = record(headers=[("existing", "existing-value")])
    transformed = apply(insert("inserted", "inserted-value"), original)
    assert transformed.headers == [
        ("existing", "existing-value"),
        ("inserted", SchemaAndValue(STRING_SCHEMA, "inserted-value")),
    ]
    assert written(transformed.headers) == [("existing", "existing-value"), ("inserted", "inserted-value")]
    assert_only_headers_changed(original, transformed)
    assert original.headers == [("existing", "existing-value")]


def test_insertion_with_existing_same_header() -> None:
    original = record(headers=[("existing", "preexisting-value")])
    assert written(apply(insert("existing", "inserted-value"), original).headers) == [
        ("existing", "preexisting-value"),
        ("existing", "inserted-value"),
    ]


def test_insertion_with_byte_header() -> None:
    # Kafka parses "1" as an int8 header; its default header converter writes it as "1".
    original = record(headers=[("existing", "existing-value")])
    headers = apply(insert("inserted", "1"), original).headers
    assert headers[-1] == ("inserted", SchemaAndValue(Schema(SchemaType.INT8), 1))
    assert written(headers)[-1] == ("inserted", "1")


@pytest.mark.parametrize(
    ("literal", "schema", "value"),
    [
        ("true", BOOLEAN_SCHEMA, True),
        ("300", Schema(SchemaType.INT16), 300),
        ("70000", INT32_SCHEMA, 70000),
        ("5000000000", INT64_SCHEMA, 5_000_000_000),
        ("1.5", Schema(SchemaType.FLOAT32), 1.5),
        ("1e300", Schema(SchemaType.FLOAT64), 1e300),  # beyond a float32
        ("abc", STRING_SCHEMA, "abc"),
    ],
)
def test_insert_literal_is_typed_as_kafka_reads_it(literal: str, schema: Schema, value: Any) -> None:
    assert apply(insert("h", literal), record()).headers == [("h", SchemaAndValue(schema, value))]


@pytest.mark.parametrize(
    ("props", "missing"),
    [
        ({"value.literal": "1"}, "header"),
        ({"header": "inserted"}, "value.literal"),
    ],
)
def test_insert_rejects_missing_keys(props: dict[str, str], missing: str) -> None:
    with pytest.raises(ConfigError) as err:
        InsertHeader().configure(props)
    assert missing in err.value.problems
    assert "Missing required configuration" in str(err.value)


@pytest.mark.parametrize(
    ("literal", "expected"),
    [
        ("inserted-value", "inserted-value"),
        ("null", None),
        ("true", "true"),
        ("false", "false"),
        ("True", "True"),  # only lower-case literals are booleans
        ("1", "1"),
        ("+5", "5"),
        ("1.0", "1"),
        ("1e3", "1000"),
        ("1.50", "1.5"),
        ("3.14159265358979", "3.1415927"),  # a float32, as Kafka reads it
        ("0.0001", "1.0E-4"),
        ("1e-50", "0.0"),
        ("1e25", "1.0E25"),
        ("123456789.123", "1.2345679E8"),
        ("12345678901234567890", "12345678901234567890"),
        ("1.5e400", "1.5E+400"),
        ("-0.0", "0"),
        (".5", ".5"),  # not a number to Kafka: it must start with a digit or a sign
        ("1_000", "1_000"),
        ("0x10", "0x10"),
        ("2020-01-01", "2020-01-01"),
        ("[1, 2]", "[1, 2]"),  # kept as written (see the module's notes)
        ("", ""),
    ],
)
def test_insert_literal_as_kafka_writes_it(literal: str, expected: str | None) -> None:
    assert written(apply(insert("h", literal), record()).headers) == [("h", expected)]


# -- HeaderFrom -------------------------------------------------------------------------------------
FOO_SCHEMA = Schema.struct(None, ("foo", STRING_SCHEMA))
OPTIONAL_STRING = OPTIONAL_STRING_SCHEMA

# (description, fields before, transform fields, transform headers, operation, fields after, headers added)
# as Kafka's HeaderFromTest.data(); the struct header is the text Kafka's SimpleHeaderConverter writes.
HEADER_FROM_CASES = [
    (
        "basic copy",
        [("field1", STRING_SCHEMA, "field1-value"), ("field2", STRING_SCHEMA, "field2-value")],
        ["field1"],
        ["inserted1"],
        "copy",
        ["field1", "field2"],
        [("inserted1", "field1-value")],
    ),
    (
        "basic move",
        [("field1", STRING_SCHEMA, "field1-value"), ("field2", STRING_SCHEMA, "field2-value")],
        ["field1"],
        ["inserted1"],
        "move",
        ["field2"],
        [("inserted1", "field1-value")],
    ),
    (
        "copy with struct value",
        [("field1", FOO_SCHEMA, {"foo": "foo-value"}), ("field2", STRING_SCHEMA, "f2")],
        ["field1"],
        ["inserted1"],
        "copy",
        ["field1", "field2"],
        [("inserted1", '{"foo":"foo-value"}')],
    ),
    (
        "move with struct value",
        [("field1", FOO_SCHEMA, {"foo": "foo-value"}), ("field2", STRING_SCHEMA, "f2")],
        ["field1"],
        ["inserted1"],
        "move",
        ["field2"],
        [("inserted1", '{"foo":"foo-value"}')],
    ),
    (
        "two headers from same field",
        [("field1", STRING_SCHEMA, "field1-value"), ("field2", STRING_SCHEMA, "v2")],
        ["field1", "field1"],
        ["inserted1", "inserted2"],
        "move",
        ["field2"],
        [("inserted1", "field1-value"), ("inserted2", "field1-value")],
    ),
    (
        "two fields to same header",
        [("field1", STRING_SCHEMA, "field1-value"), ("field2", STRING_SCHEMA, "v2")],
        ["field1", "field2"],
        ["inserted1", "inserted1"],
        "move",
        [],
        [("inserted1", "field1-value"), ("inserted1", "v2")],
    ),
    (
        "copy null field",
        [("field1", OPTIONAL_STRING, "field1-value"), ("field2", OPTIONAL_STRING, None)],
        ["field1", "field2"],
        ["inserted1", "inserted2"],
        "copy",
        ["field1", "field2"],
        [("inserted1", "field1-value"), ("inserted2", None)],
    ),
    (
        "move null field",
        [("field1", OPTIONAL_STRING, "field1-value"), ("field2", OPTIONAL_STRING, None)],
        ["field1", "field2"],
        ["inserted1", "inserted2"],
        "move",
        [],
        [("inserted1", "field1-value"), ("inserted2", None)],
    ),
]


def header_from(key: bool, fields: list[str], headers: list[str], operation: str) -> Transformation:
    return configured(
        HeaderFromKey if key else HeaderFromValue,
        fields=",".join(fields),
        headers=",".join(headers),
        operation=operation,
    )


def with_operand(key: bool, value: Any, schema: Schema | None, headers: list[Any]) -> SourceRecord:
    if key:
        return record(key=value, key_schema=schema, headers=headers)
    return record(value=value, value_schema=schema, headers=headers)


@pytest.mark.parametrize("key", [True, False], ids=["key", "value"])
@pytest.mark.parametrize(
    ("description", "before", "fields", "headers", "operation", "after", "added"),
    HEADER_FROM_CASES,
    ids=[case[0] for case in HEADER_FROM_CASES],
)
def test_header_from_schemaless(
    key: bool,
    description: str,
    before: list[tuple[str, Schema, Any]],
    fields: list[str],
    headers: list[str],
    operation: str,
    after: list[str],
    added: list[tuple[str, str | None]],
) -> None:
    value = {name: v for name, _, v in before}
    existing: list[tuple[str, Any]] = [("header1", "existing-value")]
    original = with_operand(key, value, None, existing)
    transformed = apply(header_from(key, fields, headers, operation), original)
    expected_value = {name: value[name] for name in after}
    typed = [(header, value[field]) for field, header in zip(fields, headers, strict=True)]  # no schema
    assert transformed == with_operand(key, expected_value, None, existing + typed)
    assert written(transformed.headers) == existing + added
    assert original.headers == existing and (original.key if key else original.value) == value  # untouched


@pytest.mark.parametrize("key", [True, False], ids=["key", "value"])
@pytest.mark.parametrize(
    ("description", "before", "fields", "headers", "operation", "after", "added"),
    HEADER_FROM_CASES,
    ids=[case[0] for case in HEADER_FROM_CASES],
)
def test_header_from_with_schema(
    key: bool,
    description: str,
    before: list[tuple[str, Schema, Any]],
    fields: list[str],
    headers: list[str],
    operation: str,
    after: list[str],
    added: list[tuple[str, str | None]],
) -> None:
    schema = Schema.struct(None, *[(name, s) for name, s, _ in before])
    value = {name: v for name, _, v in before}
    existing: list[tuple[str, Any]] = [("header1", "existing-value")]
    transformed = apply(header_from(key, fields, headers, operation), with_operand(key, value, schema, existing))
    expected_schema = Schema.struct(None, *[(name, s) for name, s, _ in before if name in after])
    expected_value = {name: value[name] for name in after}
    schemas = {name: s for name, s, _ in before}
    typed = [
        (header, SchemaAndValue(schemas[field], value[field])) for field, header in zip(fields, headers, strict=True)
    ]
    assert transformed == with_operand(key, expected_value, expected_schema, existing + typed)
    assert written(transformed.headers) == existing + added


def test_header_from_copy_with_preexisting_header_adds_another() -> None:
    transform = header_from(False, ["field1"], ["inserted1"], "copy")
    transformed = apply(transform, record(value={"field1": "field1-value"}, headers=[("inserted1", "existing")]))
    assert transformed.headers == [("inserted1", "existing"), ("inserted1", "field1-value")]  # schemaless: plain


def test_header_from_schemaless_missing_field_gives_null_header() -> None:
    transformed = apply(header_from(False, ["absent"], ["h"], "move"), record(value={"a": 1}))
    assert transformed.headers == [("h", None)]
    assert transformed.value == {"a": 1}


def test_header_from_move_keeps_schema_name_version_doc_but_not_optional() -> None:
    schema = Schema(
        SchemaType.STRUCT,
        optional=True,
        name="com.example.Row",
        version=3,
        doc="a row",
        fields=Schema.struct(None, ("a", INT32_SCHEMA), ("b", STRING_SCHEMA)).fields,
    )
    transformed = apply(header_from(False, ["a"], ["h"], "move"), record(value={"a": 7, "b": "x"}, value_schema=schema))
    assert transformed.value_schema == Schema(
        SchemaType.STRUCT,
        name="com.example.Row",
        version=3,
        doc="a row",
        fields=Schema.struct(None, ("b", STRING_SCHEMA)).fields,
    )
    assert transformed.value == {"b": "x"}
    assert transformed.headers == [("h", SchemaAndValue(INT32_SCHEMA, 7))]
    assert written(transformed.headers) == [("h", "7")]


def test_header_from_field_missing_from_schema_is_named() -> None:
    schema = Schema.struct(None, ("a", INT32_SCHEMA))
    with pytest.raises(DataError, match="'absent'"):
        header_from(False, ["absent"], ["h"], "copy").apply(record(value={"a": 1}, value_schema=schema))


@pytest.mark.parametrize(
    ("value", "schema", "message"),
    [
        ("not a map", None, r"Only Map objects supported in absence of schema for \[header copy\]"),
        (None, None, r"Only Map objects supported in absence of schema for \[header copy\], found: null"),
        ("text", STRING_SCHEMA, r"Only Struct objects supported for \[header copy\]"),
    ],
)
def test_header_from_refuses_other_shapes(value: Any, schema: Schema | None, message: str) -> None:
    with pytest.raises(DataError, match=message):
        header_from(False, ["a"], ["h"], "copy").apply(record(value=value, value_schema=schema))


@pytest.mark.parametrize(
    ("props", "key"),
    [
        ({"fields": "foo,bar", "headers": "foo", "operation": "copy"}, "headers"),  # extra field
        ({"fields": "foo", "headers": "foo,bar", "operation": "copy"}, "headers"),  # extra header
        ({"fields": "", "headers": "", "operation": "copy"}, "fields"),
        ({"fields": "a", "headers": "b", "operation": "MOVE"}, "operation"),  # Kafka's values are case-sensitive
        ({"fields": "a", "headers": "b"}, "operation"),
    ],
)
def test_header_from_invalid_config(props: dict[str, str], key: str) -> None:
    for cls in (HeaderFromKey, HeaderFromValue):
        with pytest.raises(ConfigError) as err:
            cls().configure(props)
        assert key in err.value.problems


def test_header_from_count_mismatch_message() -> None:
    with pytest.raises(ConfigError, match="'fields' config must have the same number of elements as 'headers'"):
        HeaderFromValue().configure({"fields": "a,b", "headers": "a", "operation": "copy"})


def test_header_from_accepts_replace_null_with_default() -> None:
    transform = configured(
        HeaderFromValue, fields="a", headers="h", operation="copy", replace_null_with_default="false"
    )
    assert apply(transform, record(value={"a": None})).headers == [("h", None)]


# -- header text: what Kafka's SimpleHeaderConverter writes -------------------------------------------
FLOAT32 = Schema(SchemaType.FLOAT32)
TS_SCHEMA = Schema(SchemaType.INT64, name=logical.TIMESTAMP, version=1)


@pytest.mark.parametrize(
    ("value", "schema", "expected"),
    [
        (None, None, None),
        ('plain "text"', None, 'plain "text"'),
        (True, None, "true"),
        (42, INT32_SCHEMA, "42"),
        (-7, None, "-7"),
        (1.0, None, "1.0"),
        (1e10, None, "1.0E10"),
        (0.1, FLOAT32, "0.1"),
        (0.10000000149011612, FLOAT32, "0.1"),  # the float32 nearest 0.1, printed as Float.toString prints it
        (3, Schema(SchemaType.FLOAT64), "3.0"),
        (b"\x00\x01\xff", None, "AAH/"),
        ([1, "a", None, b"\x01"], None, '[1,"a",null,"AQ=="]'),
        ({"k": "v", "n": [1.5]}, None, '{"k":"v","n":[1.5]}'),
        ({1: True}, Schema.map(INT32_SCHEMA, Schema(SchemaType.BOOLEAN)), "{1:true}"),
        ({"b": 'q"\\', "a": 0.5}, Schema.struct("S", ("a", FLOAT32), ("b", STRING_SCHEMA)), '{"a":0.5,"b":"q\\"\\\\"}'),
        (
            {"a": None},
            Schema.struct(None, ("a", OPTIONAL_STRING_SCHEMA), ("z", OPTIONAL_STRING_SCHEMA)),
            '{"a":null,"z":null}',
        ),
        (date(2020, 1, 31), None, "2020-01-31"),
        (datetime(2020, 1, 31, 10, 15, 30, tzinfo=UTC), TS_SCHEMA, "2020-01-31T10:15:30.000Z"),
        (
            datetime(2020, 1, 31, 12, 15, 30, 123456, tzinfo=timezone(timedelta(hours=2))),
            None,
            "2020-01-31T10:15:30.123Z",
        ),
        (datetime(2020, 1, 31, tzinfo=UTC), TS_SCHEMA, "2020-01-31"),  # Kafka picks the form by the instant
        (time(10, 15, 30), None, "10:15:30.000Z"),
        ([date(2020, 1, 1)], None, "[2020-01-01]"),  # dates are not quoted, even inside an array
    ],
)
def test_header_text(value: Any, schema: Schema | None, expected: str | None) -> None:
    assert value_text(value, schema) == expected


def test_header_text_refuses_unknown_types() -> None:
    with pytest.raises(DataError, match="Failed to serialize unexpected value type set"):
        value_text({1, 2}, None)


# -- TimestampConverter -----------------------------------------------------------------------------
# Kafka's TimestampConverterTest constants: 1970-01-02T00:00:01.234Z and its parts.
STRING_DATE_FMT = "yyyy MM dd HH mm ss SSS z"
DATE_PLUS_TIME = datetime(1970, 1, 2, 0, 0, 1, 234000, tzinfo=UTC)
DATE_PLUS_TIME_UNIX = 86_401_234
DATE_PLUS_TIME_UNIX_MICROS = DATE_PLUS_TIME_UNIX * 1000 + 123
DATE_PLUS_TIME_UNIX_NANOS = DATE_PLUS_TIME_UNIX_MICROS * 1000 + 456
DATE_PLUS_TIME_UNIX_SECONDS = 86_401
DATE_PLUS_TIME_STRING = "1970 01 02 00 00 01 234 UTC"
DATE = date(1970, 1, 2)
TIME = time(0, 0, 1, 234000)

TIMESTAMP_SCHEMA = Schema(SchemaType.INT64, name=logical.TIMESTAMP, version=1)
DATE_SCHEMA = Schema(SchemaType.INT32, name=logical.DATE, version=1)
TIME_SCHEMA = Schema(SchemaType.INT32, name=logical.TIME, version=1)
OPTIONAL_TIMESTAMP_SCHEMA = TIMESTAMP_SCHEMA.as_optional()
OPTIONAL_DATE_SCHEMA = DATE_SCHEMA.as_optional()
OPTIONAL_TIME_SCHEMA = TIME_SCHEMA.as_optional()
OPTIONAL_INT64_SCHEMA = INT64_SCHEMA.as_optional()


def converter(**props: str) -> Transformation:
    return configured(TimestampConverterValue, **props)


def convert(value: Any, schema: Schema | None = None, **props: str) -> SourceRecord:
    return apply(converter(**props), record(value=value, value_schema=schema))


@pytest.mark.parametrize(
    ("props", "key"),
    [
        ({}, "target.type"),
        ({"target.type": "invalid"}, "target.type"),
        ({"target.type": "timestamp"}, "target.type"),  # Kafka's names are case-sensitive
        ({"target.type": "unix", "unix.precision": "invalid"}, "unix.precision"),
        ({"target.type": "string"}, "format"),
        ({"target.type": "string", "format": "bad-format"}, "format"),
        ({"target.type": "Timestamp", "format": "yyyy-'MM"}, "format"),  # checked whatever the target
    ],
)
def test_timestamp_converter_invalid_config(props: dict[str, str], key: str) -> None:
    with pytest.raises(ConfigError) as err:
        TimestampConverterValue().configure(props)
    assert key in err.value.problems


def test_timestamp_converter_config_messages() -> None:
    with pytest.raises(ConfigError, match="requires format option to be specified when using string timestamps"):
        TimestampConverterValue().configure({"target.type": "string"})
    with pytest.raises(ConfigError, match="SimpleDateFormat-compatible pattern for string timestamps: bad-format"):
        TimestampConverterValue().configure({"target.type": "string", "format": "bad-format"})


def test_timestamp_converter_valid_unix_precision() -> None:
    TimestampConverterValue().configure({"target.type": "unix", "unix.precision": "seconds"})


# Conversions without schemas (Timestamp to the other types, and back)
@pytest.mark.parametrize(
    ("value", "props", "expected"),
    [
        (DATE_PLUS_TIME, {"target.type": "Timestamp"}, DATE_PLUS_TIME),
        (DATE_PLUS_TIME, {"target.type": "Date"}, DATE),
        (DATE_PLUS_TIME, {"target.type": "Time"}, TIME),
        (DATE_PLUS_TIME, {"target.type": "unix"}, DATE_PLUS_TIME_UNIX),
        (DATE_PLUS_TIME, {"target.type": "string", "format": STRING_DATE_FMT}, DATE_PLUS_TIME_STRING),
        (DATE, {"target.type": "Timestamp"}, datetime(1970, 1, 2, tzinfo=UTC)),
        (TIME, {"target.type": "Timestamp"}, datetime(1970, 1, 1, 0, 0, 1, 234000, tzinfo=UTC)),
        (DATE_PLUS_TIME_UNIX, {"target.type": "Timestamp"}, DATE_PLUS_TIME),
        (DATE_PLUS_TIME_STRING, {"target.type": "Timestamp", "format": STRING_DATE_FMT}, DATE_PLUS_TIME),
        (datetime(1970, 1, 2, 0, 0, 1, 234999), {"target.type": "unix"}, DATE_PLUS_TIME_UNIX),  # naive is UTC
    ],
)
def test_schemaless_conversions(value: Any, props: dict[str, str], expected: Any) -> None:
    transformed = convert(value, None, **{k.replace(".", "_"): v for k, v in props.items()})
    assert transformed.value_schema is None
    assert transformed.value == expected
    assert type(transformed.value) is type(expected)


# Conversions with schemas
@pytest.mark.parametrize(
    ("schema", "value", "props", "expected_schema", "expected"),
    [
        (TIMESTAMP_SCHEMA, DATE_PLUS_TIME, {"target.type": "Timestamp"}, TIMESTAMP_SCHEMA, DATE_PLUS_TIME),
        (TIMESTAMP_SCHEMA, DATE_PLUS_TIME, {"target.type": "Date"}, DATE_SCHEMA, DATE),
        (TIMESTAMP_SCHEMA, DATE_PLUS_TIME, {"target.type": "Time"}, TIME_SCHEMA, TIME),
        (TIMESTAMP_SCHEMA, DATE_PLUS_TIME, {"target.type": "unix"}, INT64_SCHEMA, DATE_PLUS_TIME_UNIX),
        (
            TIMESTAMP_SCHEMA,
            DATE_PLUS_TIME,
            {"target.type": "string", "format": STRING_DATE_FMT},
            STRING_SCHEMA,
            DATE_PLUS_TIME_STRING,
        ),
        (DATE_SCHEMA, DATE, {"target.type": "Timestamp"}, TIMESTAMP_SCHEMA, datetime(1970, 1, 2, tzinfo=UTC)),
        (
            TIME_SCHEMA,
            TIME,
            {"target.type": "Timestamp"},
            TIMESTAMP_SCHEMA,
            datetime(1970, 1, 1, 0, 0, 1, 234000, tzinfo=UTC),
        ),
        (INT64_SCHEMA, DATE_PLUS_TIME_UNIX, {"target.type": "Timestamp"}, TIMESTAMP_SCHEMA, DATE_PLUS_TIME),
        (
            STRING_SCHEMA,
            DATE_PLUS_TIME_STRING,
            {"target.type": "Timestamp", "format": STRING_DATE_FMT},
            TIMESTAMP_SCHEMA,
            DATE_PLUS_TIME,
        ),
        (OPTIONAL_INT64_SCHEMA, 0, {"target.type": "Date"}, OPTIONAL_DATE_SCHEMA, date(1970, 1, 1)),
    ],
)
def test_with_schema_conversions(
    schema: Schema, value: Any, props: dict[str, str], expected_schema: Schema, expected: Any
) -> None:
    transformed = convert(value, schema, **{k.replace(".", "_"): v for k, v in props.items()})
    assert transformed.value_schema == expected_schema
    assert transformed.value == expected


@pytest.mark.parametrize("target", ["string", "Date", "Timestamp", "unix", "Time"])
def test_schemaless_null_value_and_null_field(target: str) -> None:
    for props in ({}, {"field": "ts"}):
        transformed = convert(None, None, target_type=target, format=STRING_DATE_FMT, **props)
        assert transformed.value_schema is None
        assert transformed.value is None


NULL_CONVERSIONS = [
    (target, original, expected)
    for target, expected in (
        ("Timestamp", OPTIONAL_TIMESTAMP_SCHEMA),
        ("Time", OPTIONAL_TIME_SCHEMA),
        ("Date", OPTIONAL_DATE_SCHEMA),
        ("string", OPTIONAL_STRING_SCHEMA),
        ("unix", OPTIONAL_INT64_SCHEMA),
    )
    for original in (
        OPTIONAL_INT64_SCHEMA,
        OPTIONAL_TIME_SCHEMA,
        OPTIONAL_DATE_SCHEMA,
        OPTIONAL_STRING_SCHEMA,
        OPTIONAL_TIMESTAMP_SCHEMA,
    )
]


@pytest.mark.parametrize(("target", "original", "expected"), NULL_CONVERSIONS)
def test_with_schema_null_value(target: str, original: Schema, expected: Schema) -> None:
    transformed = convert(None, original, target_type=target, format=STRING_DATE_FMT)
    assert transformed.value_schema == expected
    assert transformed.value is None


@pytest.mark.parametrize(("target", "original", "expected"), NULL_CONVERSIONS)
def test_with_schema_null_field(target: str, original: Schema, expected: Schema) -> None:
    transform = converter(target_type=target, format=STRING_DATE_FMT, field="ts")
    struct_schema = Schema.struct(None, ("ts", original), ("other", STRING_SCHEMA))
    expected_schema = Schema.struct(None, ("ts", expected), ("other", STRING_SCHEMA))
    transformed = apply(transform, record(value={"ts": None, "other": "test"}, value_schema=struct_schema))
    assert transformed.value_schema == expected_schema
    assert transformed.value == {"ts": None, "other": "test"}
    # the entire struct is null
    transformed = apply(transform, record(value=None, value_schema=struct_schema.as_optional()))
    assert transformed.value_schema == expected_schema.as_optional()
    assert transformed.value is None


def test_schemaless_field_conversion() -> None:
    original = {"ts": DATE_PLUS_TIME, "other": "x"}
    transformed = convert(original, None, target_type="Date", field="ts")
    assert transformed.value == {"ts": DATE, "other": "x"}
    assert original == {"ts": DATE_PLUS_TIME, "other": "x"}  # untouched


def test_schemaless_missing_field_is_added_as_null() -> None:
    assert convert({"other": 1}, None, target_type="Date", field="ts").value == {"other": 1, "ts": None}


def test_with_schema_field_conversion() -> None:
    schema = Schema.struct("Row", ("ts", INT64_SCHEMA), ("other", STRING_SCHEMA))
    transformed = convert({"ts": DATE_PLUS_TIME_UNIX, "other": "test"}, schema, target_type="Timestamp", field="ts")
    assert transformed.value_schema == Schema.struct("Row", ("ts", TIMESTAMP_SCHEMA), ("other", STRING_SCHEMA))
    assert transformed.value == {"ts": DATE_PLUS_TIME, "other": "test"}


def test_with_schema_optional_field_becomes_optional_target() -> None:
    schema = Schema.struct(None, ("ts", OPTIONAL_INT64_SCHEMA), ("other", STRING_SCHEMA))
    transformed = convert(
        {"ts": None, "other": "test"}, schema, target_type="Timestamp", field="ts", replace_null_with_default="false"
    )
    assert transformed.value_schema == Schema.struct(None, ("ts", OPTIONAL_TIMESTAMP_SCHEMA), ("other", STRING_SCHEMA))
    assert transformed.value == {"ts": None, "other": "test"}


@pytest.mark.parametrize(
    ("precision", "unix", "expected"),
    [
        ("microseconds", DATE_PLUS_TIME_UNIX_MICROS, DATE_PLUS_TIME),
        ("nanoseconds", DATE_PLUS_TIME_UNIX_NANOS, DATE_PLUS_TIME),
        ("seconds", DATE_PLUS_TIME_UNIX_SECONDS, datetime(1970, 1, 2, 0, 0, 1, tzinfo=UTC)),
    ],
)
def test_with_schema_field_conversion_precisions(precision: str, unix: int, expected: datetime) -> None:
    schema = Schema.struct(None, ("ts", INT64_SCHEMA))
    transformed = convert({"ts": unix}, schema, target_type="Timestamp", field="ts", unix_precision=precision)
    assert transformed.value_schema == Schema.struct(None, ("ts", TIMESTAMP_SCHEMA))
    assert transformed.value == {"ts": expected}


@pytest.mark.parametrize(
    ("precision", "expected"),
    [
        ("microseconds", 86_401_234_000),  # the sub-millisecond part is lost, as in Kafka
        ("nanoseconds", 86_401_234_000_000),
        ("seconds", DATE_PLUS_TIME_UNIX_SECONDS),
    ],
)
def test_schemaless_string_to_unix_precisions(precision: str, expected: int) -> None:
    transformed = convert(
        DATE_PLUS_TIME_STRING, None, target_type="unix", unix_precision=precision, format=STRING_DATE_FMT
    )
    assert transformed.value == expected


@pytest.mark.parametrize(
    ("value", "precision", "target", "expected"),
    [
        (-1500, "microseconds", "Timestamp", datetime(1969, 12, 31, 23, 59, 59, 999000, tzinfo=UTC)),  # toward zero
        (-1, "nanoseconds", "Timestamp", datetime(1970, 1, 1, tzinfo=UTC)),
        (datetime(1969, 12, 31, 23, 59, 58, 500000, tzinfo=UTC), "seconds", "unix", -1),  # -1500 ms
        (2**62, "seconds", "unix", (2**63 - 1) // 1000),  # saturates at the long range on the way in
    ],
)
def test_unix_precision_arithmetic_is_javas(value: Any, precision: str, target: str, expected: Any) -> None:
    assert convert(value, None, target_type=target, unix_precision=precision).value == expected


def test_nanoseconds_saturate_at_the_long_range() -> None:
    far = datetime(9999, 12, 31, tzinfo=UTC)
    assert convert(far, None, target_type="unix", unix_precision="nanoseconds").value == 2**63 - 1


def test_key_variant() -> None:
    transform = configured(TimestampConverterKey, target_type="Timestamp")
    transformed = apply(transform, record(key=DATE_PLUS_TIME_UNIX, value="v"))
    assert transformed.key_schema is None
    assert transformed.key == DATE_PLUS_TIME
    assert transformed.value == "v"


def test_negative_instants_floor_to_the_day_and_time() -> None:
    before_epoch = datetime(1969, 12, 31, 23, 0, tzinfo=UTC)
    assert convert(before_epoch, None, target_type="Date").value == date(1969, 12, 31)
    assert convert(before_epoch, None, target_type="Time").value == time(23, 0)


@pytest.mark.parametrize(
    ("value", "schema", "props", "message"),
    [
        (1, INT32_SCHEMA, {}, r"Schema Schema\{INT32\} does not correspond to a known timestamp type format"),
        (None, INT32_SCHEMA, {}, r"Schema Schema\{INT32\} does not correspond"),
        (1.5, None, {}, "TimestampConverter does not support float objects as timestamps"),
        (True, None, {}, "does not support bool objects"),
        ("x", INT64_SCHEMA, {}, "Expected Unix timestamp to be a Long, but found str"),
        (2**63, INT64_SCHEMA, {}, "Expected Unix timestamp to be a Long"),
        (5, TIMESTAMP_SCHEMA, {}, "Expected Timestamp to be a datetime"),
        (5, STRING_SCHEMA, {"format": "yyyy"}, "Expected string timestamp to be a String, but found int"),
        ("2020-01-01", None, {}, "requires the format option"),
        (
            "nope",
            None,
            {"format": "yyyy-MM-dd"},
            r"Could not parse timestamp: value \(nope\) does not match pattern "
            r"\(yyyy-MM-dd\)",
        ),
        ("1500-01-01", None, {"format": "yyyy-MM-dd"}, "outside the range"),
        ("2020 01", None, {"format": "YYYY ww"}, "week-based field 'Y'"),
        ("x", None, {"field": "ts"}, r"Only Map objects supported in absence of schema for \[converting timestamp"),
        ("x", STRING_SCHEMA, {"field": "ts"}, r"Only Struct objects supported for \[converting timestamp formats\]"),
        (None, STRING_SCHEMA, {"field": "ts"}, "Cannot list fields on non-struct type STRING"),
    ],
)
def test_timestamp_converter_errors(value: Any, schema: Schema | None, props: dict[str, str], message: str) -> None:
    transform = converter(target_type="Timestamp", **{k.replace(".", "_"): v for k, v in props.items()})
    with pytest.raises(DataError, match=message):
        transform.apply(record(value=value, value_schema=schema))


def test_string_output_out_of_java_range_is_refused() -> None:
    with pytest.raises(DataError, match="format"):
        convert(datetime(1000, 1, 1, tzinfo=UTC), None, target_type="string", format="yyyy")


# Reading text as SimpleDateFormat does (expected instants from a JVM, lenient, UTC).
@pytest.mark.parametrize(
    ("pattern", "text", "millis"),
    [
        ("yyyy MM dd HH mm ss SSS z", "1970 01 02 00 00 01 234 UTC xyz", 86_401_234),  # trailing text ignored
        ("yyyy-MM-dd", "2020-13-45", 1_613_260_800_000),  # lenient: 2021-02-14
        ("yyyy-MM-dd", " 2020-01-01", 1_577_836_800_000),  # blanks before a field are skipped
        ("yyyy-MM-dd", "2020- 01-01", 1_577_836_800_000),
        ("yyyy-MM-dd", "2020 -01-01", None),  # ... but not in place of literal text
        ("yyyyMMdd", "20200102", 1_577_923_200_000),  # abutting fields take their count of digits
        ("yyyyMMddHHmmss", "20200102030405", 1_577_934_245_000),
        ("yyyyMMdd", "2020012", 1_577_923_200_000),
        ("HHmm", "930", 334_800_000),  # hour 93
        ("yy-MM-dd", "99-01-01", 915_148_800_000),
        ("yyyy-MM-dd", "24-01-01", None),  # the year 24, before Java's Gregorian calendar: refused
        ("dd MMM yyyy", "01 jan 2020", 1_577_836_800_000),
        ("dd MMM yyyy", "01 January 2020", 1_577_836_800_000),
        ("dd MMMM yyyy", "01 Jan 2020", 1_577_836_800_000),
        ("dd MMM yyyy", "01 Sept 2020", None),
        ("yyyy MM", "2020 Jan", None),
        ("yyyy LLL", "2020 Feb", 1_580_515_200_000),
        ("yyyy-MM-dd HH:mm z", "2020-01-01 10:00 +0100", 1_577_869_200_000),
        ("yyyy-MM-dd HH:mm z", "2020-01-01 10:00 GMT+02:30", 1_577_863_800_000),
        ("yyyy-MM-dd HH:mm z", "2020-01-01 10:00 GMT+2:30", 1_577_863_800_000),
        ("yyyy-MM-dd HH:mm z", "2020-01-01 10:00 GMT+2", None),
        ("yyyy-MM-dd HH:mm z", "2020-01-01 10:00 GMT+0230", None),
        ("yyyy-MM-dd HH:mm z", "2020-01-01 10:00 GMT", 1_577_872_800_000),
        ("yyyy-MM-dd HH:mm z", "2020-01-01 10:00 utc", 1_577_872_800_000),
        ("yyyy-MM-dd HH:mm z", "2020-01-01 10:00 UTC+1", 1_577_872_800_000),  # the name, then ignored text
        ("yyyy-MM-dd HH:mm z", "2020-01-01 10:00 Coordinated Universal Time", 1_577_872_800_000),
        ("yyyy-MM-dd HH:mm z", "2020-01-01 10:00 Z", None),
        ("yyyy-MM-dd HH:mm z", "2020-01-01 10:00 -2359", 1_577_959_140_000),
        ("yyyy-MM-dd HH:mm z", "2020-01-01 10:00 +2400", None),
        ("yyyy-MM-dd HH:mm Z", "2020-01-01 10:00 GMT+01:00", 1_577_869_200_000),
        ("yyyy-MM-dd HH:mm Z", "2020-01-01 10:00 +01:00", None),
        ("yyyy-MM-dd HH:mm X", "2020-01-01 10:00 Z", 1_577_872_800_000),
        ("yyyy-MM-dd HH:mm X", "2020-01-01 10:00 +01", 1_577_869_200_000),
        ("yyyy-MM-dd HH:mm X", "2020-01-01 10:00 +0130", 1_577_869_200_000),
        ("yyyy-MM-dd HH:mm XX", "2020-01-01 10:00 +0130", 1_577_867_400_000),
        ("yyyy-MM-dd HH:mm XX", "2020-01-01 10:00 +01:30", None),
        ("yyyy-MM-dd HH:mm XXX", "2020-01-01 10:00 +01:30", 1_577_867_400_000),
        ("yyyy-MM-dd HH:mm XXX", "2020-01-01 10:00 +0130", None),
        ("yyyy-MM-dd'T'HH:mm:ss.SSSXXX", "2020-01-01T10:00:00.123+01:00", 1_577_869_200_123),
        ("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", "2020-01-01T10:00:00.123Z", 1_577_872_800_123),
        ("yyyy-MM-dd'T'HH:mm:ss", "2020-01-01t10:00:00", None),
        ("dd/MMM/yyyy:HH:mm:ss Z", "10/Oct/2000:13:55:36 -0700", 971_211_336_000),
        ("HH:mm:ss.SSS", "10:00:00.5", 36_000_005),  # S is a count of milliseconds, not a fraction
        ("HH:mm:ss.SSS", "10:00:00.5000", 36_005_000),
        ("yyyy-M-d", "2020-1-2", 1_577_923_200_000),
        ("yyyy-MM-dd", "2020--1-01", 1_572_566_400_000),  # month -1: November of the year before
        ("hh:mm a", "12:30 AM", 1_800_000),
        ("hh:mm a", "12:30 pm", 45_000_000),
        ("hh:mm", "12:30", 1_800_000),
        ("KK:mm a", "11:30 PM", 84_600_000),
        ("kk:mm", "24:30", 1_800_000),
        ("HH:mm a", "10:00 PM", 36_000_000),  # H wins over a
        ("a hh:mm", "PM 01:00", 46_800_000),
        ("HH:mm:ss", "10:00:60", 36_060_000),
        ("EEE, dd MMM yyyy", "Mon, 05 Jan 2020", 1_578_182_400_000),  # the day name is read, not checked
        ("yyyy-MM-dd EEEE", "2020-01-01 Mo", None),
        ("yyyy-DDD", "2020-060", 1_582_934_400_000),
        ("yyyy-MM-dd", "+2020-01-01", None),
        ("G yyyy", "ad 2020", 1_577_836_800_000),
        ("yyyy-MM-dd", "2020-01-0x", 1_577_750_400_000),  # day 0
        ("MM/dd/yyyy", "1/2/2020", 1_577_923_200_000),
        ("ss", "1.5", 1000),
        ("yyyy-MM-dd", "\uff12\uff10\uff12\uff10-01-01", 1_577_836_800_000),  # full-width digits, as Java reads them
        ("yyyy-MM-dd HH", "2020-01-01\t10", None),
        ("yyyy-MM-dd HH:mm", "2020-01-01 10", None),
        ("yyyy-MM-dd HH:mm", "", None),
        ("'at' HH 'o''clock'", "at 10 o'clock", 36_000_000),
        ("yyyyMMddHHmmssSSS", "2020010110000012", 1_577_872_800_012),
    ],
)
def test_reading_text_as_simple_date_format(pattern: str, text: str, millis: int | None) -> None:
    transform = converter(target_type="unix", format=pattern)
    if millis is None:
        with pytest.raises(DataError, match="Could not parse timestamp"):
            transform.apply(record(value=text))
    else:
        assert apply(transform, record(value=text)).value == millis


@pytest.mark.parametrize(
    ("text", "year"),
    [
        # Java's two-digit years, with "now" 2026-11-23T03:00Z: the century starts at 1946-11-23T03:00Z.
        ("15-Aug-47", 1947),
        ("15-Aug-46", 2046),
        ("30-Dec-46", 1946),
        ("24-Nov-46", 1946),
        ("22-Nov-46", 2046),
        ("01-Jan-45", 2045),
        ("01-Jan-5", 5),  # one digit: the year is read as written (and then refused as too early)
    ],
)
def test_two_digit_years_follow_javas_century(text: str, year: int) -> None:
    parser = JavaDateParser("dd-MMM-yy", datetime(2026, 11, 23, 3, 0, tzinfo=UTC))
    if year < 1583:
        with pytest.raises(DataError, match="outside the range"):
            parser.parse(text)
    else:
        assert datetime.fromtimestamp(parser.parse(text) / 1000, UTC).year == year


def test_string_to_string_reformats() -> None:
    transformed = convert("2020-01-31 10:15", None, target_type="string", format="yyyy-MM-dd HH:mm")
    assert transformed.value == "2020-01-31 10:15"
    transform = converter(target_type="string", format="dd MMM yyyy")
    assert apply(transform, record(value=DATE_PLUS_TIME)).value == "02 Jan 1970"
