"""`config.storage.topic` and `status.storage.topic`: connectors created through the REST API, their
target states and their statuses kept in Kafka in Kafka Connect's record formats, so that a worker
started again elsewhere (nothing on its disk) finds them."""

from __future__ import annotations

import json
from pathlib import Path

from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition
from confluent_kafka.admin import AdminClient

from connectworker.runtime.herder.connector_store import StoredConnector
from connectworker.runtime.herder.kafka_config_store import KafkaConfigStore
from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.harness import wait_until
from tests.integration.test_rest_harness import datagen, rest_worker, rest_worker_config, wait_for_states
from tests.integration.topic_checks import topic_configs
from tests.kafka_helpers import delete_topics


def read_topic(bootstrap: str, topic: str) -> dict[str, dict | None]:
    """The newest value of every key of `topic` (None: a tombstone)."""
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "unused",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
        }
    )
    out: dict[str, dict | None] = {}
    try:
        partitions = consumer.list_topics(topic, timeout=10).topics[topic].partitions
        consumer.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in partitions])
        at_end: set[int] = set()
        while at_end != set(partitions):
            msg = consumer.poll(5)
            if msg is None:
                break
            if msg.error() is not None:
                at_end.add(msg.partition())
                continue
            out[msg.key().decode()] = None if msg.value() is None else json.loads(msg.value())
    finally:
        consumer.close()
    return out


def test_rest_created_connectors_and_their_states_survive_a_worker_started_with_nothing_on_disk(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    topics = {
        "config.storage.topic": f"configs-{unique}",
        "status.storage.topic": f"status-{unique}",
        "offset.storage.topic": f"offsets-{unique}",
        "config.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        "offset.storage.replication.factor": "1",
        "offset.storage.partitions": "3",
        "status.storage.partitions": "2",
    }
    first_host, second_host = tmp_path / "first", tmp_path / "second"
    first_host.mkdir()
    second_host.mkdir()
    running, paused, stopped = f"run-{unique}", f"pause-{unique}", f"stop-{unique}"
    with rest_worker(rest_worker_config(broker.bootstrap_servers, first_host, **topics)) as api:
        for name in (running, paused, stopped):
            assert api.client.post("/connectors", json={"name": name, "config": datagen(name, name)}).status_code == 201
            wait_for_states(api, name, "RUNNING", ["RUNNING"])
        assert api.client.put(f"/connectors/{paused}/pause").status_code == 202
        assert api.client.put(f"/connectors/{stopped}/stop").status_code == 204
        wait_for_states(api, paused, "PAUSED", ["PAUSED"])
        wait_until(
            lambda: (
                read_topic(broker.bootstrap_servers, topics["status.storage.topic"]).get(f"status-task-{paused}-0", {})
                is not None
                and read_topic(broker.bootstrap_servers, topics["status.storage.topic"])[f"status-task-{paused}-0"][
                    "state"
                ]
                == "PAUSED"
            ),
            10,
            "the paused task's status in the status topic",
        )
    assert not any(first_host.glob("*.connectors.json")), "the file store is not used with config.storage.topic"

    configs = read_topic(broker.bootstrap_servers, topics["config.storage.topic"])
    assert configs[f"connector-{running}"] == {"properties": {"name": running, **datagen(running, running)}}
    assert configs[f"target-state-{paused}"] == {"state": "PAUSED", "state.v2": "PAUSED"}
    assert configs[f"target-state-{stopped}"] == {"state": "PAUSED", "state.v2": "STOPPED"}
    assert topic_configs(admin, topics["config.storage.topic"]).get("cleanup.policy") == "compact"
    statuses = read_topic(broker.bootstrap_servers, topics["status.storage.topic"])
    assert statuses[f"status-connector-{running}"]["state"] == "UNASSIGNED"  # its worker stopped, as Kafka says
    assert statuses[f"status-task-{running}-0"] == {
        "state": "UNASSIGNED",
        "trace": None,
        "worker_id": "connectworker",
        "generation": 0,
    }

    with rest_worker(rest_worker_config(broker.bootstrap_servers, second_host, **topics)) as api:
        wait_for_states(api, running, "RUNNING", ["RUNNING"])
        wait_for_states(api, paused, "PAUSED", ["PAUSED"])
        wait_for_states(api, stopped, "STOPPED", [])
        assert api.client.get(f"/connectors/{running}/config").json() == {"name": running, **datagen(running, running)}
        assert api.client.delete(f"/connectors/{running}").status_code == 204
    configs = read_topic(broker.bootstrap_servers, topics["config.storage.topic"])
    assert configs[f"connector-{running}"] is None and configs[f"target-state-{running}"] is None
    statuses = read_topic(broker.bootstrap_servers, topics["status.storage.topic"])
    assert statuses[f"status-connector-{running}"] is None  # a deleted connector's status is tombstoned
    delete_topics(
        admin,
        [
            topics["config.storage.topic"],
            topics["status.storage.topic"],
            topics["offset.storage.topic"],
            running,
            paused,
            stopped,
        ],
    )


def test_a_kafka_connect_config_record_is_read_and_a_bad_one_skipped(
    broker: Broker, admin: AdminClient, unique: str
) -> None:
    topic = f"configs-{unique}"
    kafka = {"bootstrap.servers": broker.bootstrap_servers}
    store = KafkaConfigStore(topic, kafka, replication_factor=1)
    store.put("a", StoredConnector({"name": "a", "connector.class": "DataGen"}, State.PAUSED))
    store.put("b", StoredConnector({"name": "b", "connector.class": "DataGen"}, State.RUNNING, "digest-b"))
    store.put("c", StoredConnector(None, State.RUNNING, "digest-c"))  # a command-line connector deleted
    from confluent_kafka import Producer

    producer = Producer(kafka)
    producer.produce(topic, b"not json", b"connector-broken")
    producer.produce(
        topic, json.dumps({"properties": {"name": "k", "connector.class": "DataGen"}}).encode(), b"connector-k"
    )  # as Kafka Connect writes it: no target state record yet
    producer.produce(topic, json.dumps({"state": "PAUSED"}).encode(), b"target-state-k")  # before state.v2
    producer.produce(topic, json.dumps({"properties": {"task.id": "0"}}).encode(), b"task-k-0")
    assert producer.flush(10) == 0
    store.close()
    again = KafkaConfigStore(topic, kafka, replication_factor=1)
    try:
        assert again.entries() == {
            "a": StoredConnector({"name": "a", "connector.class": "DataGen"}, State.PAUSED),
            "b": StoredConnector({"name": "b", "connector.class": "DataGen"}, State.RUNNING, "digest-b"),
            "c": StoredConnector(None, State.RUNNING, "digest-c"),
            "k": StoredConnector({"name": "k", "connector.class": "DataGen"}, State.PAUSED),
        }
        again.remove("a")
        again.put("c", StoredConnector({"name": "c", "connector.class": "DataGen"}, State.STOPPED))
    finally:
        again.close()
    third = KafkaConfigStore(topic, kafka, replication_factor=1)
    try:
        assert set(third.entries()) == {"b", "c", "k"}
        assert third.get("c") == StoredConnector({"name": "c", "connector.class": "DataGen"}, State.STOPPED)
    finally:
        third.close()
    delete_topics(admin, [topic])
