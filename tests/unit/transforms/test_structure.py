"""The transforms that reshape a key or value: ValueToKey, ExtractField, HoistField, Cast and Flatten.

Cases follow Kafka's documentation and its unit tests (ValueToKeyTest, ExtractFieldTest,
FieldPathNotationTest, HoistFieldTest, CastTest, FlattenTest): same inputs, same outputs.
"""

from __future__ import annotations

import copy
import math
from datetime import UTC, date, datetime, time
from typing import Any

import pytest

from connectworker.api.errors import ConfigError, DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT64_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaType,
)
from connectworker.api.transform import Transformation
from connectworker.converters.logical import DATE, TIME, TIMESTAMP
from connectworker.converters.values_text import java_float_text
from connectworker.transforms import builtin_transformation
from connectworker.transforms.cast import CastKey, CastValue, parse_cast_spec
from connectworker.transforms.extract_field import ExtractFieldKey, ExtractFieldValue, parse_field_path
from connectworker.transforms.flatten import FlattenKey, FlattenValue
from connectworker.transforms.hoist_field import HoistFieldKey, HoistFieldValue
from connectworker.transforms.value_to_key import ValueToKey

INT8_SCHEMA = Schema(SchemaType.INT8)
INT16_SCHEMA = Schema(SchemaType.INT16)
FLOAT32_SCHEMA = Schema(SchemaType.FLOAT32)
OPTIONAL_INT16_SCHEMA = Schema(SchemaType.INT16, optional=True)
OPTIONAL_INT32_SCHEMA = Schema(SchemaType.INT32, optional=True)
OPTIONAL_INT64_SCHEMA = Schema(SchemaType.INT64, optional=True)
OPTIONAL_FLOAT32_SCHEMA = Schema(SchemaType.FLOAT32, optional=True)
DATE_SCHEMA = Schema(SchemaType.INT32, name=DATE, version=1)
TIME_SCHEMA = Schema(SchemaType.INT32, name=TIME, version=1)
TIMESTAMP_SCHEMA = Schema(SchemaType.INT64, name=TIMESTAMP, version=1)


def configured(cls: type[Transformation], **props: str) -> Transformation:
    """`cls` configured with `props`; keys with dots are spelt with underscores."""
    transform = cls()
    transform.configure({key.replace("_", "."): value for key, value in props.items()})
    return transform


def record(
    value: Any = None, value_schema: Schema | None = None, key: Any = None, key_schema: Schema | None = None
) -> SourceRecord:
    return SourceRecord({"p": 1}, {"o": 2}, "topic", value, key, 3, value_schema, key_schema, 1234, [("h", b"v")])


def apply(transform: Transformation, rec: SourceRecord) -> SourceRecord:
    """`transform` applied to `rec`, checking that the input record and its data were left alone."""
    before = copy.deepcopy(rec)
    result = transform.apply(rec)
    assert rec == before, "the transform changed its input"
    assert result is not None
    assert (result.topic, result.partition, result.timestamp, result.headers) == ("topic", 3, 1234, [("h", b"v")])
    return result


def test_registry_names_these_classes() -> None:
    assert builtin_transformation("org.apache.kafka.connect.transforms.ValueToKey") is ValueToKey
    assert builtin_transformation("ExtractField$Key") is ExtractFieldKey
    assert builtin_transformation("ExtractField$Value") is ExtractFieldValue
    assert builtin_transformation("HoistField$Key") is HoistFieldKey
    assert builtin_transformation("HoistField$Value") is HoistFieldValue
    assert builtin_transformation("Cast$Key") is CastKey
    assert builtin_transformation("Cast$Value") is CastValue
    assert builtin_transformation("Flatten$Key") is FlattenKey
    assert builtin_transformation("Flatten$Value") is FlattenValue


# -- ValueToKey ----------------------------------------------------------------------------------------
def test_value_to_key_schemaless() -> None:
    value = {"a": 1, "b": 2, "c": 3}
    result = apply(configured(ValueToKey, fields="a,b"), record(value))
    assert result.key_schema is None
    assert result.key == {"a": 1, "b": 2}
    assert result.value is value and result.value_schema is None


def test_value_to_key_schemaless_missing_field_becomes_null() -> None:
    result = apply(configured(ValueToKey, fields="a,zz"), record({"a": 1}))
    assert result.key == {"a": 1, "zz": None}


def test_value_to_key_with_schema() -> None:
    schema = Schema.struct("v", ("a", INT32_SCHEMA), ("b", INT32_SCHEMA), ("c", INT32_SCHEMA))
    value = {"a": 1, "b": 2, "c": 3}
    result = apply(configured(ValueToKey, fields="a,b"), record(value, schema, key="old", key_schema=STRING_SCHEMA))
    assert result.key_schema == Schema.struct(None, ("a", INT32_SCHEMA), ("b", INT32_SCHEMA))
    assert result.key == {"a": 1, "b": 2}
    assert result.value is value and result.value_schema is schema


