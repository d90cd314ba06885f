"""InsertField, ReplaceField, MaskField and SetSchemaMetadata, against Kafka's documented examples and
its unit tests (`InsertFieldTest`, `ReplaceFieldTest`, `MaskFieldTest`, `SetSchemaMetadataTest`):
same inputs, same outputs, for schemaless maps and for structs with a schema."""

from __future__ import annotations

import copy
from datetime import UTC, date, datetime, time
from decimal import Decimal
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
    Field,
    Schema,
    SchemaType,
)
from connectworker.api.transform import Transformation
from connectworker.converters import logical
from connectworker.transforms.insert_field import InsertFieldKey, InsertFieldValue
from connectworker.transforms.mask_field import MaskFieldKey, MaskFieldValue
from connectworker.transforms.registry import builtin_transformation
from connectworker.transforms.replace_field import ReplaceFieldKey, ReplaceFieldValue
from connectworker.transforms.set_schema_metadata import SetSchemaMetadataKey, SetSchemaMetadataValue

OPTIONAL_INT32 = Schema(SchemaType.INT32, optional=True)
OPTIONAL_INT64 = Schema(SchemaType.INT64, optional=True)
TIMESTAMP_SCHEMA = Schema(SchemaType.INT64, name=logical.TIMESTAMP, version=1)
DATE_SCHEMA = Schema(SchemaType.INT32, name=logical.DATE, version=1)
TIME_SCHEMA = Schema(SchemaType.INT32, name=logical.TIME, version=1)


def record(topic: str = "test", **fields: Any) -> SourceRecord:
    base: dict[str, Any] = {"source_partition": None, "source_offset": None, "topic": topic, "value": None}
    return SourceRecord(**(base | fields))


def configured(cls: type[Transformation], **props: str) -> Any:
    transform = cls()
    transform.configure({key.replace("_", "."): value for key, value in props.items()})
    return transform


def field_schema(schema: Schema, name: str) -> Schema:
    return next(field.schema for field in schema.fields if field.name == name)


# -- InsertField ---------------------------------------------------------------------------------
KAFKA_INSERTIONS = {
    "topic.field": "topic_field!",
    "partition.field": "partition_field",
    "timestamp.field": "timestamp_field?",
    "static.field": "instance_id",
    "static.value": "my-instance-id",
}


def insert_value() -> InsertFieldValue:
    transform = InsertFieldValue()
    transform.configure(KAFKA_INSERTIONS)
    return transform


def test_insert_field_copies_schema_and_inserts_configured_fields() -> None:
    # Kafka's InsertFieldTest.copySchemaAndInsertConfiguredFields
    schema = Schema(SchemaType.STRUCT, name="name", version=1, doc="doc", fields=(Field("magic", OPTIONAL_INT64),))
    value = {"magic": 42}
    transform = insert_value()
    out = transform.apply(record("test", partition=0, value_schema=schema, value=value, timestamp=789))
    new_schema = out.value_schema
    assert new_schema is not None
    assert (new_schema.name, new_schema.version, new_schema.doc) == ("name", 1, "doc")
    assert [f.name for f in new_schema.fields] == [
        "magic",
        "topic_field",
        "partition_field",
        "timestamp_field",
        "instance_id",
    ]
    assert field_schema(new_schema, "magic") == OPTIONAL_INT64
    assert field_schema(new_schema, "topic_field") == STRING_SCHEMA
    assert field_schema(new_schema, "partition_field") == OPTIONAL_INT32
    assert field_schema(new_schema, "timestamp_field") == TIMESTAMP_SCHEMA.as_optional()
    assert field_schema(new_schema, "instance_id") == OPTIONAL_STRING_SCHEMA
    assert out.value == {
        "magic": 42,
        "topic_field": "test",
        "partition_field": 0,
        "timestamp_field": datetime(1970, 1, 1, 0, 0, 0, 789000, tzinfo=UTC),
        "instance_id": "my-instance-id",
    }
    assert value == {"magic": 42}  # the input struct is not changed
    # The updated schema is built once per schema.
    again = transform.apply(record("test", partition=1, value_schema=schema, value={"magic": None}))
    assert again.value_schema is new_schema


