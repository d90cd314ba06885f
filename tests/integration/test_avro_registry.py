"""AvroConverter in a worker on the test broker, its schemas in a Schema Registry over HTTP with basic
authentication (tests/fake_schema_registry.py), configured with Kafka Connect's keys: the records on
the topic are Confluent's framing around the Avro body, the schema registered once under the topic's
subject, and read back to the values the task produced."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from confluent_kafka.admin import AdminClient

from connectworker.converters import AvroConverter
from tests.broker import Broker
from tests.fake_schema_registry import RegistryState, fake_registry
from tests.integration.harness import committed_offset, running_worker, wait_until, worker_config
from tests.integration.header_source import ORDER, PARTITION
from tests.kafka_helpers import consume, delete_topics

RECORDS = 4


def test_avro_values_with_schema_ids_from_an_authenticated_registry(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    topic = f"avro-{unique}"
    state = RegistryState(basic=("connect", "s3cret"))
    with fake_registry(state) as (url, _):
        registry = {
            "value.converter.schema.registry.url": url,
            "value.converter.basic.auth.credentials.source": "USER_INFO",
            "value.converter.basic.auth.user.info": "connect:s3cret",
        }
        config = worker_config(
            broker.bootstrap_servers,
            tmp_path,
            **{"value.converter": "io.confluent.connect.avro.AvroConverter", **registry},
        )
        connector = {
            "name": topic,
            "connector.class": "tests.integration.header_source.HeaderSource",
            "topic": topic,
            "records": str(RECORDS),
        }
        try:
            with running_worker(config, connector) as runtime:
                assert runtime.worker is not None
                wait_until(
                    lambda: committed_offset(runtime.worker, topic, PARTITION) == {"next": RECORDS},
                    30,
                    "every offset committed",
                )
            values = [m.value() for m in consume(broker.bootstrap_servers, [topic], RECORDS)]
        finally:
            delete_topics(admin, [topic])
        reader = AvroConverter()
        reader.configure({k.removeprefix("value.converter."): v for k, v in registry.items()}, False)
        try:
            decoded = sorted((reader.to_connect_data(topic, v) for v in values), key=lambda sv: sv[1]["id"])
        finally:
            reader.close()
    assert all(v is not None and v[:5] == b"\x00\x00\x00\x00\x01" for v in values)  # magic byte, schema id 1
    assert decoded == [(ORDER, {"id": n, "amount": 2.5, "placed": date(2024, 5, 17)}) for n in range(RECORDS)]
    assert [p for p in state.paths() if p[0] == "POST"] == [("POST", f"/subjects/{topic}-value/versions")]  # once