def test_value_to_key_field_missing_from_schema() -> None:
    schema = Schema.struct(None, ("a", INT32_SCHEMA))
    with pytest.raises(DataError, match=r"^Field does not exist: not_exist$"):
        configured(ValueToKey, fields="not_exist").apply(record({"a": 1}, schema))


def test_value_to_key_accepts_replace_null_with_default() -> None:
    schema = Schema.struct(None, ("optional_with_default", OPTIONAL_INT32_SCHEMA))
    transform = configured(ValueToKey, fields="optional_with_default", replace_null_with_default="false")
    assert apply(transform, record({"optional_with_default": None}, schema)).key == {"optional_with_default": None}


def test_value_to_key_needs_a_map_or_struct() -> None:
    with pytest.raises(DataError, match=r"Only Map objects supported in absence of schema for \[copying fields"):
        configured(ValueToKey, fields="a").apply(record("text"))
    with pytest.raises(DataError, match=r"Only Struct objects supported for \[copying fields from value to key\]"):
        configured(ValueToKey, fields="a").apply(record(None, Schema.struct(None, ("a", INT32_SCHEMA))))


@pytest.mark.parametrize(
    ("props", "key", "message"),
    [
        ({}, "fields", 'Missing required configuration "fields"'),
        ({"fields": ""}, "fields", "Empty list"),
        ({"fields": "a", "replace.null.with.default": "maybe"}, "replace.null.with.default", "true or false"),
    ],
)
def test_value_to_key_config_errors(props: dict[str, str], key: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        ValueToKey().configure(props)
    assert list(caught.value.problems) == [key]
    assert message in caught.value.problems[key]


# -- ExtractField --------------------------------------------------------------------------------------
def test_extract_field_schemaless() -> None:
    result = apply(configured(ExtractFieldKey, field="magic"), record(key={"magic": 42}))
    assert result.key_schema is None and result.key == 42


def test_extract_field_schemaless_nested_path() -> None:
    transform = configured(ExtractFieldKey, field="magic.foo", field_syntax_version="V2")
    result = apply(transform, record(key={"magic": {"foo": 42}}))
    assert result.key_schema is None and result.key == 42


def test_extract_field_v1_takes_dots_literally() -> None:
    transform = configured(ExtractFieldValue, field="magic.foo")
    assert apply(transform, record({"magic.foo": 1, "magic": {"foo": 2}})).value == 1


def test_extract_field_syntax_version_is_case_insensitive() -> None:
    transform = configured(ExtractFieldValue, field="magic.foo", field_syntax_version="v2")
    assert apply(transform, record({"magic.foo": 1, "magic": {"foo": 2}})).value == 2


def test_extract_field_null_schemaless() -> None:
    result = apply(configured(ExtractFieldKey, field="magic"), record(key=None))
    assert result.key_schema is None and result.key is None


def test_extract_field_with_schema() -> None:
    schema = Schema.struct(None, ("magic", INT32_SCHEMA))
    result = apply(configured(ExtractFieldKey, field="magic"), record(key={"magic": 42}, key_schema=schema))
    assert result.key_schema == INT32_SCHEMA and result.key == 42


def test_extract_field_with_schema_and_nested_path() -> None:
    foo = Schema.struct(None, ("foo", INT32_SCHEMA))
    schema = Schema.struct(None, ("magic", foo))
    transform = configured(ExtractFieldKey, field="magic.foo", field_syntax_version="V2")
    result = apply(transform, record(key={"magic": {"foo": 42}}, key_schema=schema))
    assert result.key_schema == INT32_SCHEMA and result.key == 42


def test_extract_field_null_with_schema() -> None:
    schema = Schema.struct(None, ("magic", INT32_SCHEMA), optional=True)
    result = apply(configured(ExtractFieldKey, field="magic"), record(key=None, key_schema=schema))
    assert result.key_schema == INT32_SCHEMA and result.key is None


def test_extract_field_value_variant_leaves_the_key() -> None:
    schema = Schema.struct(None, ("magic", STRING_SCHEMA))
    result = apply(
        configured(ExtractFieldValue, field="magic"), record({"magic": "x"}, schema, key="k", key_schema=STRING_SCHEMA)
    )
    assert (result.value, result.value_schema, result.key, result.key_schema) == (
        "x",
        STRING_SCHEMA,
        "k",
        STRING_SCHEMA,
    )


def test_extract_field_missing_schemaless_is_null() -> None:
    assert apply(configured(ExtractFieldKey, field="nonexistent"), record(key={"magic": 42})).key is None
    transform = configured(ExtractFieldKey, field="magic.nonexistent", field_syntax_version="V2")
    assert apply(transform, record(key={"magic": {"foo": 42}})).key is None
    assert apply(transform, record(key={"magic": None})).key is None


def test_extract_field_missing_with_schema_fails() -> None:
    schema = Schema.struct(None, ("magic", INT32_SCHEMA))
    with pytest.raises(DataError, match=r"^Unknown field: nonexistent$"):
        configured(ExtractFieldKey, field="nonexistent").apply(record(key={"magic": 42}, key_schema=schema))
    nested = Schema.struct(None, ("magic", Schema.struct(None, ("foo", INT32_SCHEMA))))
    transform = configured(ExtractFieldKey, field="magic.nonexistent", field_syntax_version="V2")
    with pytest.raises(DataError, match=r"^Unknown field: magic\.nonexistent$"):
        transform.apply(record(key={"magic": {"foo": 42}}, key_schema=nested))


def test_extract_field_nested_null_struct_with_schema() -> None:
    inner = Schema.struct(None, ("foo", INT32_SCHEMA), optional=True)
    schema = Schema.struct(None, ("magic", inner))
    transform = configured(ExtractFieldValue, field="magic.foo", field_syntax_version="V2")
    result = apply(transform, record({"magic": None}, schema))
    assert result.value is None and result.value_schema == INT32_SCHEMA


def test_extract_field_wrong_shapes() -> None:
    with pytest.raises(DataError, match=r"Only Map objects supported in absence of schema for \[field extraction\]"):
        configured(ExtractFieldValue, field="a").apply(record("text"))
    with pytest.raises(DataError, match=r"Only Struct objects supported for \[field extraction\]"):
        configured(ExtractFieldValue, field="a").apply(record("text", STRING_SCHEMA))
    with pytest.raises(DataError, match=r"Cannot look up fields on non-struct type: STRING"):
        configured(ExtractFieldValue, field="a").apply(record(None, OPTIONAL_STRING_SCHEMA))
    transform = configured(ExtractFieldValue, field="a.b", field_syntax_version="V2")
    with pytest.raises(DataError, match=r"Only Map objects supported in absence of schema for \[nested field access"):
        transform.apply(record({"a": 5}))


@pytest.mark.parametrize(
    ("path", "steps"),
    [
        ("foo.bar.baz", ("foo", "bar", "baz")),
        ("foobarbaz", ("foobarbaz",)),
        ("..", ("", "", "")),
        ("foo..", ("foo", "", "")),
        (".bar.", ("", "bar", "")),
        ("..baz", ("", "", "baz")),
        ("foo`bar`baz", ("foo`bar`baz",)),
        ("`foo.bar.baz`", ("foo.bar.baz",)),
        ("foo.`bar.baz`", ("foo", "bar.baz")),
        ("`foo.bar`.baz", ("foo.bar", "baz")),
        ("foo.`bar`.baz", ("foo", "bar", "baz")),
        ("foo.``bar.baz`", ("foo", "`bar.baz")),
        ("foo.`bar.baz``", ("foo", "bar.baz`")),
        ("foo.`ba`r.baz`", ("foo", "ba`r.baz")),
        ("foo.ba`r.baz", ("foo", "ba`r", "baz")),
        ("foo.``bar``.baz", ("foo", "`bar`", "baz")),
        ("``foo.bar.baz``", ("`foo.bar.baz`",)),
        ("foo.`bar\\`.baz`", ("foo", "bar`.baz")),
        ("foo.`bar.`baz`", ("foo", "bar.`baz")),
        ("foo.`bar\\`.`baz`", ("foo", "bar`.`baz")),
        ("foo.`bar\\\\`.\\`baz`", ("foo", "bar\\`.\\`baz")),
        ("", ("",)),  # Kafka: no step at all, which fails per record; here the field named ""
    ],
)
def test_field_path_v2(path: str, steps: tuple[str, ...]) -> None:
    assert parse_field_path(path, "V2") == steps


@pytest.mark.parametrize("path", ["foo.bar.baz", "foo`bar`", "foo.`bar.baz`"])
def test_field_path_v1_is_one_step(path: str) -> None:
    assert parse_field_path(path, "V1") == (path,)


@pytest.mark.parametrize(
    ("path", "position"), [("`foo.bar.baz", 0), ("foo.`bar.baz", 4), ("foo.bar.`baz", 8), ("foo.bar.`baz\\`", 8)]
)
def test_field_path_incomplete_backticks(path: str, position: int) -> None:
    with pytest.raises(ConfigError) as caught:
        ExtractFieldValue().configure({"field": path, "field.syntax.version": "V2"})
    assert caught.value.problems == {
        "field": f"Incomplete backtick pair in path: [{path}], consider adding a "
        f"backslash before backtick at position {position} to escape it"
    }


def test_extract_field_config_errors() -> None:
    with pytest.raises(ConfigError, match='Missing required configuration "field"'):
        ExtractFieldKey().configure({})
    with pytest.raises(ConfigError) as caught:
        ExtractFieldKey().configure({"field": "a", "field.syntax.version": "V3"})
    assert list(caught.value.problems) == ["field.syntax.version"]


# -- HoistField ----------------------------------------------------------------------------------------
def test_hoist_field_schemaless() -> None:
    result = apply(configured(HoistFieldKey, field="magic"), record(key=42))
    assert result.key_schema is None and result.key == {"magic": 42}


def test_hoist_field_with_schema() -> None:
    result = apply(configured(HoistFieldKey, field="magic"), record(key=42, key_schema=INT32_SCHEMA))
    assert result.key_schema == Schema.struct(None, ("magic", INT32_SCHEMA))
    assert result.key == {"magic": 42}


def test_hoist_field_value_wraps_a_struct() -> None:
    inner = Schema.struct("inner", ("a", STRING_SCHEMA))
    result = apply(configured(HoistFieldValue, field="payload"), record({"a": "x"}, inner, key=1))
    assert result.value_schema == Schema.struct(None, ("payload", inner))
    assert result.value == {"payload": {"a": "x"}}
    assert result.key == 1


def test_hoist_field_null() -> None:
    assert apply(configured(HoistFieldValue, field="f"), record(None)).value == {"f": None}
    optional = apply(configured(HoistFieldValue, field="f"), record(None, OPTIONAL_STRING_SCHEMA))
    assert optional.value == {"f": None}
    with pytest.raises(DataError, match='null used for required field: "f", schema type: STRING'):
        configured(HoistFieldValue, field="f").apply(record(None, STRING_SCHEMA))


def test_hoist_field_needs_field() -> None:
    with pytest.raises(ConfigError, match='Missing required configuration "field"'):
        HoistFieldKey().configure({})


# -- Cast: configuration -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "Must specify at least one field to cast."),
        ("foo:faketype", "Invalid type found in casting spec: faketype"),
        (
            "foo:array",
            "does not support casting to ARRAY; supported types are [INT8, INT16, INT32, INT64, FLOAT32, "
            "FLOAT64, BOOLEAN, STRING]",
        ),
        ("array", "does not support casting to ARRAY"),
        ("foo:bytes", "does not support casting to BYTES"),
        ("foo:int8:extra", "Invalid cast mapping: foo:int8:extra"),
        ("foo:int8,int32", "may only specify a single cast in their spec"),
        ("foo:", "Invalid type found in casting spec: foo"),
    ],
)
def test_cast_config_errors(spec: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        CastKey().configure({"spec": spec})
    assert list(caught.value.problems) == ["spec"]
    assert message in caught.value.problems["spec"]


def test_cast_config_requires_spec_and_reads_types_in_any_case() -> None:
    with pytest.raises(ConfigError, match='Missing required configuration "spec"'):
        CastValue().configure({})
    assert parse_cast_spec(["a:INT8", " b : Float64 "]) == (None, {"a": SchemaType.INT8, "b": SchemaType.FLOAT64})
    assert parse_cast_spec(["string"]) == (SchemaType.STRING, {})
    CastValue().configure({"spec": "int8", "replace.null.with.default": "false"})


# -- Cast: whole values --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("target", "type_", "expected"),
    [
        ("int8", SchemaType.INT8, 42),
        ("int16", SchemaType.INT16, 42),
        ("int32", SchemaType.INT32, 42),
        ("int64", SchemaType.INT64, 42),
        ("float32", SchemaType.FLOAT32, 42.0),
        ("float64", SchemaType.FLOAT64, 42.0),
        ("boolean", SchemaType.BOOLEAN, True),
        ("string", SchemaType.STRING, "42"),
    ],
)
def test_cast_whole_value(target: str, type_: SchemaType, expected: Any) -> None:
    with_schema = apply(configured(CastValue, spec=target), record(42, INT32_SCHEMA))
    assert with_schema.value_schema == Schema(type_)
    assert with_schema.value == expected and type(with_schema.value) is type(expected)
    schemaless = apply(configured(CastValue, spec=target), record(42))
    assert schemaless.value_schema is None
    assert schemaless.value == expected and type(schemaless.value) is type(expected)