def test_insert_field_schemaless() -> None:
    # Kafka's InsertFieldTest.schemalessInsertConfiguredFields
    value = {"magic": 42}
    out = insert_value().apply(record("test", partition=0, value=value, timestamp=123))
    assert out.value == {
        "magic": 42,
        "topic_field": "test",
        "partition_field": 0,
        "timestamp_field": 123,
        "instance_id": "my-instance-id",
    }
    assert out.value_schema is None
    assert value == {"magic": 42}


def test_insert_field_leaves_out_what_the_record_lacks() -> None:
    out = insert_value().apply(record("test", value={"magic": 42}))  # no partition, no timestamp
    assert out.value == {"magic": 42, "topic_field": "test", "instance_id": "my-instance-id"}


@pytest.mark.parametrize("schema", [None, Schema.struct("name", ("magic", OPTIONAL_INT64))])
def test_insert_field_tombstone_passes_unchanged(schema: Schema | None) -> None:
    # Kafka's insertConfiguredFieldsIntoTombstoneEvent{Without,With}SchemaLeavesValueUnchanged
    original = record("test", partition=0, value_schema=schema)
    out = insert_value().apply(original)
    assert out.value is None
    assert out.value_schema == schema


def test_insert_field_key_into_a_record_with_a_null_value() -> None:
    # Kafka's insertKeyFieldsIntoTombstoneEvent
    transform = InsertFieldKey()
    transform.configure(KAFKA_INSERTIONS)
    out = transform.apply(record("test", partition=0, key={"magic": 42}))
    assert out.key == {"magic": 42, "topic_field": "test", "partition_field": 0, "instance_id": "my-instance-id"}
    assert out.value is None


def test_insert_field_into_a_null_key_returns_the_record() -> None:
    # Kafka's insertIntoNullKeyLeavesRecordUnchanged
    transform = InsertFieldKey()
    transform.configure(KAFKA_INSERTIONS)
    original = record("test", partition=0, value={"magic": 42})
    assert transform.apply(original) is original


def test_insert_field_needs_a_struct_or_a_map() -> None:
    # Kafka's topLevelStructRequired
    transform = configured(InsertFieldValue, topic_field="topic_field")
    with pytest.raises(DataError, match=r"Only Struct objects supported for \[field insertion\]"):
        transform.apply(record("", partition=0, value_schema=INT32_SCHEMA, value=42))
    with pytest.raises(DataError, match=r"Only Map objects supported in absence of schema for \[field insertion\]"):
        transform.apply(record("", value=42))


def test_insert_field_refuses_a_field_the_struct_has() -> None:
    transform = configured(InsertFieldValue, topic_field="magic")
    with pytest.raises(DataError, match="field name duplication magic"):
        transform.apply(record("t", value_schema=Schema.struct("s", ("magic", INT64_SCHEMA)), value={"magic": 1}))
    # Schemaless, the entry is replaced, as Kafka's HashMap.put does.
    assert transform.apply(record("t", value={"magic": 1})).value == {"magic": "t"}


def test_insert_field_required_and_optional_suffixes() -> None:
    transform = configured(InsertFieldValue, topic_field="a!", timestamp_field="b?", static_field="c", static_value="v")
    schema = transform.apply(record("t", value_schema=Schema.struct(None), value={}, timestamp=0)).value_schema
    assert field_schema(schema, "a") == STRING_SCHEMA
    assert field_schema(schema, "b") == TIMESTAMP_SCHEMA.as_optional()
    assert field_schema(schema, "c") == OPTIONAL_STRING_SCHEMA


def test_insert_field_struct_schema_is_rebuilt_as_kafka_does() -> None:
    # Kafka builds the new schema with SchemaBuilder.struct() and copies name, version and doc only.
    transform = configured(InsertFieldValue, topic_field="t")
    schema = Schema.struct("s", ("a", INT32_SCHEMA), optional=True)
    assert transform.apply(record("x", value_schema=schema, value={"a": 1})).value_schema.optional is False


