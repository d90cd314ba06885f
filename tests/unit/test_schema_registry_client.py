"""AvroConverter against a Schema Registry over real HTTP (tests/fake_schema_registry.py), through
confluent-kafka's registry client: the bytes are those of the recorded fixture, and what the user sees
for each kind of failure (unreachable, refused credentials, refused TLS, a bad setting)."""

from __future__ import annotations

import base64
import json
import socket
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

import pytest

from connectworker.api.errors import ConfigError, RetriableError
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
from connectworker.converters import AvroConverter, ConversionError, SchemaRegistryUnavailableError
from connectworker.converters.avro_schema import avro_schema_for
from connectworker.converters.logical import DATE, TIME, TIMESTAMP
from connectworker.runtime.observability.secrets import is_secret_key
from tests.fake_schema_registry import RegistryState, fake_registry
from tests.tls_certs import make_certificates
from tests.unit.test_converters_avro import ORDER, ORDER_VALUE

FIXTURE = Path(__file__).with_name("fixtures") / "avro_confluent_wire.json"
POINT = Schema.struct("com.example.Point", ("x", Schema(SchemaType.FLOAT32)), ("y", FLOAT64_SCHEMA))
READING = Schema.struct(
    "com.example.Reading",
    ("at", Schema(SchemaType.INT64, name=TIMESTAMP)),
    ("clock", Schema(SchemaType.INT32, name=TIME)),
    ("day", Schema(SchemaType.INT32, name=DATE, optional=True)),
    ("where", POINT.as_optional()),
    ("raw", BYTES_SCHEMA),
    ("small", Schema(SchemaType.INT16, optional=True)),
    ("tags", Schema.array(OPTIONAL_STRING_SCHEMA)),
    ("scores", Schema.map(STRING_SCHEMA, INT32_SCHEMA)),
    ("ok", BOOLEAN_SCHEMA),
)
READING_VALUE = {
    "at": datetime(2024, 5, 17, 8, 30, 1, 250000, tzinfo=UTC),
    "clock": time(23, 59, 59, 999000),
    "day": date(1969, 12, 31),
    "where": {"x": 1.5, "y": -2.25e-10},
    "raw": bytes(range(0, 256, 17)),
    "small": -300,
    "tags": ["a", None, "ünï"],
    "scores": {"math": 90, "art": -1},
    "ok": False,
}
# The records of the fixture, in its order: (schema, value) by the name the fixture gives.
VALUES: list[tuple[Schema, Any]] = [
    (ORDER, ORDER_VALUE),
    (STRING_SCHEMA, "user-1"),
    (READING, READING_VALUE),
    (READING, READING_VALUE),
    (INT64_SCHEMA, -(2**40)),
    (BOOLEAN_SCHEMA, True),
    (BYTES_SCHEMA, b"\x00\xffabc"),
    (FLOAT64_SCHEMA, 0.1),
    (ORDER, dict(ORDER_VALUE, id=8, note="second")),
]


def converter(configs: dict[str, str], *, is_key: bool = False) -> AvroConverter:
    avro = AvroConverter()
    avro.configure(configs, is_key)
    return avro


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- the bytes --------------------------------------------------------------------------------------
def test_bytes_are_those_the_converter_wrote_with_its_own_http_client() -> None:
    """The fixture holds what the converter wrote (and registered) before it used confluent-kafka's
    client: Confluent's framing, magic byte 0 and the 4-byte schema id, then the Avro body."""
    fixture = json.loads(FIXTURE.read_text())
    with fake_registry() as (url, state):
        for (schema, value), expected in zip(VALUES, fixture["records"], strict=True):
            avro = converter({"schema.registry.url": url, **expected["configs"]}, is_key=expected["is_key"])
            try:
                assert avro.from_connect_data(expected["topic"], schema, value) == bytes.fromhex(expected["bytes"])
            finally:
                avro.close()
        registered = [
            (r.path.split("/")[2], r.body["schema"] if r.body else None) for r in state.requests if r.method == "POST"
        ]
    assert registered == [(r["subject"], r["schema"]) for r in fixture["registrations"]]