def test_cast_whole_key() -> None:
    result = apply(configured(CastKey, spec="int8"), record("bogus", STRING_SCHEMA, key=42, key_schema=INT32_SCHEMA))
    assert (result.key, result.key_schema) == (42, INT8_SCHEMA)
    assert (result.value, result.value_schema) == ("bogus", STRING_SCHEMA)
    assert apply(configured(CastKey, spec="int8"), record(key=42)).key == 42


def test_cast_zero_to_boolean_is_false() -> None:
    assert apply(configured(CastValue, spec="boolean"), record(0, INT32_SCHEMA)).value is False
    assert apply(configured(CastValue, spec="boolean"), record(0)).value is False


def test_cast_keeps_schema_basics_and_optionality() -> None:
    schema = Schema(SchemaType.INT64, optional=True, name="com.example.Id", version=3, doc="an id")
    result = apply(configured(CastValue, spec="string"), record(7, schema))
    assert result.value_schema == Schema(SchemaType.STRING, True, "com.example.Id", 3, "an id")


@pytest.mark.parametrize("side", [CastKey, CastValue])
def test_cast_null_passes_through(side: type[Transformation]) -> None:
    for rec in (record(None, STRING_SCHEMA, key=None, key_schema=STRING_SCHEMA), record(None, None)):
        assert apply(configured(side, spec="foo:int64"), rec) == rec