def test_insert_field_needs_something_to_insert() -> None:
    with pytest.raises(ConfigError, match="No field insertion configured"):
        InsertFieldValue().configure({})
    with pytest.raises(ConfigError) as caught:
        InsertFieldValue().configure({"static.field": "instance_id"})
    assert caught.value.problems == {
        "static.value": "No value specified for static field: instance_id (set static.value)"
    }


def test_insert_field_refuses_offset_field_for_source_records() -> None:
    with pytest.raises(ConfigError) as caught:
        InsertFieldValue().configure({"offset.field": "offset", "topic.field": "t"})
    assert list(caught.value.problems) == ["offset.field"]
    assert "only known to sink connectors" in caught.value.problems["offset.field"]


def test_insert_field_refuses_an_empty_field_name() -> None:
    with pytest.raises(ConfigError) as caught:
        InsertFieldValue().configure({"topic.field": "!"})
    assert list(caught.value.problems) == ["topic.field"]


# -- ReplaceField --------------------------------------------------------------------------------
KAFKA_STRUCT = Schema.struct(
    None, ("dont", STRING_SCHEMA), ("abc", INT32_SCHEMA), ("foo", BOOLEAN_SCHEMA), ("etc", STRING_SCHEMA)
)
KAFKA_VALUE = {"dont": "whatever", "abc": 42, "foo": True, "etc": "etc"}


def test_replace_field_schemaless() -> None:
    # Kafka's ReplaceFieldTest.schemaless
    transform = configured(ReplaceFieldValue, exclude="dont", renames="abc:xyz,foo:bar")
    value = dict(KAFKA_VALUE)
    out = transform.apply(record(value=value))
    assert out.value == {"xyz": 42, "bar": True, "etc": "etc"}
    assert list(out.value) == ["xyz", "bar", "etc"]
    assert value == KAFKA_VALUE


def test_replace_field_with_schema() -> None:
    # Kafka's ReplaceFieldTest.withSchema
    transform = configured(ReplaceFieldValue, include="abc,foo", renames="abc:xyz,foo:bar")
    out = transform.apply(record(value_schema=KAFKA_STRUCT, value=dict(KAFKA_VALUE)))
    assert out.value_schema == Schema.struct(None, ("xyz", INT32_SCHEMA), ("bar", BOOLEAN_SCHEMA))
    assert out.value == {"xyz": 42, "bar": True}


def test_replace_field_keeps_field_order_and_schema_metadata() -> None:
    schema = Schema(SchemaType.STRUCT, name="n", version=3, doc="d", fields=KAFKA_STRUCT.fields)
    transform = configured(ReplaceFieldValue, include="etc,abc,dont", exclude="dont", renames="etc:z")
    out = transform.apply(record(value_schema=schema, value=dict(KAFKA_VALUE)))
    assert [f.name for f in out.value_schema.fields] == ["abc", "z"]
    assert (out.value_schema.name, out.value_schema.version, out.value_schema.doc) == ("n", 3, "d")
    assert out.value == {"abc": 42, "z": "etc"}


@pytest.mark.parametrize("schema", [None, KAFKA_STRUCT])
def test_replace_field_tombstone(schema: Schema | None) -> None:
    # Kafka's tombstoneSchemaless / tombstoneWithSchema
    transform = configured(ReplaceFieldValue, include="abc,foo", renames="abc:xyz,foo:bar")
    out = transform.apply(record(value_schema=schema))
    assert out.value is None
    assert out.value_schema == schema


def test_replace_field_key() -> None:
    transform = configured(ReplaceFieldKey, include="abc", renames="abc:optional_with_default")
    key_schema = Schema.struct(None, ("abc", OPTIONAL_INT32), ("other", INT32_SCHEMA))
    out = transform.apply(record(key_schema=key_schema, key={"abc": None, "other": 1}, value="v"))
    assert out.key == {"optional_with_default": None}
    assert out.key_schema == Schema.struct(None, ("optional_with_default", OPTIONAL_INT32))
    assert out.value == "v"


