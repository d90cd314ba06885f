"""AvroConverter: Confluent wire format, Connect->Avro schema mapping, and the HTTP Schema Registry client."""

from __future__ import annotations

import base64
import io
import json
import re
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import fastavro
import pytest

from connectworker.api.errors import ConfigError, RetriableError
from connectworker.api.schema import (
    BOOLEAN_SCHEMA,
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
    HttpSchemaRegistryClient,
    SchemaRegistryClient,
    SchemaRegistryError,
    SchemaRegistryUnavailableError,
)
from connectworker.converters.avro_schema import avro_schema_for
from connectworker.converters.logical import DATE, TIMESTAMP


class InMemoryRegistry:
    """A SchemaRegistryClient that keeps everything in dicts and counts calls."""

    def __init__(self) -> None:
        self.schemas: dict[int, str] = {}
        self.subjects: dict[tuple[str, str], int] = {}
        self.calls: list[tuple[str, Any]] = []

    def register(self, subject: str, schema: str) -> int:
        self.calls.append(("register", subject))
        known = [schema_id for schema_id, text in self.schemas.items() if text == schema]
        schema_id = known[0] if known else len(self.schemas) + 1
        self.schemas[schema_id] = schema
        self.subjects[(subject, schema)] = schema_id
        return schema_id

    def lookup(self, subject: str, schema: str) -> int:
        self.calls.append(("lookup", subject))
        if (subject, schema) not in self.subjects:
            raise SchemaRegistryError(f"Schema not found under {subject}", status=404, error_code=40403)
        return self.subjects[(subject, schema)]

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
            {"name": "lines", "type": {"type": "array", "items": {
                "type": "record", "name": "ConnectDefault", "namespace": "io.confluent.connect.avro",
                "fields": [{"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}},
            {"name": "labels", "type": {"type": "map", "values": "string"}},
            {"name": "counts", "type": ["null", {"type": "array", "items": {
                "type": "record", "name": "MapEntry", "namespace": "io.confluent.connect.avro",
                "fields": [{"name": "key", "type": "int"}, {"name": "value", "type": "long"}]}}],
             "default": None},
            {"name": "placed", "type": {"type": "int", "connect.name": DATE, "logicalType": "date"}},
            {"name": "paid", "type": ["null", "boolean"], "default": None},
        ],
        "connect.doc": "An order",
        "connect.version": 3,
        "connect.name": "com.example.Order",
    }


def test_schema_mapping_without_connect_meta_data_and_for_reused_structs() -> None:
    point = Schema.struct(None, ("x", INT32_SCHEMA))
    schema = Schema.struct(None, ("a", point), ("b", point.as_optional()),
                           ("c", Schema.struct(None, ("y", INT32_SCHEMA))))
    assert avro_schema_for(schema, connect_meta_data=False) == {
        "type": "record", "name": "ConnectDefault", "namespace": "io.confluent.connect.avro",
        "fields": [
            {"name": "a", "type": {"type": "record", "name": "ConnectDefault2",
                                   "namespace": "io.confluent.connect.avro",
                                   "fields": [{"name": "x", "type": "int"}]}},
            {"name": "b", "type": ["null", "io.confluent.connect.avro.ConnectDefault2"], "default": None},
            {"name": "c", "type": {"type": "record", "name": "ConnectDefault3",
                                   "namespace": "io.confluent.connect.avro",
                                   "fields": [{"name": "y", "type": "int"}]}},
        ],
    }
    assert avro_schema_for(Schema(SchemaType.INT16, optional=True)) == [
        "null", {"type": "int", "connect.type": "int16"}
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
        "type": "record", "name": "Payment", "namespace": "shop",
        "fields": [
            {"name": "state", "type": {"type": "enum", "name": "State", "symbols": ["NEW", "DONE"]}},
            {"name": "hash", "type": {"type": "fixed", "name": "Hash", "size": 2}},
            {"name": "amount",
             "type": {"type": "bytes", "logicalType": "decimal", "precision": 5, "scale": 2}},
            {"name": "ref", "type": ["null", {"type": "string", "logicalType": "uuid"}], "default": None},
            {"name": "again", "type": "State"},
        ],
    }
    schema_id = registry.register("payments-value", json.dumps(foreign))
    body = io.BytesIO()
    fastavro.schemaless_writer(body, fastavro.parse_schema(foreign), {
        "state": "DONE", "hash": b"\x01\x02", "amount": b"\x30\x39", "ref": "abc", "again": "NEW"})
    data = b"\x00" + schema_id.to_bytes(4, "big") + body.getvalue()
    schema, value = avro_converter(registry).to_connect_data("payments", data)
    assert schema is not None and schema.name == "shop.Payment"
    assert [(f.name, f.schema.type, f.schema.optional) for f in schema.fields] == [
        ("state", SchemaType.STRING, False), ("hash", SchemaType.BYTES, False),
        ("amount", SchemaType.BYTES, False), ("ref", SchemaType.STRING, True),
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
    with pytest.raises(ConfigError, match=r"value\.subject\.name\.strategy"):
        AvroConverter(InMemoryRegistry()).configure(
            {"value.subject.name.strategy": "io.confluent.kafka.serializers.subject.RecordNameStrategy"},
            is_key=False,
        )
    with pytest.raises(ConfigError, match=r"basic\.auth\.user\.info"):
        AvroConverter().configure({"schema.registry.url": "http://127.0.0.1:1",
                                   "basic.auth.credentials.source": "USER_INFO"}, is_key=False)


def test_in_memory_registry_satisfies_the_protocol() -> None:
    assert isinstance(InMemoryRegistry(), SchemaRegistryClient)


# -- the HTTP client against a real (tiny) registry -----------------------------------------------------


class _RegistryState:
    def __init__(self) -> None:
        self.schemas: dict[int, str] = {}
        self.subjects: dict[tuple[str, str], int] = {}
        self.requests: list[tuple[str, str, str | None, str | None]] = []
        self.lock = threading.Lock()


class _RegistryHandler(BaseHTTPRequestHandler):
    state: _RegistryState

    def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
        return

    def _reply(self, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/vnd.schemaregistry.v1+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _record(self) -> None:
        with self.state.lock:
            self.state.requests.append((self.command, self.path, self.headers.get("Content-Type"),
                                        self.headers.get("Authorization")))

    def do_GET(self) -> None:
        self._record()
        match = re.fullmatch(r"/schemas/ids/(\d+)", self.path)
        schema = self.state.schemas.get(int(match.group(1))) if match else None
        if schema is None:
            self._reply(404, {"error_code": 40403, "message": "Schema not found"})
        else:
            self._reply(200, {"schema": schema})

    def do_POST(self) -> None:
        self._record()
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        register = re.fullmatch(r"/subjects/([^/]+)/versions", self.path)
        lookup = re.fullmatch(r"/subjects/([^/]+)", self.path)
        with self.state.lock:
            if register:
                key = (register.group(1), body["schema"])
                if key not in self.state.subjects:
                    schema_id = len(self.state.schemas) + 1
                    self.state.schemas[schema_id] = body["schema"]
                    self.state.subjects[key] = schema_id
                self._reply(200, {"id": self.state.subjects[key]})
            elif lookup and (lookup.group(1), body["schema"]) in self.state.subjects:
                schema_id = self.state.subjects[(lookup.group(1), body["schema"])]
                self._reply(200, {"subject": lookup.group(1), "version": 1, "id": schema_id,
                                  "schema": body["schema"]})
            else:
                self._reply(404, {"error_code": 40403, "message": "Schema not found"})


@pytest.fixture
def registry_server() -> Iterator[tuple[str, _RegistryState]]:
    state = _RegistryState()
    handler = type("Handler", (_RegistryHandler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_http_registry_round_trip(registry_server: tuple[str, _RegistryState]) -> None:
    url, state = registry_server
    configs = {"schema.registry.url": url, "basic.auth.credentials.source": "USER_INFO",
               "basic.auth.user.info": "connect:s3cret"}
    writer = AvroConverter()
    writer.configure(configs, is_key=False)
    reader = AvroConverter()
    reader.configure(configs, is_key=False)
    try:
        first = writer.from_connect_data("orders", ORDER, ORDER_VALUE)
        writer.from_connect_data("orders", ORDER, dict(ORDER_VALUE, id=8))
        assert first is not None and int.from_bytes(first[1:5], "big") == 1
        assert reader.to_connect_data("orders", first) == (ORDER, ORDER_VALUE)
        reader.to_connect_data("orders", first)
    finally:
        writer.close()
        reader.close()
    auth = "Basic " + base64.b64encode(b"connect:s3cret").decode()
    assert state.requests == [
        ("POST", "/subjects/orders-value/versions", "application/vnd.schemaregistry.v1+json", auth),
        ("GET", "/schemas/ids/1", "application/vnd.schemaregistry.v1+json", auth),
    ]
    assert json.loads(state.schemas[1]) == avro_schema_for(ORDER)


def test_http_registry_lookup_and_errors(registry_server: tuple[str, _RegistryState]) -> None:
    url, _ = registry_server
    client = HttpSchemaRegistryClient(url)
    try:
        with pytest.raises(SchemaRegistryError) as info:
            client.lookup("orders-value", '"string"')
        assert info.value.status == 404 and info.value.error_code == 40403
        assert "Schema not found" in str(info.value)
        schema_id = client.register("orders-value", '"string"')
        fresh = HttpSchemaRegistryClient([url])
        try:
            assert fresh.lookup("orders-value", '"string"') == schema_id
            assert fresh.get_schema(schema_id) == '"string"'
            with pytest.raises(SchemaRegistryError, match="404"):
                fresh.get_schema(42)
        finally:
            fresh.close()
    finally:
        client.close()


def test_unreachable_registry_is_retriable() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    converter = AvroConverter()
    converter.configure({"schema.registry.url": f"http://127.0.0.1:{port}"}, is_key=False)
    try:
        with pytest.raises(SchemaRegistryUnavailableError) as info:
            converter.from_connect_data("orders", BOOLEAN_SCHEMA, True)
        assert isinstance(info.value, RetriableError)
        assert "orders-value" in str(info.value)
    finally:
        converter.close()
