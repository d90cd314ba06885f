"""Topic creation against a real broker: rules, the task hook, the worker flag, races, big batches,
topics deleted at run time, and failures that must end in a FAILED task with a clear reason."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from connectworker.config.connector_config import parse_connector_config
from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.harness import running_worker, task_state, wait_committed, wait_until, worker_config
from tests.integration.topic_checks import partition_count, topic_configs
from tests.kafka_helpers import consume, delete_topics, existing_topics

FIXTURES = "tests.integration.fixture_connectors"


def datagen(name: str, pattern: str, count: int, records: int, **extra: str) -> dict[str, str]:
    """A DataGen task writing `records` records in all (one poll) over `count` topics."""
    return {
        "name": name,
        "connector.class": "DataGen",
        "topic.pattern": pattern,
        "topic.count": str(count),
        "records": str(records),
        "rate": "0",
        "batch.size": str(max(1, records)),
        "format": "string",
        **extra,
    }


def test_new_topics_get_their_rule_settings_and_records_arrive(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    connector = datagen(
        f"rules-{unique}",
        f"r{unique}.{{region}}",
        4,
        20,
        **{
            "topic.creation.default.replication.factor": "1",
            "topic.creation.default.partitions": "3",
            "topic.creation.default.retention.ms": "3600000",
            "topic.creation.groups": "eu",
            "topic.creation.eu.include": rf"r{unique}\.eu-.*",
            "topic.creation.eu.partitions": "5",
            "topic.creation.eu.cleanup.policy": "compact",
        },
    )
    config = worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    with running_worker(config, connector) as runtime:
        wait_committed(runtime.worker, connector["name"], 20)
        assert task_state(runtime.worker, connector["name"])[0] is State.RUNNING
    topics = [f"r{unique}.{region}" for region in ("us-east", "us-west", "eu-west", "eu-central")]
    assert partition_count(admin, f"r{unique}.eu-west") == 5
    assert topic_configs(admin, f"r{unique}.eu-west")["cleanup.policy"] == "compact"
    assert "retention.ms" not in topic_configs(admin, f"r{unique}.eu-west") or broker.flavor == "apache"
    assert partition_count(admin, f"r{unique}.us-east") == 3
    assert topic_configs(admin, f"r{unique}.us-east")["retention.ms"] == "3600000"
    assert len(consume(broker.bootstrap_servers, topics, 20)) == 20
    delete_topics(admin, topics)


def test_the_kip_draft_example_works_as_written(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    prefixed, other = f"MyPrefix{unique}", f"xyz{unique}"
    connector = {
        "name": f"kip-{unique}",
        "connector.class": f"{FIXTURES}.NamedTopicsSource",
        "topics": f"{prefixed},{other}",
        "topic.creation": "firstRule,defaultRule",
        "topic.creation.firstRule.regex": "MyPrefix.*",
        "topic.creation.firstRule.replication.factor": "1",
        "topic.creation.firstRule.partitions": "5",
        "topic.creation.firstRule.cleanup.policy": "compact",
        "topic.creation.defaultRule.regex": ".*",
        "topic.creation.defaultRule.replication.factor": "1",
        "topic.creation.defaultRule.partitions": "15",
    }
    config = worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    with running_worker(config, connector) as runtime:
        wait_until(
            lambda: (
                runtime.worker.get(connector["name"]).tasks[0].committed_records >= 0
                and {prefixed, other} <= existing_topics(admin)
            )
        )
    assert partition_count(admin, prefixed) == 5
    assert topic_configs(admin, prefixed)["cleanup.policy"] == "compact"
    assert partition_count(admin, other) == 15
    delete_topics(admin, [prefixed, other])


def test_task_hook_overrides_settings(broker: Broker, admin: AdminClient, tmp_path: Path, unique: str) -> None:
    connector = datagen(
        f"hook-{unique}",
        f"h{unique}.{{n}}",
        2,
        5,
        **{
            "connector.class": f"{FIXTURES}.CompactingDataGen",
            "topic.creation.default.replication.factor": "1",
            "topic.creation.default.partitions": "7",
        },
    )
    config = worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    with running_worker(config, connector) as runtime:
        wait_committed(runtime.worker, connector["name"], 5)
    for topic in (f"h{unique}.0", f"h{unique}.1"):
        assert partition_count(admin, topic) == 2  # the hook's value, not the rule's 7
        assert topic_configs(admin, topic)["cleanup.policy"] == "compact"
    delete_topics(admin, [f"h{unique}.0", f"h{unique}.1"])


def test_task_hook_veto_leaves_the_topic_to_broker_auto_create(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str, caplog: pytest.LogCaptureFixture
) -> None:
    config = worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    veto = {
        **datagen(f"veto-{unique}", f"auto{unique}", 1, 3),
        "connector.class": f"{FIXTURES}.VetoingDataGen",
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "7",
    }
    with caplog.at_level(logging.INFO), running_worker(config, veto) as runtime:
        wait_committed(runtime.worker, veto["name"], 3)
    assert len(consume(broker.bootstrap_servers, [f"auto{unique}"], 3)) == 3
    assert partition_count(admin, f"auto{unique}") != 7  # the broker's default, not the rule's
    assert any("settings_for_new_topic" in r.message and "returned None" in r.message for r in caplog.records)
    delete_topics(admin, [f"auto{unique}"])


def test_flag_off_ignores_topic_creation_keys_with_one_info_line(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str, caplog: pytest.LogCaptureFixture
) -> None:
    connector = datagen(
        f"off-{unique}",
        f"off{unique}",
        1,
        5,
        **{"topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "7"},
    )
    config = worker_config(broker.bootstrap_servers, tmp_path)  # topic.creation.enable defaults to false
    with caplog.at_level(logging.INFO), running_worker(config, connector) as runtime:
        wait_committed(runtime.worker, connector["name"], 5)
        admin_requests = runtime.admin.requests
    assert admin_requests == 0  # no describe, no create: the broker's auto-create applied
    assert partition_count(admin, f"off{unique}") != 7
    ignored = [r for r in caplog.records if "ignored because the worker's topic.creation.enable is false" in r.message]
    assert len(ignored) == 1
    delete_topics(admin, [f"off{unique}"])


def test_two_workers_racing_for_the_same_new_topics_both_succeed(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    settings = {"topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "2"}
    first = datagen(f"race-a-{unique}", f"race{unique}.{{n}}", 20, 200, **settings)
    second = datagen(f"race-b-{unique}", f"race{unique}.{{n}}", 20, 200, seed="9", **settings)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    config_a = worker_config(broker.bootstrap_servers, tmp_path / "a", **{"topic.creation.enable": "true"})
    config_b = worker_config(broker.bootstrap_servers, tmp_path / "b", **{"topic.creation.enable": "true"})
    with running_worker(config_a) as a, running_worker(config_b) as b:
        a.worker.start_connector(parse_connector_config(first))
        b.worker.start_connector(parse_connector_config(second))
        wait_committed(a.worker, first["name"], 200)
        wait_committed(b.worker, second["name"], 200)
        assert task_state(a.worker, first["name"])[0] is State.RUNNING
        assert task_state(b.worker, second["name"])[0] is State.RUNNING
    topics = [f"race{unique}.{n}" for n in range(20)]
    assert all(partition_count(admin, t) == 2 for t in topics)
    assert len(consume(broker.bootstrap_servers, topics, 400)) == 400
    delete_topics(admin, topics)


def test_500_new_topics_in_one_poll_cost_a_handful_of_admin_requests(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    connector = datagen(
        f"many-{unique}",
        f"m{unique}.{{n}}",
        500,
        500,
        **{"topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1"},
    )
    config = worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    with running_worker(config, connector) as runtime:
        wait_committed(runtime.worker, connector["name"], 500, timeout=60)
        requests = runtime.admin.requests
    topics = [f"m{unique}.{n}" for n in range(500)]
    assert set(topics) <= existing_topics(admin)
    # one describe, one broker count, one create, and visibility checks: never one per topic
    assert requests <= 6, requests
    delete_topics(admin, topics)


@pytest.mark.parametrize("speed", ["paced", "full"])
def test_topic_deleted_at_run_time_is_created_again_with_its_rule(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str, speed: str
) -> None:
    """At full speed thousands of records are in flight when the topic goes: they are all re-sent well
    within topic.creation.timeout.ms (waiting for the topic once per record outlasted it)."""
    topic = f"del{unique}"
    # before the deletion, then after the topic came back
    before, after = (50, 100) if speed == "paced" else (50_000, 50_000)
    connector = {
        **datagen(f"del-{unique}", topic, 1, -1),
        "rate": "200" if speed == "paced" else "0",
        "batch.size": "20" if speed == "paced" else "5000",
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "3",
    }
    # The operator turned producer auto-create off, so only the worker may create topics. Idempotence
    # is off too: an idempotent producer whose partition vanished gets a fatal error (PRODUCER_FENCED on
    # Tansu), which fails the task; a restart then resumes from the committed offsets.
    config = worker_config(
        broker.bootstrap_servers,
        tmp_path,
        **{
            "topic.creation.enable": "true",
            "producer.allow.auto.create.topics": "false",
            "producer.enable.idempotence": "false",
            "producer.topic.metadata.refresh.interval.ms": "500",
            "producer.topic.metadata.propagation.max.ms": "500",
        },
    )
    with running_worker(config, connector) as runtime:
        task = runtime.worker.get(connector["name"]).tasks[0]
        wait_until(lambda: task.committed_records >= before)
        delete_topics(admin, [topic])
        wait_until(lambda: topic not in existing_topics(admin), what="topic deleted")
        wait_until(lambda: topic in existing_topics(admin), what="topic created again")
        committed = task.committed_records
        wait_until(
            lambda: task.committed_records >= committed + after,
            what=lambda: (
                f"records flowing again ({task.committed_records - committed} committed since the topic "
                f"came back; task {task.status.state.value}: {task.status.trace})"
            ),
        )
        assert task.status.state is State.RUNNING
    assert partition_count(admin, topic) == 3
    delete_topics(admin, [topic])


@pytest.mark.parametrize("case", ["replication_factor_above_brokers", "invalid_topic_name", "hook_raises"])
def test_topics_that_cannot_be_created_fail_the_task_with_the_reason(
    broker: Broker, tmp_path: Path, unique: str, case: str
) -> None:
    base = {"topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "1"}
    if case == "replication_factor_above_brokers":
        connector = {
            **datagen(f"rf-{unique}", f"rf{unique}", 1, 1),
            **base,
            "topic.creation.default.replication.factor": "9",
        }
        expected = ["replication factor 9", "live broker(s)"]
    elif case == "invalid_topic_name":
        connector = {
            "name": f"bad-{unique}",
            "connector.class": f"{FIXTURES}.NamedTopicsSource",
            "topics": "bad topic!",
            **base,
        }
        expected = ["invalid topic names", "'bad topic!'"]
    else:
        connector = {
            **datagen(f"hook-{unique}", f"hk{unique}", 1, 1),
            **base,
            "connector.class": f"{FIXTURES}.BrokenHookDataGen",
        }
        expected = ["settings_for_new_topic", f"hook-{unique}-0", f"hk{unique}", "no settings for you"]
    config = worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    with running_worker(config, connector) as runtime:
        wait_until(lambda: task_state(runtime.worker, connector["name"])[0] is State.FAILED, timeout=20)
        _, trace = task_state(runtime.worker, connector["name"])
    assert trace is not None
    for text in expected:
        assert text in trace


@pytest.mark.requires_apache_kafka("Tansu accepts any topic config, so it never answers INVALID_CONFIG")
def test_broker_rejecting_a_topic_config_fails_the_task_naming_it(broker: Broker, tmp_path: Path, unique: str) -> None:
    connector = {
        **datagen(f"cfg-{unique}", f"cfg{unique}", 1, 1),
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.retention.ms": "not-a-number",
    }
    config = worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    with running_worker(config, connector) as runtime:
        wait_until(lambda: task_state(runtime.worker, connector["name"])[0] is State.FAILED, timeout=20)
        _, trace = task_state(runtime.worker, connector["name"])
    assert trace is not None and "retention.ms" in trace