@pytest.mark.parametrize(
    ("props", "expected"),
    [
        ({"blacklist": "dont", "renames": "abc:xyz,foo:bar"}, {"xyz": 42, "bar": True, "etc": "etc"}),
        ({"whitelist": "abc,foo"}, {"abc": 42, "foo": True}),
        ({"include": "etc", "whitelist": "abc,foo"}, {"etc": "etc"}),  # the new key wins
        ({"exclude": "", "blacklist": "dont"}, KAFKA_VALUE),  # even empty
    ],
)
def test_replace_field_deprecated_aliases(props: dict[str, str], expected: dict[str, Any]) -> None:
    # Kafka 2.7-3.x's testExcludeBackwardsCompatibility / testIncludeBackwardsCompatibility
    transform = ReplaceFieldValue()
    transform.configure(props)
    assert transform.apply(record(value=dict(KAFKA_VALUE))).value == expected


@pytest.mark.parametrize("renames", ["abc", "abc:xyz:z", "abc:", "abc:xyz,foo"])
def test_replace_field_refuses_bad_renames(renames: str) -> None:
    with pytest.raises(ConfigError) as caught:
        ReplaceFieldValue().configure({"renames": renames})
    assert list(caught.value.problems) == ["renames"]
    assert "Invalid rename mapping" in caught.value.problems["renames"]


def test_replace_field_rename_onto_an_existing_field() -> None:
    transform = configured(ReplaceFieldValue, renames="abc:etc")
    with pytest.raises(DataError, match="field name duplication etc"):
        transform.apply(record(value_schema=KAFKA_STRUCT, value=dict(KAFKA_VALUE)))
    assert transform.apply(record(value=dict(KAFKA_VALUE))).value["etc"] == "etc"  # schemaless: the later wins


def test_replace_field_needs_a_struct_or_a_map() -> None:
    with pytest.raises(DataError, match=r"\[field replacement\]"):
        configured(ReplaceFieldValue, exclude="a").apply(record(value="text"))


# -- MaskField -----------------------------------------------------------------------------------
MASK_SCHEMA = Schema.struct(
    None,
    ("magic", INT32_SCHEMA),
    ("bool", BOOLEAN_SCHEMA),
    ("byte", Schema(SchemaType.INT8)),
    ("short", Schema(SchemaType.INT16)),
    ("int", INT32_SCHEMA),
    ("long", INT64_SCHEMA),
    ("float", Schema(SchemaType.FLOAT32)),
    ("double", FLOAT64_SCHEMA),
    ("string", STRING_SCHEMA),
    ("date", DATE_SCHEMA),
    ("time", TIME_SCHEMA),
    ("timestamp", TIMESTAMP_SCHEMA),
    ("array", Schema.array(INT32_SCHEMA)),
    ("map", Schema.map(STRING_SCHEMA, STRING_SCHEMA)),
    ("withDefault", OPTIONAL_STRING_SCHEMA),
)
MASK_STRUCT = {
    "magic": 42,
    "bool": True,
    "byte": 42,
    "short": 42,
    "int": 42,
    "long": 42,
    "float": 42.0,
    "double": 42.0,
    "string": "hmm",
    "date": date(2024, 5, 6),
    "time": time(12, 30),
    "timestamp": datetime(2024, 5, 6, 12, 30, tzinfo=UTC),
    "array": [1, 2, 3],
    "map": {"what": "what"},
    "withDefault": None,
}
MASK_MAP = {
    "magic": 42,
    "bool": True,
    "int": 42,
    "double": 42.0,
    "string": "55.121.20.20",
    "date": datetime(2024, 5, 6, 12, 30, tzinfo=UTC),
    "bigdec": Decimal("42.0"),
    "list": [42],
    "map": {"key": "value"},
}


def mask(fields: list[str], replacement: str | None = None, cls: type[Transformation] = MaskFieldValue) -> Any:
    props = {"fields": ",".join(fields)}
    if replacement is not None:
        props["replacement"] = replacement
    transform = cls()
    transform.configure(props)
    return transform


