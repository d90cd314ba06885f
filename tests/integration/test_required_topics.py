"""A topic a connector requires (its schema history, as Debezium's MySQL connector keeps one) is created by
the worker before the connector's tasks start, with the connector's settings whatever the rules say; one
that exists with other settings fails the connector, naming each setting, and nothing is produced."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.harness import running_worker, wait_until, worker_config
from tests.integration.test_cli_standalone import run_cli, write_worker
from tests.integration.test_rest_harness import datagen
from tests.integration.topic_checks import partition_count, topic_configs
from tests.kafka_helpers import delete_topics, existing_topics

HISTORY = "tests.integration.fixture_connectors.HistoryKeepingDataGen"


def keeping_history(name: str, data: str, history: str) -> dict[str, str]:
    return {
        **datagen(name, data, rate="0", records="30"),
        "connector.class": HISTORY,
        "history.topic": history,
        # the default rule says three compacted partitions kept a day: not what a history needs
        "topic.creation.default.partitions": "3",
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.cleanup.policy": "compact",
        "topic.creation.default.retention.ms": "86400000",
    }


def connector_file(tmp_path: Path, history: str, data: str) -> Path:
    path = tmp_path / "c.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in keeping_history("h", data, history).items()))
    return path


def test_a_required_topic_is_created_before_the_tasks_start_with_the_connectors_settings_not_the_rules(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str, caplog: pytest.LogCaptureFixture
) -> None:
    history, data = f"history-{unique}", f"data-{unique}"
    config = worker_config(broker.bootstrap_servers, tmp_path, **{"task.processes": "0"})
    try:
        with caplog.at_level(logging.INFO), running_worker(config, keeping_history("h", data, history)) as runtime:
            assert runtime.worker is not None
            wait_until(lambda: runtime.worker.get("h").tasks[0].committed_records == 30, 30, "30 records committed")
        assert partition_count(admin, history) == 1
        assert {k: v for k, v in topic_configs(admin, history).items() if k in ("cleanup.policy", "retention.ms")} == {
            "cleanup.policy": "delete",
            "retention.ms": "-1",
        }
        messages = [r.getMessage() for r in caplog.records]
        created = messages.index(
            f"Created topic {history} for connector h, as it requires: 1 partition(s), cleanup.policy=delete, "
            "retention.ms=-1"
        )
        assert created < messages.index("Task h-0 started")
    finally:
        delete_topics(admin, [history, data])


@pytest.mark.parametrize(
    ("partitions", "configs", "said", "remedy"),
    [
        (
            1,
            {"cleanup.policy": "compact", "retention.ms": "-1"},
            "cleanup.policy=compact where it needs cleanup.policy=delete",
            "--add-config cleanup.policy=delete, or `connectworker topics drift --apply`), or delete it: the worker "
            "then creates it right.",
        ),
        (
            3,
            {"cleanup.policy": "delete", "retention.ms": "-1"},
            "3 partitions where it needs 1",
            "Delete topic {topic} and start the connector again: the worker creates it right.",
        ),
        (
            1,
            {"cleanup.policy": "delete", "retention.ms": "604800000"},
            "retention.ms=604800000 where it needs retention.ms=-1",
            "--add-config retention.ms=-1, or `connectworker topics drift --apply`), or delete it: the worker then "
            "creates it right.",
        ),
    ],
)
def test_an_existing_required_topic_with_other_settings_fails_the_connector_naming_the_setting_and_nothing_is_sent(
    broker: Broker,
    admin: AdminClient,
    tmp_path: Path,
    unique: str,
    partitions: int,
    configs: dict[str, str],
    said: str,
    remedy: str,
) -> None:
    history, data = f"history-{unique}", f"data-{unique}"
    admin.create_topics([NewTopic(history, partitions, 1, config=configs)])[history].result(timeout=10)
    config = worker_config(broker.bootstrap_servers, tmp_path, **{"task.processes": "0"})
    try:
        with running_worker(config, keeping_history("h", data, history)) as runtime:
            assert runtime.worker is not None
            running = runtime.worker.get("h")
            wait_until(lambda: running.status.state is State.FAILED, 30, "the connector FAILED")
            error = (running.status.trace or "").rstrip().splitlines()[-1]
            assert error.startswith(
                f"connectworker.api.errors.ConnectError: Connector h cannot start: its topic {history} exists with "
            )
            assert said in error
            assert "The schema history is replayed whole, in order, on every start" in error
            assert error.endswith(remedy.format(topic=history))
            assert running.tasks == []
        assert data not in existing_topics(admin)  # no task started: nothing was produced
        assert partition_count(admin, history) == partitions  # the worker changed nothing
    finally:
        delete_topics(admin, [history, data])


def test_a_connector_keeping_its_required_topic_on_another_cluster_fails_naming_its_key_and_the_workers_servers(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    """The worker makes required topics ready on its own cluster only: a connector that says it uses its
    history on another (Debezium's schema.history.internal.kafka.bootstrap.servers) is refused, not given
    a topic where it will never read it. The same brokers in another order and case are the same cluster."""
    history, data = f"history-{unique}", f"data-{unique}"
    elsewhere = "127.0.0.1:1"
    config = worker_config(broker.bootstrap_servers, tmp_path, **{"task.processes": "0"})
    try:
        props = {**keeping_history("h", data, history), "history.servers": elsewhere}
        with running_worker(config, props) as runtime:
            assert runtime.worker is not None
            running = runtime.worker.get("h")
            wait_until(lambda: running.status.state is State.FAILED, 30, "the connector FAILED")
            error = (running.status.trace or "").rstrip().splitlines()[-1]
            assert error == (
                f"connectworker.api.errors.ConnectError: Connector h keeps its topic {history} on the cluster at "
                f"{elsewhere} (history.servers), not on the worker's at {broker.bootstrap_servers}: the worker "
                f"creates and checks the topics a connector requires on its own cluster only. Set "
                f"history.servers={broker.bootstrap_servers}"
            )
            assert running.tasks == []
        assert not {history, data} & existing_topics(admin)
        same = {**keeping_history("h2", data, history), "history.servers": f" {broker.bootstrap_servers.upper()} "}
        with running_worker(config, same) as runtime:
            assert runtime.worker is not None
            wait_until(lambda: runtime.worker.get("h2").tasks[0].committed_records == 30, 30, "30 records committed")
        assert partition_count(admin, history) == 1
    finally:
        delete_topics(admin, [history, data])


def test_plan_shows_the_required_topic_first_and_against_the_broker_says_an_existing_one_would_fail(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    history, data = f"history-{unique}", f"data-{unique}"
    connector = connector_file(tmp_path, history, data)
    offline = run_cli("plan", str(connector), "--topic", data, "--json")
    assert offline.returncode == 0, offline.stderr
    first, second = json.loads(offline.stdout)
    assert first | {"reason": None} == {
        "topic": history,
        "create": True,
        "rule": None,
        "partitions": 1,
        "replication_factor": None,
        "configs": {"cleanup.policy": "delete", "retention.ms": "-1"},
        "reason": None,
    }
    assert first["reason"] == "required by connector h: created before its tasks start, whatever the rules say"
    assert second["topic"] == data and second["rule"] == "default" and second["partitions"] == 3
    admin.create_topics([NewTopic(history, 1, 1, config={"cleanup.policy": "compact"})])[history].result(timeout=10)
    try:
        worker = write_worker(tmp_path, broker.bootstrap_servers)
        against = run_cli("plan", str(connector), "--worker", str(worker), "--topic", data)
        assert against.returncode == 0, against.stderr
        [line] = [line for line in against.stdout.splitlines() if history in line]
        assert line.startswith(f"SKIP   {history}")
        assert "exists with cleanup.policy=compact where it needs cleanup.policy=delete; " in line
        assert "retention.ms=-1: connector h would fail to start" in line  # set on neither: the broker's default
    finally:
        delete_topics(admin, [history])


def test_drift_reports_a_required_topic_against_what_the_connector_requires_and_apply_lets_it_start(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    history, data = f"history-{unique}", f"data-{unique}"
    connector = connector_file(tmp_path, history, data)
    admin.create_topics([NewTopic(history, 1, 1, config={"cleanup.policy": "compact"})])[history].result(timeout=10)
    worker = write_worker(tmp_path, broker.bootstrap_servers)
    try:
        report = run_cli("topics", "drift", str(connector), "--worker", str(worker), "--topic", data, "--json")
        assert report.returncode == 3, report.stdout + report.stderr  # drift found
        [entry] = [e for e in json.loads(report.stdout) if e["topic"] == history]
        assert entry["rule"] == "required by the connector" and entry["in_sync"] is False
        assert {(d["what"], d["actual"], d["wanted"]) for d in entry["differences"]} == {
            ("cleanup.policy", "compact", "delete"),
            ("retention.ms", None, "-1"),
        }
        fixed = run_cli("topics", "drift", str(connector), "--worker", str(worker), "--topic", data, "--apply", "--yes")
        assert fixed.returncode == 0, fixed.stdout + fixed.stderr
        assert {k: v for k, v in topic_configs(admin, history).items() if k in ("cleanup.policy", "retention.ms")} == {
            "cleanup.policy": "delete",
            "retention.ms": "-1",
        }
        config = worker_config(broker.bootstrap_servers, tmp_path, **{"task.processes": "0"})
        with running_worker(config, keeping_history("h", data, history)) as runtime:
            assert runtime.worker is not None
            wait_until(lambda: runtime.worker.get("h").tasks[0].committed_records == 30, 30, "30 records committed")
    finally:
        delete_topics(admin, [history, data])
