"""AvroConverter: Confluent wire format, Connect->Avro schema mapping, subject name strategies and
`use.latest.version`, over an in-memory registry (the real-HTTP registry client: test_schema_registry_client.py)."""

from __future__ import annotations

import io
import json
from datetime import UTC, date, datetime
from typing import Any

import fastavro
import pytest

from connectworker.api.errors import ConfigError
from connectworker.api.schema import (
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaType,
)
from connectworker.converters import (
    AvroConverter,
    ConversionError,
    SchemaRegistryClient,
    SchemaRegistryError,
)
from connectworker.converters.avro_schema import avro_schema_for
from connectworker.converters.logical import DATE, TIMESTAMP


class InMemoryRegistry:
    """A SchemaRegistryClient that keeps everything in dicts and counts calls."""

    def __init__(self) -> None:
        self.schemas: dict[int, str] = {}
        self.subjects: dict[tuple[str, str], int] = {}
        self.calls: list[tuple[str, Any]] = []

    def register(self, subject: str, schema: str, *, normalize: bool = False) -> int:
        self.calls.append(("register", subject))
        known = [schema_id for schema_id, text in self.schemas.items() if text == schema]
        schema_id = known[0] if known else len(self.schemas) + 1
        self.schemas[schema_id] = schema
        self.subjects[(subject, schema)] = schema_id
        return schema_id

    def lookup(self, subject: str, schema: str, *, normalize: bool = False) -> int:
        self.calls.append(("lookup", subject))
        if (subject, schema) not in self.subjects:
            raise SchemaRegistryError(f"Schema not found under {subject}", status=404, error_code=40403)
        return self.subjects[(subject, schema)]

    def latest(self, subject: str) -> tuple[int, str]:
        self.calls.append(("latest", subject))
        ids = [schema_id for (name, _), schema_id in self.subjects.items() if name == subject]
        if not ids:
            raise SchemaRegistryError(f"Subject '{subject}' not found.", status=404, error_code=40401)
        return ids[-1], self.schemas[ids[-1]]

    def get_schema(self, schema_id: int) -> str:
        self.calls.append(("get_schema", schema_id))
        if schema_id not in self.schemas:
            raise SchemaRegistryError(f"Schema {schema_id} not found", status=404, error_code=40403)
        return self.schemas[schema_id]


def avro_converter(registry: InMemoryRegistry, *, is_key: bool = False, **configs: str) -> AvroConverter:
    converter = AvroConverter(registry)
    converter.configure(configs, is_key=is_key)
    return converter


ORDER = Schema(
    SchemaType.STRUCT,
    name="com.example.Order",
    version=3,
    doc="An order",
    fields=Schema.struct(
        None,
        ("id", INT64_SCHEMA),
        ("priority", Schema(SchemaType.INT8)),
        ("note", OPTIONAL_STRING_SCHEMA),
        ("lines", Schema.array(Schema.struct(None, ("sku", STRING_SCHEMA), ("qty", INT32_SCHEMA)))),
        ("labels", Schema.map(STRING_SCHEMA, STRING_SCHEMA)),
        ("counts", Schema.map(INT32_SCHEMA, INT64_SCHEMA, optional=True)),
        ("placed", Schema(SchemaType.INT32, name=DATE)),
        ("paid", Schema(SchemaType.BOOLEAN, optional=True)),
    ).fields,
)
ORDER_VALUE = {
    "id": 7,
    "priority": -2,
    "note": None,
    "lines": [{"sku": "A-1", "qty": 2}],
    "labels": {"channel": "web"},
    "counts": {1: 10, 2: 20},
    "placed": date(2024, 5, 17),
    "paid": True,
}


def test_schema_mapping_follows_confluent_avrodata() -> None:
    assert avro_schema_for(ORDER) == {
        "type": "record",
        "name": "Order",
        "namespace": "com.example",
        "fields": [
            {"name": "id", "type": "long"},
            {"name": "priority", "type": {"type": "int", "connect.type": "int8"}},
            {"name": "note", "type": ["null", "string"], "default": None},
            {
                "name": "lines",
                "type": {
                    "type": "array",
                    "items": {
                        "type": "record",
                        "name": "ConnectDefault",
                        "namespace": "io.confluent.connect.avro",
                        "fields": [{"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}],
                    },
                },
            },
            {"name": "labels", "type": {"type": "map", "values": "string"}},
            {
                "name": "counts",
                "type": [
                    "null",
                    {
                        "type": "array",
                        "items": {
                            "type": "record",
                            "name": "MapEntry",
                            "namespace": "io.confluent.connect.avro",
                            "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": "long"}],
                        },
                    },
                ],
                "default": None,
            },
            {"name": "placed", "type": {"type": "int", "connect.name": DATE, "logicalType": "date"}},
            {"name": "paid", "type": ["null", "boolean"], "default": None},
        ],
        "connect.doc": "An order",
        "connect.version": 3,
        "connect.name": "com.example.Order",
    }