def test_mask_field_schemaless() -> None:
    # Kafka's MaskFieldTest.testSchemaless
    value = copy.deepcopy(MASK_MAP)
    out = mask([name for name in MASK_MAP if name != "magic"]).apply(record(value=value)).value
    assert out == {
        "magic": 42,
        "bool": False,
        "int": 0,
        "double": 0.0,
        "string": "",
        "date": datetime(1970, 1, 1, tzinfo=UTC),
        "bigdec": Decimal(0),
        "list": [],
        "map": {},
    }
    assert type(out["double"]) is float and type(out["int"]) is int and out["bool"] is False
    assert value == MASK_MAP


def test_mask_field_with_schema() -> None:
    # Kafka's MaskFieldTest.testWithSchema
    value = copy.deepcopy(MASK_STRUCT)
    out = mask([f.name for f in MASK_SCHEMA.fields if f.name != "magic"]).apply(
        record(value_schema=MASK_SCHEMA, value=value)
    )
    assert out.value_schema is MASK_SCHEMA
    assert out.value == {
        "magic": 42,
        "bool": False,
        "byte": 0,
        "short": 0,
        "int": 0,
        "long": 0,
        "float": 0.0,
        "double": 0.0,
        "string": "",
        "date": date(1970, 1, 1),
        "time": time(0),
        "timestamp": datetime(1970, 1, 1, tzinfo=UTC),
        "array": [],
        "map": {},
        "withDefault": None,
    }
    assert value == MASK_STRUCT


def test_mask_field_empty_lists_and_maps_are_fresh() -> None:
    # Kafka's testNullListAndMapReplacementsAreMutable
    transform = mask(["array", "map"])
    first = transform.apply(record(value_schema=MASK_SCHEMA, value=dict(MASK_STRUCT))).value
    second = transform.apply(record(value_schema=MASK_SCHEMA, value=dict(MASK_STRUCT))).value
    first["array"].append(0)
    first["map"]["k"] = "v"
    assert second["array"] == [] and second["map"] == {}


@pytest.mark.parametrize(
    ("field", "replacement", "expected"),
    [
        ("byte", "123", 123),
        ("short", "123", 123),
        ("int", "123", 123),
        ("long", "123", 123),
        ("float", "123.0", 123.0),
        ("double", "123.0", 123.0),
        ("string", "123", "123"),
        ("int", "1e3", 1000),
        ("int", "12.9", 12),
        ("int", "-12.9", -12),
        ("double", ".5", 0.5),
        ("string", "***-***-****", "***-***-****"),
    ],
)
def test_mask_field_with_schema_and_replacement(field: str, replacement: str, expected: Any) -> None:
    # Kafka's testWithSchemaAndReplacement; integers drop the fraction, as Java's BigDecimal.longValue does
    out = mask([field], replacement).apply(record(value_schema=MASK_SCHEMA, value=dict(MASK_STRUCT))).value
    assert out[field] == expected
    assert type(out[field]) is type(expected)


@pytest.mark.parametrize(
    ("field", "replacement", "expected"),
    [
        ("int", "123", 123),
        ("double", "123.0", 123.0),
        ("string", "123", "123"),
        ("bigdec", "123.0", Decimal("123.0")),
    ],
)
def test_mask_field_schemaless_with_replacement(field: str, replacement: str, expected: Any) -> None:
    # Kafka's testSchemalessWithReplacement
    out = mask([field], replacement).apply(record(value=dict(MASK_MAP))).value
    assert out[field] == expected
    assert type(out[field]) is type(expected)


def test_mask_field_documented_examples() -> None:
    # Kafka's docs: fields=string_field masks {"integer_field":22, "string_field":"foo"}; the SSN example
    assert mask(["string_field"]).apply(record(value={"integer_field": 22, "string_field": "foo"})).value == {
        "integer_field": 22,
        "string_field": "",
    }
    assert mask(["office", "mobile"], "+0-000-000-0000").apply(
        record(value={"office": "555", "mobile": "556", "name": "n"})
    ).value == {"office": "+0-000-000-0000", "mobile": "+0-000-000-0000", "name": "n"}