def test_cast_whole_value_unsupported_inputs() -> None:
    with pytest.raises(
        DataError,
        match=r"does not support casting from ARRAY; supported types are \[INT8, INT16, "
        r"INT32, INT64, FLOAT32, FLOAT64, BOOLEAN, STRING, BYTES\]",
    ):
        configured(CastValue, spec="int8").apply(record(["foo"]))
    with pytest.raises(DataError, match="does not support casting from STRUCT"):
        configured(CastValue, spec="string").apply(record({"a": 1}, Schema.struct(None, ("a", INT32_SCHEMA))))
    with pytest.raises(DataError, match="value of type datetime which is not supported by Connect's data API"):
        configured(CastValue, spec="string").apply(record(datetime(2020, 1, 1)))


# -- Cast: fields --------------------------------------------------------------------------------------
def test_cast_fields_with_schema() -> None:
    day = date(1970, 1, 2)
    spec = (
        "int8:int16,int16:int32,int32:int64,int64:boolean,float32:float64,float64:boolean,boolean:int8,"
        "string:int32,date:string,optional:int32,bytes:string"
    )
    schema = Schema.struct(
        "com.example.Row",
        ("int8", INT8_SCHEMA),
        ("int16", OPTIONAL_INT16_SCHEMA),
        ("int32", INT32_SCHEMA),
        ("int64", INT64_SCHEMA),
        ("float32", FLOAT32_SCHEMA),
        ("float64", FLOAT64_SCHEMA),
        ("boolean", BOOLEAN_SCHEMA),
        ("string", STRING_SCHEMA),
        ("date", DATE_SCHEMA),
        ("optional", OPTIONAL_FLOAT32_SCHEMA),
        ("timestamp", TIMESTAMP_SCHEMA),
        ("bytes", BYTES_SCHEMA),
    )
    epoch = datetime(1970, 1, 1, tzinfo=UTC)
    value = {
        "int8": 8,
        "int16": 16,
        "int32": 32,
        "int64": 64,
        "float32": 32.0,
        "float64": -64.0,
        "boolean": True,
        "string": "42",
        "date": day,
        "optional": None,
        "timestamp": epoch,
        "bytes": bytes([0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10]),
    }
    result = apply(configured(CastValue, spec=spec), record(value, schema))
    assert result.value == {
        "int8": 8,
        "int16": 16,
        "int32": 32,
        "int64": True,
        "float32": 32.0,
        "float64": True,
        "boolean": 1,
        "string": 42,
        "date": "1970-01-02",
        "optional": None,
        "timestamp": epoch,
        "bytes": "/ty6mHZUMhA=",
    }
    assert result.value_schema == Schema.struct(
        "com.example.Row",
        ("int8", INT16_SCHEMA),
        ("int16", OPTIONAL_INT32_SCHEMA),
        ("int32", INT64_SCHEMA),
        ("int64", BOOLEAN_SCHEMA),
        ("float32", FLOAT64_SCHEMA),
        ("float64", BOOLEAN_SCHEMA),
        ("boolean", INT8_SCHEMA),
        ("string", INT32_SCHEMA),
        ("date", STRING_SCHEMA),
        ("optional", OPTIONAL_INT32_SCHEMA),
        ("timestamp", TIMESTAMP_SCHEMA),
        ("bytes", STRING_SCHEMA),
    )


