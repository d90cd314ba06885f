"""`connectworker topics drift` and `GET /connectors/{name}/topics/drift` on the test broker: topics the
worker created are in sync, a topic created by hand with other settings is drift (exit 3), and
`--apply` fixes what can be fixed in place or, where the broker does not support the request, says so
and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from confluent_kafka.admin._config import ConfigResource
from confluent_kafka.admin._resource import ResourceType

from tests.broker import Broker
from tests.integration.harness import wait_committed, wait_until
from tests.integration.test_cli_standalone import run_cli, write_worker
from tests.integration.test_rest_harness import datagen, rest_worker, rest_worker_config
from tests.kafka_helpers import delete_topics

RULES = {
    "topic.creation.default.replication.factor": "1",
    "topic.creation.default.partitions": "2",
    "topic.creation.default.retention.ms": "3600000",
}


def create_by_hand(admin: AdminClient, topic: str, partitions: int, configs: dict[str, str]) -> None:
    for future in admin.create_topics([NewTopic(topic, partitions, 1, config=configs)]).values():
        future.result()
    wait_until(  # visible to the worker's own metadata requests, with all its partitions
        lambda: len(getattr(admin.list_topics(timeout=10).topics.get(topic), "partitions", ())) == partitions,
        30,
        f"{topic} listed with {partitions} partition(s)",
    )


def configs_of(admin: AdminClient, topic: str) -> dict[str, str]:
    future = next(iter(admin.describe_configs([ConfigResource(ResourceType.TOPIC, topic)]).values()))
    return {key: entry.value for key, entry in future.result().items()}


def connector_file(tmp_path: Path, name: str) -> Path:
    path = tmp_path / "c.properties"
    path.write_text(f"name={name}\nconnector.class=DataGen\n" + "".join(f"{k}={v}\n" for k, v in RULES.items()))
    return path


def test_topics_the_worker_created_are_in_sync_through_rest(broker: Broker, tmp_path: Path, unique: str) -> None:
    name = f"synced-{unique}"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    with rest_worker(config, datagen(name, name, records="10", rate="0", **RULES)) as api:
        wait_committed(api.worker, name, 10)
        response = api.client.get(f"/connectors/{name}/topics/drift")
        unknown = api.client.get("/connectors/nope/topics/drift")
    assert response.status_code == 200
    assert response.json() == {
        "in_sync": True,
        "topics": [{"topic": name, "rule": "default", "in_sync": True, "note": None, "differences": []}],
    }
    assert unknown.status_code == 404


def test_a_topic_made_by_hand_is_drift_and_apply_says_what_the_broker_cannot_do(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    topic = f"by-hand-{unique}"
    create_by_hand(admin, topic, 1, {"retention.ms": "1000"})
    worker = write_worker(tmp_path, broker.bootstrap_servers)
    connector = connector_file(tmp_path, f"drift-{unique}")
    try:
        result = run_cli("topics", "drift", str(connector), "--worker", str(worker), "--topic", topic)
        assert result.returncode == 3, result.stderr
        assert result.stdout.splitlines() == [
            f"{topic} (rule default): 2 difference(s)",
            "  partitions 1 → rule wants 2 (fixable in place: partitions are added)",
            "  retention.ms 1000 → rule wants 3600000 (fixable in place: the config is set)",
        ]
        if broker.is_tansu:  # Tansu has no CreatePartitions: nothing at all may change
            result = run_cli(
                "topics", "drift", str(connector), "--worker", str(worker), "--topic", topic, "--apply", "--yes"
            )
            assert result.returncode == 1
            assert "The broker does not support CreatePartitions" in result.stdout
            assert "nothing was changed." in result.stdout
            assert configs_of(admin, topic)["retention.ms"] == "1000"
    finally:
        delete_topics(admin, [topic])


def test_apply_sets_the_configs_that_differ(broker: Broker, admin: AdminClient, tmp_path: Path, unique: str) -> None:
    topic = f"config-drift-{unique}"
    create_by_hand(admin, topic, 2, {"retention.ms": "1000"})
    worker = write_worker(tmp_path, broker.bootstrap_servers)
    connector = connector_file(tmp_path, f"apply-{unique}")
    try:
        drift = ("topics", "drift", str(connector), "--worker", str(worker), "--topic", topic, "--apply")
        unconfirmed = run_cli(*drift)  # no terminal to confirm on, and no --yes
        assert unconfirmed.returncode == 3, unconfirmed.stdout + unconfirmed.stderr
        assert unconfirmed.stdout.splitlines()[-3:] == [
            "--apply changes 1 setting(s) of 1 topic(s):",
            f"  {topic}: retention.ms 1000 → rule wants 3600000 (fixable in place: the config is set)",
            "Nothing was changed: without a terminal to confirm on, give --yes to apply these changes.",
        ]
        assert configs_of(admin, topic)["retention.ms"] == "1000"
        result = run_cli(*drift, "--yes")
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"  {topic}: set retention.ms=3600000" in result.stdout.splitlines()
        assert configs_of(admin, topic)["retention.ms"] == "3600000"
        again = run_cli("topics", "drift", str(connector), "--worker", str(worker), "--topic", topic, "--json")
        assert again.returncode == 0 and json.loads(again.stdout)[0]["in_sync"] is True
    finally:
        delete_topics(admin, [topic])


@pytest.mark.requires_apache_kafka("Tansu has no CreatePartitions")
def test_apply_adds_partitions(broker: Broker, admin: AdminClient, tmp_path: Path, unique: str) -> None:
    topic = f"grow-{unique}"
    create_by_hand(admin, topic, 1, {"retention.ms": "3600000"})
    worker = write_worker(tmp_path, broker.bootstrap_servers)
    connector = connector_file(tmp_path, f"grow-{unique}")
    try:
        result = run_cli(
            "topics", "drift", str(connector), "--worker", str(worker), "--topic", topic, "--apply", "--yes"
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert len(admin.list_topics(topic, timeout=10).topics[topic].partitions) == 2
    finally:
        delete_topics(admin, [topic])


def test_all_known_takes_the_connectors_own_topics_from_its_worker_and_marks_changes_that_delete_data(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    """A default rule matches every topic of the cluster; `--all-known` still compares only the topics the
    connector wrote to, as its running worker reports them: another connector's topic is never touched."""
    name, theirs = f"own-{unique}", f"theirs-{unique}"
    create_by_hand(admin, theirs, 2, {"retention.ms": "86400000"})  # another connector's, matched by `default`
    create_by_hand(admin, name, 2, {"retention.ms": "600000000"})  # this one's, made by hand before it ran
    config = rest_worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    worker = write_worker(tmp_path, broker.bootstrap_servers)
    connector = connector_file(tmp_path, name)
    with connector.open("a") as out:
        out.write(f"topic.pattern={name}\ntopic.count=1\nrecords=10\nrate=0\nformat=string\n")
    drift = ("topics", "drift", str(connector), "--worker", str(worker), "--all-known")
    try:
        with rest_worker(config, datagen(name, name, records="10", rate="0", **RULES)) as api:
            wait_committed(api.worker, name, 10)
            report = run_cli(*drift, "--rest-url", api.url, "--json")
            assert report.returncode == 3, report.stdout + report.stderr
            assert [(d["topic"], [x["deletes_data"] for x in d["differences"]]) for d in json.loads(report.stdout)] == [
                (name, [True])  # 600000000 ms back to 3600000: records older than an hour go
            ]
            applied = run_cli(*drift, "--rest-url", api.url, "--apply", "--yes")
        assert applied.returncode == 0, applied.stdout + applied.stderr
        assert (
            f"  {name}: retention.ms 600000000 → rule wants 3600000 (fixable in place: the config is set; DELETES "
            "DATA the topic holds now)"
        ) in applied.stdout.splitlines()
        assert configs_of(admin, theirs)["retention.ms"] == "86400000"  # not this connector's: untouched
        gone = run_cli(*drift, "--rest-url", api.url)  # the worker has stopped
        assert (
            gone.returncode == 1
            and f"--all-known asks the running worker for the connector's own topics, but {api.url} does not answer"
            in gone.stderr
        )
        neither = run_cli("topics", "drift", str(connector), "--worker", str(worker))
        assert neither.returncode == 2 and "--topic" in neither.stderr and "--all-known" in neither.stderr
    finally:
        delete_topics(admin, [name, theirs])