def test_round_trip_with_caching_and_basic_auth_from_user_info() -> None:
    state = RegistryState(basic=("connect", "s3cret"))
    with fake_registry(state) as (url, _):
        configs = {
            "schema.registry.url": url,
            "basic.auth.credentials.source": "USER_INFO",
            "basic.auth.user.info": "connect:s3cret",
        }
        writer, reader = converter(configs), converter(configs)
        try:
            first = writer.from_connect_data("orders", ORDER, ORDER_VALUE)
            writer.from_connect_data("orders", ORDER, dict(ORDER_VALUE, id=8))
            assert reader.to_connect_data("orders", first) == (ORDER, ORDER_VALUE)
            reader.to_connect_data("orders", first)
        finally:
            writer.close()
            reader.close()
    assert state.paths() == [("POST", "/subjects/orders-value/versions"), ("GET", "/schemas/ids/1")]
    auth = "Basic " + base64.b64encode(b"connect:s3cret").decode()
    assert {r.headers["authorization"] for r in state.requests} == {auth}
    assert json.loads(state.schemas[1]) == avro_schema_for(ORDER)


def test_credentials_in_the_url_are_used_by_default() -> None:
    state = RegistryState(basic=("u", "p w"))
    with fake_registry(state) as (url, _):
        avro = converter({"schema.registry.url": url.replace("://", "://u:p%20w@")})
        try:
            assert avro.from_connect_data("t", STRING_SCHEMA, "x") is not None
        finally:
            avro.close()


def test_a_context_in_the_url_and_lookup_without_auto_register() -> None:
    state = RegistryState()
    schema = json.dumps(avro_schema_for(ORDER), separators=(",", ":"))
    state.register("orders-value", schema)
    with fake_registry(state) as (url, _):
        avro = converter(
            {
                "schema.registry.url": f"{url}/contexts/.shop",
                "auto.register.schemas": "false",
                "normalize.schemas": "true",
            }
        )
        try:
            data = avro.from_connect_data("orders", ORDER, ORDER_VALUE)
        finally:
            avro.close()
    assert data is not None and data[:5] == b"\x00\x00\x00\x00\x01"
    [lookup] = state.requests
    assert (lookup.method, lookup.context, lookup.path) == ("POST", ".shop", "/subjects/orders-value")
    assert "normalize=True" in lookup.query


def test_use_latest_version_over_http() -> None:
    state = RegistryState()
    evolved = {
        "type": "record",
        "name": "Order",
        "namespace": "com.example",
        "fields": [{"name": "id", "type": "long"}, {"name": "note", "type": "string", "default": "-"}],
    }
    state.register("orders-value", json.dumps(evolved))
    with fake_registry(state) as (url, _):
        avro = converter(
            {
                "schema.registry.url": url,
                "auto.register.schemas": "false",
                "use.latest.version": "true",
                "latest.cache.ttl.sec": "60",
            }
        )
        try:
            data = avro.from_connect_data("orders", Schema.struct("com.example.Order", ("id", INT64_SCHEMA)), {"id": 3})
        finally:
            avro.close()
    assert data == b"\x00\x00\x00\x00\x01" + b"\x06" + b"\x02-"
    assert state.paths() == [("GET", "/subjects/orders-value/versions/latest")]


# -- what the user sees when it fails ---------------------------------------------------------------
def test_an_unreachable_registry_is_a_retriable_error_naming_the_subject() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    avro = converter({"schema.registry.url": url, "max.retries": "0"})
    try:
        with pytest.raises(SchemaRegistryUnavailableError) as info:
            avro.from_connect_data("orders", BOOLEAN_SCHEMA, True)
    finally:
        avro.close()
    assert isinstance(info.value, RetriableError)
    assert f"Schema Registry unreachable at {url} for registering a schema under subject 'orders-value'" in str(
        info.value
    )