def test_cast_fields_schemaless() -> None:
    spec = "int8:int16,int16:int32,int32:int64,int64:boolean,float32:float64,float64:boolean,boolean:int8,string:int32"
    value = {
        "int8": 8,
        "int16": 16,
        "int32": 32,
        "int64": 64,
        "float32": 32.0,
        "float64": -64.0,
        "boolean": True,
        "string": "42",
        "untouched": [1],
    }
    result = apply(configured(CastValue, spec=spec), record(value))
    assert result.value_schema is None
    assert result.value == {
        "int8": 8,
        "int16": 16,
        "int32": 32,
        "int64": True,
        "float32": 32.0,
        "float64": True,
        "boolean": 1,
        "string": 42,
        "untouched": [1],
    }


def test_cast_schemaless_missing_field_is_added_as_null() -> None:
    assert apply(configured(CastValue, spec="absent:int32"), record({"a": 1})).value == {"a": 1, "absent": None}


def test_cast_field_missing_from_schema_is_ignored() -> None:
    schema = Schema.struct(None, ("a", INT32_SCHEMA))
    result = apply(configured(CastValue, spec="absent:int64"), record({"a": 1}, schema))
    assert (result.value, result.value_schema) == ({"a": 1}, schema)


def test_cast_logical_to_primitive() -> None:
    spec = (
        "date_to_int32:int32,timestamp_to_int64:int64,time_to_int64:int64,timestamp_to_float64:float64,"
        "null_timestamp_to_int32:int32"
    )
    schema = Schema.struct(
        None,
        ("date_to_int32", DATE_SCHEMA),
        ("timestamp_to_int64", TIMESTAMP_SCHEMA),
        ("time_to_int64", TIME_SCHEMA),
        ("timestamp_to_float64", TIMESTAMP_SCHEMA),
        ("null_timestamp_to_int32", TIMESTAMP_SCHEMA.as_optional()),
    )
    value = {
        "date_to_int32": date(1970, 1, 2),
        "timestamp_to_int64": datetime(1970, 1, 1, tzinfo=UTC),
        "time_to_int64": time(0, 0, 0, 1000),
        "timestamp_to_float64": datetime(9999, 12, 31, tzinfo=UTC),
        "null_timestamp_to_int32": None,
    }
    result = apply(configured(CastValue, spec=spec), record(value, schema))
    assert result.value == {
        "date_to_int32": 1,
        "timestamp_to_int64": 0,
        "time_to_int64": 1,
        "timestamp_to_float64": 253402214400000.0,
        "null_timestamp_to_int32": None,
    }
    assert result.value_schema is not None
    assert [f.schema for f in result.value_schema.fields] == [
        INT32_SCHEMA,
        INT64_SCHEMA,
        INT64_SCHEMA,
        FLOAT64_SCHEMA,
        OPTIONAL_INT32_SCHEMA,
    ]


