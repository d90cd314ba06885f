"""Record headers on the test broker: typed headers a task returns, and headers the transforms add
(HeaderFrom, InsertHeader under a HasHeaderKey predicate) or drop (DropHeaders), arrive as the bytes
Kafka's default `SimpleHeaderConverter` writes, or, with `header.converter=JsonConverter` on the
connector, as Kafka's JSON envelope."""

from __future__ import annotations

from pathlib import Path

from confluent_kafka.admin import AdminClient

from tests.broker import Broker
from tests.integration.harness import committed_offset, running_worker, wait_until, worker_config
from tests.integration.header_source import PARTITION
from tests.kafka_helpers import consume, delete_topics

SOURCE = "tests.integration.header_source.HeaderSource"
RECORDS = 4


def connector(name: str, topic: str, **extra: str) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": SOURCE,
        "topic": topic,
        "records": str(RECORDS),
        "transforms": "from,tag,drop",
        "transforms.from.type": "org.apache.kafka.connect.transforms.HeaderFrom$Value",
        "transforms.from.fields": "id,amount",
        "transforms.from.headers": "id,amount",
        "transforms.from.operation": "copy",
        "transforms.tag.type": "org.apache.kafka.connect.transforms.InsertHeader",
        "transforms.tag.header": "source",
        "transforms.tag.value.literal": "42",
        "transforms.tag.predicate": "flagged",
        "transforms.drop.type": "org.apache.kafka.connect.transforms.DropHeaders",
        "transforms.drop.headers": "drop-me",
        "predicates": "flagged",
        "predicates.flagged.type": "org.apache.kafka.connect.transforms.predicates.HasHeaderKey",
        "predicates.flagged.name": "flag",
        **extra,
    }


def headers_by_key(bootstrap: str, topic: str) -> dict[str, list[tuple[str, bytes | None]]]:
    return {(m.key() or b"").decode(): list(m.headers() or []) for m in consume(bootstrap, [topic], RECORDS)}


def test_typed_and_transformed_headers_arrive_as_kafkas_header_converters_write_them(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    simple, json = f"headers-simple-{unique}", f"headers-json-{unique}"
    config = worker_config(
        broker.bootstrap_servers,
        tmp_path,
        **{"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false"},
    )
    try:
        with running_worker(
            config,
            connector(simple, simple),
            connector(json, json, **{"header.converter": "org.apache.kafka.connect.json.JsonConverter"}),
        ) as runtime:
            assert runtime.worker is not None
            for name in (simple, json):
                wait_until(
                    lambda n=name: committed_offset(runtime.worker, n, PARTITION) == {"next": RECORDS},
                    30,
                    f"the offsets of {name} committed",
                )
        text = headers_by_key(broker.bootstrap_servers, simple)
        enveloped = headers_by_key(broker.bootstrap_servers, json)
    finally:
        delete_topics(admin, [simple, json])
    assert text["1"] == [
        ("text", b"order 1"),
        ("count", b"1"),
        ("ratio", b"0.1"),
        ("day", b"2024-05-17"),
        ("items", b'[1,"two",null]'),
        ("raw", b"AP8="),
        ("nothing", None),
        ("flag", b"true"),
        ("id", b"1"),
        ("amount", b"2.5"),
        ("source", b"42"),
    ]
    assert [name for name, _ in text["2"]] == [
        "text",
        "count",
        "ratio",
        "day",
        "items",
        "raw",
        "nothing",
        "id",
        "amount",
    ]  # no flag, so InsertHeader's predicate is false
    json_headers = dict(enveloped["1"])
    assert json_headers == {
        "text": b'{"schema":null,"payload":"order 1"}',
        "count": b'{"schema":null,"payload":1}',
        "ratio": b'{"schema":{"type":"float","optional":false},"payload":0.1}',
        "day": b'{"schema":{"type":"int32","optional":false,"name":"org.apache.kafka.connect.data.Date"},'
        b'"payload":19860}',
        "items": b'{"schema":null,"payload":[1,"two",null]}',
        "raw": b'{"schema":null,"payload":"AP8="}',
        "nothing": None,
        "flag": b'{"schema":null,"payload":true}',
        "id": b'{"schema":{"type":"int64","optional":false},"payload":1}',
        "amount": b'{"schema":{"type":"float","optional":false},"payload":2.5}',
        "source": b'{"schema":{"type":"int8","optional":false},"payload":42}',
    }