def test_credentials_stay_out_of_messages_and_shown_configs() -> None:
    url = f"http://connect:pa55word@127.0.0.1:{free_port()}/contexts/.shop"
    avro = converter({"schema.registry.url": url, "max.retries": "0"})
    try:
        with pytest.raises(SchemaRegistryUnavailableError) as info:
            avro.from_connect_data("orders", BOOLEAN_SCHEMA, True)
    finally:
        avro.close()
    assert "pa55word" not in str(info.value) and url.replace("connect:pa55word@", "") in str(info.value)
    for key in (
        "value.converter.basic.auth.user.info",
        "key.converter.bearer.auth.token",
        "value.converter.bearer.auth.client.secret",
        "value.converter.schema.registry.ssl.key.password",
    ):
        assert is_secret_key(key)  # shown as [hidden] by the REST API and the status page


def test_a_failing_registry_is_retriable_after_the_clients_own_retries() -> None:
    with fake_registry(RegistryState(fail_status=503)) as (url, state):
        avro = converter(
            {"schema.registry.url": url, "max.retries": "1", "retries.wait.ms": "1", "retries.max.wait.ms": "1"}
        )
        try:
            with pytest.raises(SchemaRegistryUnavailableError, match="answered 503"):
                avro.from_connect_data("orders", BOOLEAN_SCHEMA, True)
        finally:
            avro.close()
    assert len(state.requests) == 2  # the request and one retry


@pytest.mark.parametrize(
    ("configs", "blamed"),
    [
        (
            {"basic.auth.credentials.source": "USER_INFO", "basic.auth.user.info": "connect:wrong"},
            "check basic.auth.user.info",
        ),
        ({}, "no credentials are configured: set basic.auth.credentials.source=USER_INFO"),
        ({"bearer.auth.credentials.source": "STATIC_TOKEN", "bearer.auth.token": "stale"}, "check bearer.auth.token"),
    ],
)
def test_refused_credentials_fail_at_once_naming_the_key(configs: dict[str, str], blamed: str) -> None:
    with fake_registry(RegistryState(basic=("connect", "s3cret"))) as (url, _):
        avro = converter({"schema.registry.url": url, **configs})
        try:
            with pytest.raises(ConversionError) as info:
                avro.from_connect_data("orders", BOOLEAN_SCHEMA, True)
        finally:
            avro.close()
    assert not isinstance(info.value, RetriableError)
    assert "answered 401 to registering a schema under subject 'orders-value': Unauthorized" in str(info.value)
    assert blamed in str(info.value)


def test_a_static_bearer_token() -> None:
    with fake_registry(RegistryState(bearer="tok-1")) as (url, state):
        avro = converter(
            {"schema.registry.url": url, "bearer.auth.credentials.source": "STATIC_TOKEN", "bearer.auth.token": "tok-1"}
        )
        try:
            assert avro.from_connect_data("t", STRING_SCHEMA, "x") is not None
        finally:
            avro.close()
    assert state.requests[0].headers["authorization"] == "Bearer tok-1"


def test_oauth_client_credentials_fetch_a_token_and_a_refused_client_names_the_keys() -> None:
    state = RegistryState(bearer="issued-token")
    with fake_registry(state) as (url, _):
        oauth = {
            "schema.registry.url": url,
            "bearer.auth.credentials.source": "OAUTHBEARER",
            "bearer.auth.issuer.endpoint.url": f"{url}/oauth/token",
            "bearer.auth.client.id": "connect",
            "bearer.auth.client.secret": "client-secret",
            "bearer.auth.scope": "registry",
            "bearer.auth.logical.cluster": "lsrc-1",
            "max.retries": "0",
        }
        avro = converter(oauth)
        try:
            assert avro.from_connect_data("t", STRING_SCHEMA, "x") is not None
        finally:
            avro.close()
        registered = [r for r in state.requests if r.path != "/oauth/token"]
        assert registered[0].headers["authorization"] == "Bearer issued-token"
        assert registered[0].headers["target-sr-cluster"] == "lsrc-1"
        refused = converter({**oauth, "bearer.auth.client.secret": "wrong"})
        try:
            with pytest.raises(ConversionError) as info:
                refused.from_connect_data("t2", STRING_SCHEMA, "x")
        finally:
            refused.close()
    assert (
        "token endpoint (bearer.auth.issuer.endpoint.url) refused bearer.auth.client.id/bearer.auth.client.secret"
    ) in str(info.value)