def test_cast_logical_to_string_uses_kafka_formats() -> None:
    schema = Schema.struct(
        None,
        ("date", DATE_SCHEMA),
        ("time", TIME_SCHEMA),
        ("timestamp", TIMESTAMP_SCHEMA),
        ("midnight", TIMESTAMP_SCHEMA),
    )
    value = {
        "date": date(1970, 1, 2),
        "time": time(1, 0),
        "timestamp": datetime(2024, 5, 6, 7, 8, 9, 123456),
        "midnight": datetime(2024, 5, 6, tzinfo=UTC),
    }
    result = apply(
        configured(CastValue, spec="date:string,time:string,timestamp:string,midnight:string"), record(value, schema)
    )
    assert result.value == {
        "date": "1970-01-02",
        "time": "01:00:00.000Z",
        "timestamp": "2024-05-06T07:08:09.123Z",
        "midnight": "2024-05-06",
    }


def test_cast_whole_timestamp_drops_the_logical_name() -> None:
    result = apply(configured(CastValue, spec="string"), record(datetime(1970, 1, 2, 0, 0, 0, 1000), TIMESTAMP_SCHEMA))
    assert result.value == "1970-01-02T00:00:00.001Z"
    assert result.value_schema == Schema(SchemaType.STRING, version=1)
    as_long = apply(configured(CastValue, spec="int64"), record(datetime(1970, 1, 2, tzinfo=UTC), TIMESTAMP_SCHEMA))
    assert (as_long.value, as_long.value_schema) == (86_400_000, Schema(SchemaType.INT64, version=1))


def test_cast_struct_field_is_refused_naming_it() -> None:
    schema = Schema.struct(None, ("inner", Schema.struct(None, ("a", INT32_SCHEMA))))
    with pytest.raises(DataError, match=r"does not support casting from STRUCT.*\(field 'inner'\)"):
        configured(CastValue, spec="inner:string").apply(record({"inner": {"a": 1}}, schema))


# -- Cast: Java's conversion rules ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "value", "schema", "expected"),
    [
        ("int8", 300, INT32_SCHEMA, 44),  # high bits dropped
        ("int8", -129, None, 127),
        ("int16", 70000, INT64_SCHEMA, 4464),
        ("int32", 2**31, INT64_SCHEMA, -(2**31)),
        ("int32", -3.99, FLOAT64_SCHEMA, -3),  # toward zero
        ("int32", 1e20, None, 2**31 - 1),  # saturates
        ("int64", -1e30, None, -(2**63)),
        ("int64", math.nan, None, 0),
        ("int8", 1e10, None, -1),  # through int: 2147483647 narrowed to a byte
        ("int8", True, BOOLEAN_SCHEMA, 1),
        ("float32", 0.1, None, 0.10000000149011612),
        ("float32", 1e40, None, math.inf),
        ("float32", 2**60 + 2**36 + 1, INT64_SCHEMA, float(2**60 + 2**37)),  # rounded once (via a double: 2**60)
        ("float64", False, None, 0.0),
        ("boolean", 0.5, None, False),  # integer part is 0
        ("boolean", -2.5, FLOAT64_SCHEMA, True),
        ("boolean", "TRUE", None, True),
        ("boolean", "yes", None, False),
        ("boolean", "", STRING_SCHEMA, False),
        ("int32", "+42", None, 42),
        ("int64", "-9223372036854775808", None, -(2**63)),
        ("float64", " 1.5e3d ", None, 1500.0),
        ("float64", "0x1.8p1", None, 3.0),
        ("float64", "-Infinity", None, -math.inf),
        ("float32", "3.4e39", None, math.inf),
        ("string", True, None, "true"),
        ("string", 1e10, None, "1.0E10"),
        ("string", 0.0001, None, "1.0E-4"),
        ("string", 123.0, None, "123.0"),
        ("string", 32.099998474121094, FLOAT32_SCHEMA, "32.1"),  # Float.toString, not Double.toString
        ("string", 32.099998474121094, None, "32.099998474121094"),
        ("string", 3, FLOAT64_SCHEMA, "3.0"),
        ("string", math.nan, None, "NaN"),
        ("string", b"\x00\x01", BYTES_SCHEMA, "AAE="),
        ("string", bytearray(b"hi"), None, "aGk="),
        ("string", time(0, 0, 1), TIME_SCHEMA, "00:00:01.000Z"),
    ],
)
def test_cast_conversions(spec: str, value: Any, schema: Schema | None, expected: Any) -> None:
    result = apply(configured(CastValue, spec=spec), record(value, schema))
    assert result.value == expected and type(result.value) is type(expected)


