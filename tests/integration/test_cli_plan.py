"""`connectworker plan`: the topic-creation dry run, offline and against the broker."""

from __future__ import annotations

import json
from pathlib import Path

from confluent_kafka.admin import AdminClient, NewTopic

from tests.broker import Broker
from tests.integration.test_cli_standalone import run_cli, write_worker
from tests.kafka_helpers import delete_topics, existing_topics

CONNECTOR = """name=planned
connector.class=tests.integration.fixture_connectors.VetoingDataGen
topic.creation.default.replication.factor=1
topic.creation.default.partitions=3
topic.creation.groups=compacted
topic.creation.compacted.include=state\\\\..*
topic.creation.compacted.exclude=state\\\\.raw
topic.creation.compacted.partitions=6
topic.creation.compacted.cleanup.policy=compact
"""


def test_plan_json_shows_rule_final_settings_and_the_hook_veto(tmp_path: Path) -> None:
    connector = tmp_path / "c.properties"
    connector.write_text(CONNECTOR)
    result = run_cli(
        "plan",
        str(connector),
        "--topic",
        "state.users",
        "--topic",
        "state.raw",
        "--topic",
        "autoload",
        "--topic",
        "bad topic!",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    plan = {entry["topic"]: entry for entry in json.loads(result.stdout)}
    assert plan["state.users"] | {"reason": None, "exists": None} == {
        "topic": "state.users",
        "create": True,
        "rule": "compacted",
        "partitions": 6,
        "replication_factor": 1,
        "configs": {"cleanup.policy": "compact"},
        "reason": None,
        "exists": None,
    }
    assert plan["state.raw"]["rule"] == "default" and plan["state.raw"]["partitions"] == 3  # exclude falls through
    assert plan["autoload"]["create"] is False and "returned None" in plan["autoload"]["reason"]
    assert plan["bad topic!"]["create"] is False and "invalid topic name" in plan["bad topic!"]["reason"]
    # the connector and task start only to be asked: the log says so before they log their own start
    assert "Dry run: connector " in result.stderr and "nothing is polled, produced or committed" in result.stderr


def test_plan_against_the_broker_skips_existing_topics_and_reports_validate_only(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    existing, new = f"state.exists{unique}", f"state.new{unique}"
    admin.create_topics([NewTopic(existing, 1, 1)])[existing].result()
    connector = tmp_path / "c.properties"
    connector.write_text(CONNECTOR)
    worker = write_worker(tmp_path, broker.bootstrap_servers, **{"topic.creation.enable": "true"})
    result = run_cli(
        "plan", str(connector), "--worker", str(worker), "--topic", existing, "--topic", new, "--validate-only"
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith(f"SKIP   {existing}") and "topic exists" in line for line in lines)
    assert any(line.startswith(f"CREATE {new}") and "rule=compacted" in line for line in lines)
    assert "broker (validate_only): valid" in result.stdout
    if broker.is_tansu:
        assert "does not honour validate_only" in result.stdout
    else:
        assert new not in existing_topics(admin)  # a real broker only validated
    delete_topics(admin, [existing, new])


def test_plan_with_the_flag_off_says_nothing_would_be_created(broker: Broker, tmp_path: Path) -> None:
    connector = tmp_path / "c.properties"
    connector.write_text(CONNECTOR)
    worker = write_worker(tmp_path, broker.bootstrap_servers)
    result = run_cli("plan", str(connector), "--worker", str(worker), "--topic", "state.x", "--json")
    [entry] = json.loads(result.stdout)
    assert entry["create"] is False and "topic.creation.enable is false" in entry["reason"]


def test_a_task_without_dry_start_is_not_started_and_the_plan_says_its_hook_was_not_asked(tmp_path: Path) -> None:
    mark = tmp_path / "started"
    connector = tmp_path / "marking.properties"
    connector.write_text(
        "name=marking\nconnector.class=tests.integration.fixture_connectors.MarkingSource\ntopics=orders\n"
        f"mark.file={mark}\ntopic.creation.default.replication.factor=1\ntopic.creation.default.partitions=2\n"
    )
    result = run_cli("plan", str(connector), "--topic", "orders", "--json")
    assert result.returncode == 0, result.stderr
    [entry] = json.loads(result.stdout)
    assert entry["create"] is True and entry["partitions"] == 2
    assert entry["configs"] == {}  # the rule's settings: the task, which would compact it, was not asked
    assert "settings_for_new_topic of marking task 0 not asked" in entry["reason"]
    assert "MarkingTask does not implement dry_start" in entry["reason"]
    assert not mark.exists()  # its start, which leaves a mark outside the process, never ran