def test_schema_mapping_without_connect_meta_data_and_for_reused_structs() -> None:
    point = Schema.struct(None, ("x", INT32_SCHEMA))
    schema = Schema.struct(
        None, ("a", point), ("b", point.as_optional()), ("c", Schema.struct(None, ("y", INT32_SCHEMA)))
    )
    assert avro_schema_for(schema, connect_meta_data=False) == {
        "type": "record",
        "name": "ConnectDefault",
        "namespace": "io.confluent.connect.avro",
        "fields": [
            {
                "name": "a",
                "type": {
                    "type": "record",
                    "name": "ConnectDefault2",
                    "namespace": "io.confluent.connect.avro",
                    "fields": [{"name": "x", "type": "int"}],
                },
            },
            {"name": "b", "type": ["null", "io.confluent.connect.avro.ConnectDefault2"], "default": None},
            {
                "name": "c",
                "type": {
                    "type": "record",
                    "name": "ConnectDefault3",
                    "namespace": "io.confluent.connect.avro",
                    "fields": [{"name": "y", "type": "int"}],
                },
            },
        ],
    }
    assert avro_schema_for(Schema(SchemaType.INT16, optional=True)) == [
        "null",
        {"type": "int", "connect.type": "int16"},
    ]


def test_wire_format_is_magic_byte_schema_id_and_avro_body() -> None:
    registry = InMemoryRegistry()
    registry.register("other-value", '"string"')  # so the order schema gets id 2
    data = avro_converter(registry).from_connect_data("orders", ORDER, ORDER_VALUE)
    assert data is not None
    assert data[0] == 0
    assert int.from_bytes(data[1:5], "big") == 2
    writer = fastavro.parse_schema(json.loads(registry.schemas[2]))
    body = fastavro.schemaless_reader(io.BytesIO(data[5:]), writer, None)
    assert body["id"] == 7
    assert body["counts"] == [{"key": 1, "value": 10}, {"key": 2, "value": 20}]
    assert body["placed"] == date(2024, 5, 17)
    assert ("register", "orders-value") in registry.calls


def test_round_trip_restores_schema_and_value() -> None:
    registry = InMemoryRegistry()
    writer = avro_converter(registry)
    data = writer.from_connect_data("orders", ORDER, ORDER_VALUE)
    reader = avro_converter(registry)
    assert reader.to_connect_data("orders", data) == (ORDER, ORDER_VALUE)


def test_primitive_and_timestamp_round_trips() -> None:
    registry = InMemoryRegistry()
    converter = avro_converter(registry, is_key=True)
    data = converter.from_connect_data("k", STRING_SCHEMA, "user-1")
    assert data is not None and data[5:] == b"\x0cuser-1"
    assert converter.to_connect_data("k", data) == (STRING_SCHEMA, "user-1")
    stamp = Schema(SchemaType.INT64, name=TIMESTAMP)
    naive = datetime(2024, 1, 2, 3, 4, 5, 6000)
    schema, value = converter.to_connect_data("k", converter.from_connect_data("k", stamp, naive))
    assert schema == stamp
    assert value == naive.replace(tzinfo=UTC)
    assert {subject for call, subject in registry.calls if call == "register"} == {"k-key"}


def test_schema_ids_are_registered_once_per_topic() -> None:
    registry = InMemoryRegistry()
    converter = avro_converter(registry)
    for _ in range(3):
        converter.from_connect_data("orders", ORDER, ORDER_VALUE)
    converter.from_connect_data("orders-eu", ORDER, ORDER_VALUE)
    assert registry.calls == [("register", "orders-value"), ("register", "orders-eu-value")]