@pytest.mark.parametrize(
    ("spec", "value"),
    [
        ("int8", "128"),
        ("int32", "abc"),
        ("int32", "4.0"),
        ("int32", " 4"),
        ("int32", "1_000"),
        ("int64", ""),
        ("float64", "inf"),
        ("float64", "nan"),
        ("float64", "NaNd"),
        ("float64", "1_0"),
        ("float32", "1e"),
    ],
)
def test_cast_unparseable_strings(spec: str, value: str) -> None:
    with pytest.raises(DataError, match=rf"^Value \({value}\) was out of range for requested data type"):
        configured(CastValue, spec=spec).apply(record(value))


def test_cast_bytes_only_to_string() -> None:
    with pytest.raises(DataError, match="Unexpected type in Cast transformation: bytes"):
        configured(CastValue, spec="int32").apply(record(b"\x01", BYTES_SCHEMA))


@pytest.mark.parametrize(
    ("number", "single", "text"),
    [
        (1.0, False, "1.0"),
        (0.001, False, "0.001"),
        (9999999.0, False, "9999999.0"),
        (1e7, False, "1.0E7"),
        (-1.5e-7, False, "-1.5E-7"),
        (-0.0, False, "-0.0"),
        (5e-324, False, "4.9E-324"),
        (1.7976931348623157e308, False, "1.7976931348623157E308"),
        (1.401298464324817e-45, True, "1.4E-45"),
        (3.4028234663852886e38, True, "3.4028235E38"),
        (math.inf, True, "Infinity"),
    ],
)
def test_java_float_text(number: float, single: bool, text: str) -> None:
    assert java_float_text(number, single=single) == text


# -- Flatten -------------------------------------------------------------------------------------------
def test_flatten_needs_a_struct_or_map() -> None:
    with pytest.raises(DataError, match=r"Only Struct objects supported for \[flattening\]"):
        configured(FlattenValue).apply(record(42, INT32_SCHEMA))
    with pytest.raises(DataError, match=r"Only Map objects supported in absence of schema for \[flattening\]"):
        configured(FlattenValue).apply(record(42))


def test_flatten_nested_struct() -> None:
    supported = Schema.struct(
        None,
        ("int8", INT8_SCHEMA),
        ("int16", INT16_SCHEMA),
        ("int32", INT32_SCHEMA),
        ("int64", INT64_SCHEMA),
        ("float32", FLOAT32_SCHEMA),
        ("float64", FLOAT64_SCHEMA),
        ("boolean", BOOLEAN_SCHEMA),
        ("string", STRING_SCHEMA),
        ("bytes", BYTES_SCHEMA),
    )
    schema = Schema.struct("top", ("A", Schema.struct(None, ("B", supported))))
    leaves = {
        "int8": 8,
        "int16": 16,
        "int32": 32,
        "int64": 64,
        "float32": 32.0,
        "float64": 64.0,
        "boolean": True,
        "string": "stringy",
        "bytes": b"bytes",
    }
    result = apply(configured(FlattenValue), record({"A": {"B": leaves}}, schema))
    assert result.value == {f"A.B.{name}": item for name, item in leaves.items()}
    assert result.value_schema == Schema.struct("top", *((f"A.B.{f.name}", f.schema) for f in supported.fields))


def test_flatten_nested_map_with_delimiter() -> None:
    leaves = {"int8": 8, "float64": 64.0, "boolean": True, "string": "stringy", "bytes": b"bytes", "null": None}
    result = apply(configured(FlattenValue, delimiter="#"), record({"A": {"B": leaves}}))
    assert result.value_schema is None
    assert result.value == {f"A#B#{name}": item for name, item in leaves.items()}


def test_flatten_optional_fields_and_null_nested_struct() -> None:
    inner = Schema.struct(None, ("opt_int32", OPTIONAL_INT32_SCHEMA), ("req", STRING_SCHEMA), optional=True)
    schema = Schema.struct(None, ("B", inner), ("c", INT64_SCHEMA))
    result = apply(configured(FlattenValue), record({"B": None, "c": 5}, schema))
    assert result.value == {"B.opt_int32": None, "B.req": None, "c": 5}
    # Under an optional parent, a required field becomes optional.
    assert result.value_schema == Schema.struct(
        None, ("B.opt_int32", OPTIONAL_INT32_SCHEMA), ("B.req", OPTIONAL_STRING_SCHEMA), ("c", INT64_SCHEMA)
    )
    with_values = apply(configured(FlattenValue), record({"B": {"opt_int32": None, "req": "r"}, "c": 5}, schema))
    assert with_values.value == {"B.opt_int32": None, "B.req": "r", "c": 5}