@pytest.mark.parametrize(
    ("field", "schema"),
    [
        ("date", None),
        ("bool", None),
        ("list", None),
        ("map", None),
        ("time", MASK_SCHEMA),
        ("timestamp", MASK_SCHEMA),
        ("array", MASK_SCHEMA),
    ],
)
def test_mask_field_unsupported_replacement_type(field: str, schema: Schema | None) -> None:
    # Kafka's testSchemalessUnsupportedReplacementType / testWithSchemaUnsupportedReplacementType
    value = dict(MASK_STRUCT if schema is not None else MASK_MAP)
    with pytest.raises(DataError, match=f"Cannot mask value of type .* with custom replacement.*'{field}'"):
        mask([field], "123").apply(record(value_schema=schema, value=value))


@pytest.mark.parametrize(
    ("field", "schema", "replacement"),
    [
        ("int", None, "foo"),
        ("double", None, "foo"),
        ("bigdec", None, "foo"),
        ("int", None, "NaN"),
        ("byte", MASK_SCHEMA, "foo"),
        ("short", MASK_SCHEMA, "1_000"),
        ("float", MASK_SCHEMA, "Infinity"),
        ("byte", MASK_SCHEMA, "300"),
        ("int", MASK_SCHEMA, "1e999999999"),
    ],
)
def test_mask_field_replacement_type_mismatch(field: str, schema: Schema | None, replacement: str) -> None:
    # Kafka's testReplacementTypeMismatch; a number too big for the field is refused, not wrapped around
    value = dict(MASK_STRUCT if schema is not None else MASK_MAP)
    with pytest.raises(DataError, match=f"Unable to convert .*replacement.* for field '{field}'"):
        mask([field], replacement).apply(record(value_schema=schema, value=value))


def test_mask_field_refuses_types_without_an_empty_value() -> None:
    schema = Schema.struct(None, ("b", BYTES_SCHEMA), ("s", Schema.struct(None, ("x", INT32_SCHEMA))))
    for name in ("b", "s"):
        with pytest.raises(DataError, match=f"Cannot mask value of type: .*'{name}'"):
            mask([name]).apply(record(value_schema=schema, value={"b": b"\x01", "s": {"x": 1}}))
    with pytest.raises(DataError, match="Cannot mask value of type: bytes"):
        mask(["b"]).apply(record(value={"b": b"\x01"}))


def test_mask_field_nulls_and_absent_fields() -> None:
    # A null stays null; schemaless, an absent masked field is added as null (Kafka puts it).
    out = mask(["a", "missing"], "x").apply(record(value={"a": None, "b": 1})).value
    assert out == {"a": None, "b": 1, "missing": None}


def test_mask_field_key_and_null_values() -> None:
    out = mask(["id"], cls=MaskFieldKey).apply(record(key={"id": 7}, value={"id": 7}))
    assert (out.key, out.value) == ({"id": 0}, {"id": 7})
    # As Kafka's, MaskField needs a map or a struct: a tombstone is an error, not passed through.
    with pytest.raises(DataError, match=r"\[mask fields\], found: null"):
        mask(["id"]).apply(record(value=None))


@pytest.mark.parametrize(
    ("props", "key", "reason"),
    [
        ({}, "fields", "Missing required configuration"),
        ({"fields": ""}, "fields", "Empty list"),
        ({"fields": "a", "replacement": ""}, "replacement", "non-empty"),
        ({"fields": "a", "replacement": "   "}, "replacement", "non-empty"),
    ],
)
def test_mask_field_config_errors(props: dict[str, str], key: str, reason: str) -> None:
    # Kafka's testEmptyStringReplacementValue and the `fields` validator
    with pytest.raises(ConfigError) as caught:
        MaskFieldValue().configure(props)
    assert list(caught.value.problems) == [key]
    assert reason in caught.value.problems[key]