def test_without_auto_register_the_schema_must_exist() -> None:
    registry = InMemoryRegistry()
    converter = avro_converter(registry, **{"auto.register.schemas": "false"})
    with pytest.raises(ConversionError, match="subject 'orders-value'") as info:
        converter.from_connect_data("orders", ORDER, ORDER_VALUE)
    assert "auto.register.schemas=false" in str(info.value)
    registry.register("orders-value", json.dumps(avro_schema_for(ORDER), separators=(",", ":")))
    assert converter.from_connect_data("orders", ORDER, ORDER_VALUE) is not None
    assert registry.calls[-1] == ("lookup", "orders-value")


def test_invalid_values_name_field_and_topic() -> None:
    converter = avro_converter(InMemoryRegistry())
    with pytest.raises(ConversionError) as info:
        converter.from_connect_data("orders", ORDER, dict(ORDER_VALUE, lines=[{"sku": None, "qty": 1}]))
    assert "topic 'orders'" in str(info.value)
    assert "field 'lines[0].sku' is required" in str(info.value)
    assert info.value.field == "lines[0].sku"
    with pytest.raises(ConversionError, match="field 'priority' value 200 is out of range for int8"):
        converter.from_connect_data("orders", ORDER, dict(ORDER_VALUE, priority=200))
    with pytest.raises(ConversionError, match="needs a schema"):
        converter.from_connect_data("orders", None, {"id": 1})


def test_nulls_pass_through() -> None:
    converter = avro_converter(InMemoryRegistry())
    assert converter.from_connect_data("t", ORDER, None) is None
    assert converter.to_connect_data("t", None) == (None, None)


def test_reading_rejects_foreign_framing_and_unknown_ids() -> None:
    converter = avro_converter(InMemoryRegistry())
    with pytest.raises(ConversionError, match="Unknown magic byte"):
        converter.to_connect_data("t", b'{"json": true}')
    with pytest.raises(ConversionError, match="schema id 99 could not be fetched"):
        converter.to_connect_data("t", b"\x00\x00\x00\x00\x63\x02")


def test_reading_schemas_written_by_other_producers() -> None:
    registry = InMemoryRegistry()
    foreign = {
        "type": "record",
        "name": "Payment",
        "namespace": "shop",
        "fields": [
            {"name": "state", "type": {"type": "enum", "name": "State", "symbols": ["NEW", "DONE"]}},
            {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 2}},
            {"name": "amount", "type": {"type": "bytes", "logicalType": "decimal", "precision": 5, "scale": 2}},
            {"name": "ref", "type": ["null", {"type": "string", "logicalType": "uuid"}], "default": None},
            {"name": "again", "type": "State"},
        ],
    }
    schema_id = registry.register("payments-value", json.dumps(foreign))
    body = io.BytesIO()
    fastavro.schemaless_writer(
        body,
        fastavro.parse_schema(foreign),
        {"state": "DONE", "hash": b"\x01\x02", "amount": b"\x30\x39", "ref": "abc", "again": "NEW"},
    )
    data = b"\x00" + schema_id.to_bytes(4, "big") + body.getvalue()
    schema, value = avro_converter(registry).to_connect_data("payments", data)
    assert schema is not None and schema.name == "shop.Payment"
    assert [(f.name, f.schema.type, f.schema.optional) for f in schema.fields] == [
        ("state", SchemaType.STRING, False),
        ("hash", SchemaType.BYTES, False),
        ("amount", SchemaType.BYTES, False),
        ("ref", SchemaType.STRING, True),
        ("again", SchemaType.STRING, False),
    ]
    assert value == {"state": "DONE", "hash": b"\x01\x02", "amount": b"09", "ref": "abc", "again": "NEW"}


def test_unions_other_than_optional_are_reported() -> None:
    registry = InMemoryRegistry()
    schema_id = registry.register("t-value", json.dumps(["int", "string"]))
    with pytest.raises(ConversionError, match=r"schema id 1 has no Connect equivalent: Avro union"):
        avro_converter(registry).to_connect_data("t", b"\x00" + schema_id.to_bytes(4, "big") + b"\x00\x02")


def test_configuration_errors() -> None:
    with pytest.raises(ConfigError, match=r"schema\.registry\.url"):
        AvroConverter().configure({}, is_key=False)
    with pytest.raises(ConfigError, match=r"value\.subject\.name\.strategy") as info:
        AvroConverter(InMemoryRegistry()).configure(
            {"value.subject.name.strategy": "io.confluent.kafka.serializers.subject.NoSuchStrategy"},
            is_key=False,
        )
    assert "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy" in str(info.value)  # says what is allowed
    with pytest.raises(ConfigError, match=r"basic\.auth\.user\.info"):
        AvroConverter().configure(
            {"schema.registry.url": "http://127.0.0.1:1", "basic.auth.credentials.source": "USER_INFO"}, is_key=False
        )


