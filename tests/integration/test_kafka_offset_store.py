"""The Kafka offset backing store (`offset.storage.topic`) on the test broker: the store contract, the
topic it creates, Kafka Connect's record format, and a standalone worker that keeps its offsets there
(restart resumes, REST offsets endpoints)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient

from connectworker.api.errors import ConnectError
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.clients import compacted_topic
from connectworker.runtime.clients.admin_client import open_topic_admin
from connectworker.runtime.herder.standalone import StandaloneRuntime
from connectworker.runtime.offsets.backing_store import OffsetBackingStore, read_committed
from connectworker.runtime.offsets.file_store import OffsetStoreError, partition_key
from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore, record_key
from connectworker.runtime.offsets.read_only import committed_offsets_read_only
from connectworker.topics.admin import TopicAdmin
from tests.broker import Broker
from tests.integration.harness import running_worker, wait_until, worker_config
from tests.integration.test_rest_harness import datagen, rest_worker, rest_worker_config
from tests.integration.topic_checks import partition_count, topic_configs
from tests.kafka_helpers import consume, delete_topics, existing_topics
from tests.offset_store_contract import CONTRACT

P0, P1 = partition_key({"task": 0}), partition_key({"task": 1})


@pytest.fixture
def offsets_topic(admin: AdminClient, unique: str) -> Iterator[str]:
    topic = f"offsets-{unique}"
    yield topic
    delete_topics(admin, [topic])


def committed_now(broker: Broker, topic: str, connector: str) -> dict[str, object]:
    """A connector's offsets as a fresh store reads them; the store is closed, never left to the garbage
    collector (a librdkafka client freed on whatever thread collects it can take the process down)."""
    store = store_for(broker, topic)
    try:
        return read_committed(store, connector)
    finally:
        store.close()


def store_for(broker: Broker, topic: str, **options: int) -> KafkaOffsetStore:
    return KafkaOffsetStore(
        topic, {"bootstrap.servers": broker.bootstrap_servers}, **{"partitions": 3, "replication_factor": 1, **options}
    )


@pytest.mark.parametrize("check", CONTRACT, ids=lambda c: c.__name__.removeprefix("check_"))
def test_kafka_store_keeps_the_contract(
    check: Callable[[Callable[[], OffsetBackingStore]], None], broker: Broker, offsets_topic: str
) -> None:
    check(lambda: store_for(broker, offsets_topic))


def test_round_trip_through_a_new_instance_with_tombstones_in_kafka_connects_format(
    broker: Broker, admin: AdminClient, offsets_topic: str
) -> None:
    store = store_for(broker, offsets_topic, partitions=5)
    store.put("gen", {P0: {"seq": 10}, P1: {"seq": 7}})
    store.put("other", {P0: {"seq": 1}})
    store.flush()
    store.remove("gen", [P1])
    store.flush()
    store.close()

    assert partition_count(admin, offsets_topic) == 5
    assert topic_configs(admin, offsets_topic).get("cleanup.policy") == "compact"
    again = store_for(broker, offsets_topic)
    again.refresh()
    assert again.offsets("gen") == {P0: {"seq": 10}}
    assert again.offsets("other") == {P0: {"seq": 1}}
    assert again.records_read == 4  # three offsets and one tombstone; barriers are not counted
    again.close()

    records = consume(broker.bootstrap_servers, [offsets_topic], 4)
    written = [(m.key(), m.value()) for m in records if not m.key().startswith(b'["__connectworker')]
    assert sorted(written, key=lambda kv: (kv[0], kv[1] is None)) == sorted(
        [
            (b'["gen",{"task":0}]', b'{"seq":10}'),
            (b'["gen",{"task":1}]', b'{"seq":7}'),
            (b'["gen",{"task":1}]', None),
            (b'["other",{"task":0}]', b'{"seq":1}'),
        ],
        key=lambda kv: (kv[0], kv[1] is None),
    )
    # Each offset key always lands in one partition (so compaction keeps its newest record); a read's
    # barrier goes to every partition.
    partitions: dict[bytes, set[int]] = {}
    for m in records:
        partitions.setdefault(m.key(), set()).add(m.partition())
    assert all(len(p) == 1 for key, p in partitions.items() if not key.startswith(b'["__connectworker'))


def test_offsets_written_by_kafka_connect_are_read_and_junk_is_skipped(broker: Broker, offsets_topic: str) -> None:
    store = store_for(broker, offsets_topic)
    store.refresh()  # creates the topic
    producer = Producer({"bootstrap.servers": broker.bootstrap_servers})
    producer.produce(offsets_topic, b'{"position": 42}', b'["file", {"filename": "/a.txt"}]', partition=1)
    producer.produce(offsets_topic, b"junk", b"not json", partition=2)
    producer.produce(offsets_topic, b"[1]", record_key("file", P0), partition=0)
    producer.flush(10)
    assert read_committed(store, "file") == {partition_key({"filename": "/a.txt"}): {"position": 42}}
    store.close()


def test_a_replication_factor_above_the_broker_count_says_which_key_to_lower(
    broker: Broker, admin: AdminClient, offsets_topic: str
) -> None:
    brokers = len(admin.list_topics(timeout=10).brokers)
    store = store_for(broker, offsets_topic, replication_factor=brokers + 2)
    with pytest.raises(
        OffsetStoreError,
        match=rf"offset.storage.replication.factor={brokers + 2}.*only "
        rf"{brokers} broker\(s\)",
    ):
        store.refresh()
    store.close()
    assert offsets_topic not in existing_topics(admin)


def test_standalone_with_an_offsets_topic_resumes_where_it_stopped(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str, offsets_topic: str
) -> None:
    records = 600
    connector = {
        "name": f"gen-{unique}",
        "connector.class": "DataGen",
        "tasks.max": "2",
        "topic.pattern": f"kos-{unique}.{{task}}",
        "topic.count": "1",
        "records": str(records),
        "rate": "300",
        "batch.size": "30",
        "seed": "3",
        "format": "string",
    }
    config = worker_config(
        broker.bootstrap_servers,
        tmp_path,
        **{
            "offset.storage.topic": offsets_topic,
            "offset.storage.partitions": "2",
            "offset.storage.replication.factor": "1",
        },
    )
    with running_worker(config, connector) as runtime:
        assert runtime.worker is not None
        assert isinstance(runtime.worker.offset_store, KafkaOffsetStore)
        tasks = runtime.worker.get(connector["name"]).tasks
        wait_until(lambda: all(t.committed_records >= 100 for t in tasks), what="100 committed per task")
    first = committed_now(broker, offsets_topic, connector["name"])
    assert set(first) == {P0, P1} and all(0 < o["seq"] < records for o in first.values()), first
    assert not (tmp_path / "connect.offsets").exists()  # the file key only places the connector store
    assert partition_count(admin, offsets_topic) == 2

    with running_worker(config, connector) as runtime:
        assert runtime.worker is not None
        tasks = runtime.worker.get(connector["name"]).tasks
        wait_until(
            lambda: sum(t.committed_records for t in tasks) >= 2 * records - sum(o["seq"] for o in first.values()),
            what="the rest committed",
        )

    store = store_for(broker, offsets_topic)
    assert read_committed(store, connector["name"]) == {P0: {"seq": records}, P1: {"seq": records}}
    store.close()
    topics = [f"kos-{unique}.0", f"kos-{unique}.1"]
    messages = consume(broker.bootstrap_servers, topics, 2 * records)
    for task in (0, 1):
        seqs = Counter(int(m.key()) for m in messages if m.topic() == topics[task])
        assert set(seqs) == set(range(records)), f"task {task} lost records"
        assert max(seqs.values()) == 1, f"task {task} sent records twice across a graceful restart"
    delete_topics(admin, topics)


def test_rest_offsets_endpoints_read_alter_and_reset_the_offsets_topic(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str, offsets_topic: str
) -> None:
    name, topic = f"rest-{unique}", f"rest-kos-{unique}"
    config = rest_worker_config(
        broker.bootstrap_servers,
        tmp_path,
        **{"offset.storage.topic": offsets_topic, "offset.storage.replication.factor": "1"},
    )
    done = [{"partition": {"task": 0}, "offset": {"seq": 30}}]
    with rest_worker(config) as api:
        body = {"name": name, "config": datagen(name, topic, records="30", rate="0", **{"batch.size": "10"})}
        assert api.client.post("/connectors", json=body).status_code == 201
        wait_until(
            lambda: api.client.get(f"/connectors/{name}/offsets").json()["offsets"] == done, what="30 records committed"
        )
        assert api.client.put(f"/connectors/{name}/stop").status_code == 204
        altered = api.client.patch(
            f"/connectors/{name}/offsets",
            json={
                "offsets": [
                    {"partition": {"task": 0}, "offset": {"seq": 25}},
                    {"partition": {"task": 9}, "offset": {"seq": 1}},
                ]
            },
        )
        assert altered.status_code == 200, altered.text
    assert partition_count(admin, offsets_topic) == 25  # Kafka's default offset.storage.partitions
    assert committed_now(broker, offsets_topic, name) == {P0: {"seq": 25}, partition_key({"task": 9}): {"seq": 1}}

    with rest_worker(config) as api:  # the connector store (beside the file key) kept it, STOPPED
        offsets = api.client.get(f"/connectors/{name}/offsets").json()["offsets"]
        assert sorted(offsets, key=str) == sorted(
            [{"partition": {"task": 0}, "offset": {"seq": 25}}, {"partition": {"task": 9}, "offset": {"seq": 1}}],
            key=str,
        )
        assert api.client.delete(f"/connectors/{name}/offsets").status_code == 200
        assert api.client.get(f"/connectors/{name}/offsets").json()["offsets"] == []
        assert api.client.delete(f"/connectors/{name}").status_code == 204
    assert committed_now(broker, offsets_topic, name) == {}
    delete_topics(admin, [topic])


def test_standalone_stops_at_start_up_when_the_offsets_topic_cannot_be_created(
    broker: Broker, admin: AdminClient, tmp_path: Path, offsets_topic: str
) -> None:
    brokers = len(admin.list_topics(timeout=10).brokers)
    config = worker_config(broker.bootstrap_servers, tmp_path, **{"offset.storage.topic": offsets_topic})
    if brokers >= 3:
        pytest.skip("the cluster has enough brokers for Kafka's default replication factor 3")
    runtime = StandaloneRuntime(config)
    with pytest.raises(ConnectError, match=r"offset\.storage\.replication\.factor=3"):
        runtime.start()
    assert runtime.worker is None


def test_the_admin_client_that_created_the_offsets_topic_is_closed_once_it_is_there(
    broker: Broker, admin: AdminClient, offsets_topic: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Left to the garbage collector, it stayed connected, and logged "Connection refused" every second
    once its broker was gone."""
    opened: list[TopicAdmin] = []

    def recording(*args: Any, **kwargs: Any) -> TopicAdmin:
        opened.append(open_topic_admin(*args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(compacted_topic, "open_topic_admin", recording)
    store = store_for(broker, offsets_topic)
    try:
        store.refresh()
        assert offsets_topic in existing_topics(admin)
    finally:
        store.close()
    assert len(opened) == 1 and opened[0].closed


def test_a_dry_run_reads_the_offsets_topic_without_writing_to_it_or_creating_it(
    broker: Broker, admin: AdminClient, offsets_topic: str, tmp_path: Path
) -> None:
    config = WorkerConfig.from_properties(
        {
            "bootstrap.servers": broker.bootstrap_servers,
            "offset.storage.topic": offsets_topic,
            "offset.storage.file.filename": str(tmp_path / "unused.offsets"),
        }
    )
    assert committed_offsets_read_only(config, "c") == {}
    assert offsets_topic not in existing_topics(admin)  # a missing topic is not created

    store = store_for(broker, offsets_topic)
    try:
        store.put("c", {P0: {"seq": 5}, P1: {"seq": 7}})
        store.put("d", {P0: {"seq": 9}})
        store.flush()
        store.put("c", {P1: None})  # a tombstone removes it
        store.flush()
    finally:
        store.close()
    consumer = Consumer({"bootstrap.servers": broker.bootstrap_servers, "group.id": f"ends-{offsets_topic}"})

    def ends() -> list[int]:
        return [consumer.get_watermark_offsets(TopicPartition(offsets_topic, p), timeout=10)[1] for p in range(3)]

    try:
        before = ends()
        assert committed_offsets_read_only(config, "c") == {P0: {"seq": 5}}
        assert committed_offsets_read_only(config, "d") == {P0: {"seq": 9}}
        assert ends() == before  # no barrier, nothing written
    finally:
        consumer.close()