# -- SetSchemaMetadata ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("props", "name", "version"),
    [
        ({"schema.name": "foo"}, "foo", None),  # Kafka's schemaNameUpdate
        ({"schema.version": "42"}, None, 42),  # schemaVersionUpdate
        ({"schema.name": "foo", "schema.version": "42"}, "foo", 42),  # schemaNameAndVersionUpdate
    ],
)
def test_set_schema_metadata(props: dict[str, str], name: str | None, version: int | None) -> None:
    transform = SetSchemaMetadataValue()
    transform.configure(props)
    out = transform.apply(record("", value_schema=Schema.struct(None)))
    assert out.value_schema == Schema(SchemaType.STRUCT, name=name, version=version)


def test_set_schema_metadata_with_struct() -> None:
    # Kafka's schemaNameAndVersionUpdateWithStruct
    schema = Schema.struct("my.orig.SchemaDefn", ("f1", STRING_SCHEMA), ("f2", INT32_SCHEMA))
    value = {"f1": "value1", "f2": 1}
    out = configured(SetSchemaMetadataValue, schema_name="foo", schema_version="42").apply(
        record("", value_schema=schema, value=value)
    )
    assert out.value_schema == Schema(SchemaType.STRUCT, name="foo", version=42, fields=schema.fields)
    assert out.value == {"f1": "value1", "f2": 1}
    assert schema.name == "my.orig.SchemaDefn"


def test_set_schema_metadata_keeps_what_is_not_configured() -> None:
    schema = Schema(SchemaType.STRUCT, optional=True, name="orig", version=3, doc="d")
    out = configured(SetSchemaMetadataValue, schema_version="4").apply(record(value_schema=schema))
    assert out.value_schema == Schema(SchemaType.STRUCT, optional=True, name="orig", version=4, doc="d")


def test_set_schema_metadata_on_the_key_and_on_other_schema_types() -> None:
    out = configured(SetSchemaMetadataKey, schema_name="k").apply(
        record(key_schema=STRING_SCHEMA, key="id", value_schema=INT32_SCHEMA, value=1)
    )
    assert out.key_schema == Schema(SchemaType.STRING, name="k")
    assert (out.key, out.value_schema, out.value) == ("id", INT32_SCHEMA, 1)
    array = Schema.array(INT32_SCHEMA)
    out = configured(SetSchemaMetadataValue, schema_name="a").apply(record(value_schema=array, value=[1]))
    assert out.value_schema == Schema(SchemaType.ARRAY, name="a", value_schema=INT32_SCHEMA)


def test_set_schema_metadata_needs_a_schema() -> None:
    # Kafka's valueSchemaRequired and ignoreRecordWithNullValue
    transform = configured(SetSchemaMetadataValue, schema_name="foo")
    with pytest.raises(DataError, match=r"Schema required for \[updating schema metadata\]"):
        transform.apply(record("", value=42))
    original = record("")
    out = transform.apply(original)
    assert (out.key, out.key_schema, out.value, out.value_schema) == (None, None, None, None)


def test_set_schema_metadata_config_errors() -> None:
    with pytest.raises(ConfigError, match="Neither schema name nor version configured"):
        SetSchemaMetadataValue().configure({})
    with pytest.raises(ConfigError) as caught:
        SetSchemaMetadataValue().configure({"schema.version": "v1"})
    assert list(caught.value.problems) == ["schema.version"]


# -- registry ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "cls"),
    [
        ("org.apache.kafka.connect.transforms.InsertField$Key", InsertFieldKey),
        ("InsertField$Value", InsertFieldValue),
        ("org.apache.kafka.connect.transforms.ReplaceField$Key", ReplaceFieldKey),
        ("ReplaceField$Value", ReplaceFieldValue),
        ("MaskField$Key", MaskFieldKey),
        ("org.apache.kafka.connect.transforms.MaskField$Value", MaskFieldValue),
        ("SetSchemaMetadata$Key", SetSchemaMetadataKey),
        ("org.apache.kafka.connect.transforms.SetSchemaMetadata$Value", SetSchemaMetadataValue),
    ],
)
def test_kafka_names_find_the_field_transforms(name: str, cls: type) -> None:
    assert builtin_transformation(name) is cls