def test_in_memory_registry_satisfies_the_protocol() -> None:
    assert isinstance(InMemoryRegistry(), SchemaRegistryClient)


# -- subject name strategies and use.latest.version ---------------------------------------------------
@pytest.mark.parametrize(
    ("strategy", "subject"),
    [
        ("io.confluent.kafka.serializers.subject.TopicNameStrategy", "orders-value"),
        ("io.confluent.kafka.serializers.subject.RecordNameStrategy", "com.example.Order"),
        ("io.confluent.kafka.serializers.subject.TopicRecordNameStrategy", "orders-com.example.Order"),
        ("TopicRecordNameStrategy", "orders-com.example.Order"),
    ],
)
def test_subject_name_strategies(strategy: str, subject: str) -> None:
    registry = InMemoryRegistry()
    converter = avro_converter(registry, **{"value.subject.name.strategy": strategy})
    converter.from_connect_data("orders", ORDER, ORDER_VALUE)
    assert registry.calls == [("register", subject)]


def test_record_strategies_need_a_record_schema() -> None:
    converter = avro_converter(InMemoryRegistry(), is_key=True, **{"key.subject.name.strategy": "RecordNameStrategy"})
    with pytest.raises(
        ConversionError,
        match=r"RecordNameStrategy needs a record schema \(a struct\), but the key "
        r"schema is not one; use TopicNameStrategy for keys of other types",
    ):
        converter.from_connect_data("orders", STRING_SCHEMA, "k")


EVOLVED = {
    "type": "record",
    "name": "Order",
    "namespace": "com.example",
    "fields": [{"name": "id", "type": "long"}, {"name": "channel", "type": "string", "default": "web"}],
}
SMALL_ORDER = Schema.struct("com.example.Order", ("id", INT64_SCHEMA))


def test_use_latest_version_writes_with_the_subjects_latest_schema_and_id() -> None:
    registry = InMemoryRegistry()
    registry.register("orders-value", json.dumps(avro_schema_for(SMALL_ORDER)))
    latest_id = registry.register("orders-value", json.dumps(EVOLVED))
    converter = avro_converter(registry, **{"auto.register.schemas": "false", "use.latest.version": "true"})
    data = converter.from_connect_data("orders", SMALL_ORDER, {"id": 5})
    converter.from_connect_data("orders", SMALL_ORDER, {"id": 6})
    assert data is not None and int.from_bytes(data[1:5], "big") == latest_id
    body = fastavro.schemaless_reader(io.BytesIO(data[5:]), fastavro.parse_schema(EVOLVED), None)
    assert body == {"id": 5, "channel": "web"}  # written with the latest schema: its default filled in
    assert [c for c in registry.calls if c[0] != "register"] == [("latest", "orders-value")]  # asked once


def test_use_latest_version_is_ignored_while_auto_register_is_on_as_in_confluents_serializer() -> None:
    registry = InMemoryRegistry()
    avro_converter(registry, **{"use.latest.version": "true"}).from_connect_data("orders", SMALL_ORDER, {"id": 1})
    assert registry.calls == [("register", "orders-value")]


def test_use_latest_version_without_any_version_names_the_subject_and_the_key() -> None:
    converter = avro_converter(InMemoryRegistry(), **{"auto.register.schemas": "false", "use.latest.version": "true"})
    with pytest.raises(
        ConversionError,
        match=r"the latest schema of subject 'orders-value' could not be read "
        r"\(use.latest.version=true\): Subject 'orders-value' not found",
    ):
        converter.from_connect_data("orders", SMALL_ORDER, {"id": 1})


def test_schema_parameters_travel_as_connect_parameters_and_come_back() -> None:
    registry = InMemoryRegistry()
    converter = avro_converter(registry)
    decimal = Schema(
        SchemaType.BYTES,
        name="org.apache.kafka.connect.data.Decimal",
        version=1,
        parameters=(("scale", "2"), ("connect.decimal.precision", "10")),
    )
    data = converter.from_connect_data("prices", decimal, b"\x00\xfa")
    written = json.loads(registry.schemas[max(registry.schemas)])
    assert written["connect.parameters"] == {"scale": "2", "connect.decimal.precision": "10"}
    assert converter.to_connect_data("prices", data) == (decimal, b"\x00\xfa")