def test_flatten_optional_top_level_struct() -> None:
    schema = Schema.struct("n", ("a", STRING_SCHEMA), optional=True)
    result = apply(configured(FlattenValue), record({"a": "x"}, schema))
    # As Kafka: the fields take the optionality, the flattened struct itself does not keep it.
    assert result.value_schema == Schema.struct("n", ("a", OPTIONAL_STRING_SCHEMA))


def test_flatten_key() -> None:
    result = apply(configured(FlattenKey), record("v", key={"A": {"B": 12}}))
    assert result.key_schema is None and result.key == {"A.B": 12}
    assert result.value == "v"


def test_flatten_leaves_arrays_alone() -> None:
    value = {"foo": ["bar", {"baz": {"lfg": "lfg"}}]}
    assert apply(configured(FlattenValue), record(value)).value == value
    nested = Schema.struct(None, ("lfg", STRING_SCHEMA))
    inner = Schema.struct(None, ("baz", nested))
    schema = Schema.struct(None, ("foo", Schema(SchemaType.ARRAY, doc="durk", value_schema=inner)))
    struct_value = {"foo": [{"baz": {"lfg": "lfg"}}]}
    result = apply(configured(FlattenValue), record(struct_value, schema))
    assert (result.value, result.value_schema) == (struct_value, schema)


def test_flatten_tombstones_pass_through() -> None:
    assert apply(configured(FlattenValue), record(None)) == record(None)
    schema = Schema.struct("name", ("magic", OPTIONAL_INT64_SCHEMA), optional=True)
    assert apply(configured(FlattenValue), record(None, schema)) == record(None, schema)


def test_flatten_keeps_null_fields_in_order() -> None:
    value = {
        "firstNull": None,
        "firstNonNull": "nonNull",
        "secondNull": None,
        "secondNonNull": "alsoNonNull",
        "thirdNonNull": None,
    }
    result = apply(configured(FlattenValue), record(value))
    assert list(result.value.items()) == list(value.items())
    schema = Schema.struct(None, *((name, OPTIONAL_STRING_SCHEMA) for name in value))
    with_schema = apply(configured(FlattenValue), record(value, schema))
    assert (with_schema.value, with_schema.value_schema) == (value, schema)


def test_flatten_keeps_name_version_doc_and_logical_types() -> None:
    inner = Schema.struct(None, ("at", TIMESTAMP_SCHEMA))
    schema = Schema(
        SchemaType.STRUCT, name="com.example.V", version=2, doc="d", fields=Schema.struct(None, ("inner", inner)).fields
    )
    stamp = datetime(2024, 1, 1, tzinfo=UTC)
    result = apply(configured(FlattenValue), record({"inner": {"at": stamp}}, schema))
    assert result.value_schema == Schema(
        SchemaType.STRUCT,
        name="com.example.V",
        version=2,
        doc="d",
        fields=Schema.struct(None, ("inner.at", TIMESTAMP_SCHEMA)).fields,
    )
    assert result.value == {"inner.at": stamp}


def test_flatten_refuses_maps_under_a_schema() -> None:
    schema = Schema.struct(None, ("outer", Schema.struct(None, ("m", Schema.map(STRING_SCHEMA, INT32_SCHEMA)))))
    with pytest.raises(
        DataError,
        match=r"^Flatten transformation does not support MAP for record with schemas "
        r"\(for field outer.m\)\.$",
    ):
        configured(FlattenValue).apply(record({"outer": {"m": {}}}, schema))


def test_flatten_duplicate_names() -> None:
    schema = Schema.struct(None, ("a", Schema.struct(None, ("b", INT32_SCHEMA))), ("a.b", INT32_SCHEMA))
    with pytest.raises(DataError, match=r"field name duplication a\.b$"):
        configured(FlattenValue).apply(record({"a": {"b": 1}, "a.b": 2}, schema))
    assert apply(configured(FlattenValue), record({"a": {"b": 1}, "a.b": 2})).value == {"a.b": 2}


def test_flatten_schemaless_unsupported_value() -> None:
    with pytest.raises(
        DataError,
        match=r"value of type set which is not supported by Connect's data API "
        r"\(for field a.s\)",
    ):
        configured(FlattenValue).apply(record({"a": {"s": {1}}}))


def test_cast_to_string_of_a_float32_writes_javas_float_text() -> None:
    """0.1 is no float32: the text is Java's Float.toString of the nearest one (once a StopIteration)."""
    result = apply(configured(CastValue, spec="string"), record(0.1, Schema(SchemaType.FLOAT32)))
    assert (result.value, result.value_schema) == ("0.1", STRING_SCHEMA)