@pytest.mark.parametrize(
    ("configs", "key", "says"),
    [
        ({}, "schema.registry.url", "is required"),
        ({"schema.registry.url": "registry:8081"}, "schema.registry.url", "is not an http:// or https:// URL"),
        (
            {"basic.auth.credentials.source": "SASL_INHERIT"},
            "basic.auth.credentials.source",
            "SASL_INHERIT is not supported",
        ),
        ({"bearer.auth.credentials.source": "STATIC_TOKEN"}, "bearer.auth.token", "is required with"),
        (
            {"bearer.auth.credentials.source": "OAUTHBEARER", "bearer.auth.client.id": "c"},
            "bearer.auth.issuer.endpoint.url",
            "is required with bearer.auth.credentials.source=OAUTHBEARER",
        ),
        (
            {"schema.registry.ssl.truststore.location": "/etc/kafka/truststore.jks"},
            "schema.registry.ssl.truststore.location",
            "is a JKS store",
        ),
        (
            {"schema.registry.ssl.keystore.location": "/x/ks.p12", "schema.registry.ssl.keystore.type": "PKCS12"},
            "schema.registry.ssl.keystore.location",
            "openssl pkcs12 -in /x/ks.p12 -out keystore.pem",
        ),
        (
            {"schema.registry.ssl.truststore.location": "/no/such/ca.pem"},
            "schema.registry.ssl.truststore.location",
            "'/no/such/ca.pem' does not exist",
        ),
        ({"key.subject.name.strategy": "Nope"}, "key.subject.name.strategy", "is not a subject name strategy"),
    ],
)
def test_settings_that_cannot_be_used_name_their_key(configs: dict[str, str], key: str, says: str) -> None:
    base = {} if "schema.registry.url" in configs or not configs else {"schema.registry.url": "http://127.0.0.1:1"}
    with pytest.raises(ConfigError) as info:
        AvroConverter().configure({**base, **configs}, is_key=True)
    assert key in info.value.problems and says in info.value.problems[key]


def test_mutual_tls_with_pem_stores_and_what_a_missing_client_certificate_looks_like(tmp_path: Path) -> None:
    certs = make_certificates(tmp_path)
    with fake_registry(tls=certs.server_context(require_client=True)) as (url, state):
        trusted = {
            "schema.registry.url": url,
            "schema.registry.ssl.truststore.location": str(certs.ca),
            "schema.registry.ssl.truststore.type": "PEM",
            "max.retries": "0",
        }
        mutual = converter(
            {
                **trusted,
                "schema.registry.ssl.keystore.location": str(certs.client_encrypted),
                "schema.registry.ssl.keystore.type": "PEM",
                "schema.registry.ssl.key.password": certs.password,
            }
        )
        try:
            assert mutual.from_connect_data("t", STRING_SCHEMA, "x") is not None
        finally:
            mutual.close()
        assert state.paths() == [("POST", "/subjects/t-value/versions")]
        anonymous = converter(trusted)
        try:
            with pytest.raises(ConversionError) as info:
                anonymous.from_connect_data("t", STRING_SCHEMA, "x")
        finally:
            anonymous.close()
    assert not isinstance(info.value, RetriableError)
    assert f"TLS with the Schema Registry at {url} failed" in str(info.value)
    assert "Check schema.registry.ssl.truststore.location" in str(info.value)


def test_an_untrusted_registry_certificate_names_the_truststore(tmp_path: Path) -> None:
    certs = make_certificates(tmp_path)
    with fake_registry(tls=certs.server_context(require_client=False)) as (url, _):
        avro = converter({"schema.registry.url": url, "max.retries": "0"})
        try:
            with pytest.raises(
                ConversionError,
                match=r"CERTIFICATE_VERIFY_FAILED.*Check "
                r"schema.registry.ssl.truststore.location \(none is set\)",
            ):
                avro.from_connect_data("t", STRING_SCHEMA, "x")
        finally:
            avro.close()
