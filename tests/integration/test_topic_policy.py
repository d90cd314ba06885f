"""The worker's create-topic policy on the test broker: a refused topic fails its task with the policy's
message before any CreateTopics request, a task's hook cannot get past it, `plan` and the validate
endpoint show the verdict, and a policy class that cannot be used stops start-up naming the key."""

from __future__ import annotations

import json
from pathlib import Path

from confluent_kafka.admin import AdminClient

from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.harness import wait_committed, wait_until
from tests.integration.test_cli_standalone import run_cli, write_worker
from tests.integration.test_rest_harness import datagen, rest_worker, rest_worker_config
from tests.kafka_helpers import existing_topics

LIMITS = {
    "topic.creation.enable": "true",
    "topic.creation.policy.class": "connectworker.topics.policy.LimitsPolicy",
    "topic.creation.policy.max.partitions": "4",
    "topic.creation.policy.required.configs": "retention.ms",
}
RULES = {
    "topic.creation.default.replication.factor": "1",
    "topic.creation.default.partitions": "2",
    "topic.creation.default.retention.ms": "3600000",
}


def test_a_refused_topic_fails_its_task_before_any_create_topics_request(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    good, bad = f"allowed-{unique}", f"refused-{unique}"
    config = rest_worker_config(broker.bootstrap_servers, tmp_path, **LIMITS)
    allowed = datagen(good, good, records="20", rate="0", **RULES)
    refused = datagen(bad, bad, records="20", rate="0", **{**RULES, "topic.creation.default.partitions": "8"})
    with rest_worker(config, allowed) as api:
        wait_committed(api.worker, good, 20)
        topics = api.runtime.topics
        assert topics is not None and api.runtime.admin is not None
        requests = api.runtime.admin.requests
        assert api.client.post("/connectors", json={"name": bad, "config": refused}).status_code == 201
        wait_until(
            lambda: bool(tasks := api.worker.get(bad).tasks) and tasks[0].status.state is State.FAILED,
            30,
            "the task to fail",
        )
        trace = api.worker.get(bad).tasks[0].status.trace or ""
        metrics = api.client.get("/metrics").text
        assert api.runtime.admin.requests == requests + 1  # the existence check; no CreateTopics
    assert trace.startswith(
        f"The worker's create-topic policy (topic.creation.policy.class) rejected topic "
        f"'{bad}': 8 partitions is above topic.creation.policy.max.partitions (4). Change the "
        f"connector's topic.creation.* settings"
    )
    assert 'connectworker_topic_creation_failures_total{kind="policy_violation"} 1.0' in metrics
    assert good in existing_topics(admin) and bad not in existing_topics(admin)


def test_a_hook_cannot_get_past_the_policy(broker: Broker, admin: AdminClient, tmp_path: Path, unique: str) -> None:
    name = f"hooked-{unique}"
    compacting = {
        **datagen(name, name, records="5", rate="0", **RULES),
        "connector.class": "tests.integration.fixture_connectors.CompactingDataGen",
    }
    config = rest_worker_config(
        broker.bootstrap_servers, tmp_path, **{**LIMITS, "topic.creation.policy.allowed.cleanup.policies": "delete"}
    )
    with rest_worker(config, compacting) as api:
        wait_until(
            lambda: bool(tasks := api.worker.get(name).tasks) and tasks[0].status.state is State.FAILED,
            30,
            "the task to fail",
        )
        trace = api.worker.get(name).tasks[0].status.trace or ""
    assert "cleanup.policy 'compact' is not allowed (topic.creation.policy.allowed.cleanup.policies = delete)" in trace
    assert name not in existing_topics(admin)


def test_plan_and_validate_show_the_verdict(broker: Broker, tmp_path: Path, unique: str) -> None:
    worker = write_worker(tmp_path, broker.bootstrap_servers, **LIMITS)
    connector = tmp_path / "c.properties"
    connector.write_text(
        f"name=p-{unique}\nconnector.class=DataGen\n"
        + "".join(
            f"{k}={v}\n"
            for k, v in {
                **RULES,
                "topic.creation.groups": "wide",
                "topic.creation.wide.include": "wide",
                "topic.creation.wide.partitions": "9",
            }.items()
        )
    )
    result = run_cli(
        "plan", str(connector), "--worker", str(worker), "--topic", f"narrow-{unique}", "--topic", "wide", "--json"
    )
    assert result.returncode == 0, result.stderr
    plan = {entry["topic"]: entry for entry in json.loads(result.stdout)}
    assert (plan[f"narrow-{unique}"]["create"], plan[f"narrow-{unique}"]["policy"]) == (True, "allowed")
    assert (plan["wide"]["create"], plan["wide"]["policy"]) == (False, "rejected")
    assert "9 partitions is above topic.creation.policy.max.partitions (4)" in plan["wide"]["reason"]

    config = rest_worker_config(broker.bootstrap_servers, tmp_path, **LIMITS)
    props = {
        "name": f"v-{unique}",
        "connector.class": "DataGen",
        **RULES,
        "topic.creation.groups": "wide",
        "topic.creation.wide.include": "wide",
        "topic.creation.wide.partitions": "9",
    }
    with rest_worker(config) as api:
        infos = api.client.put("/connector-plugins/DataGen/config/validate", json=props).json()
    errors = {c["value"]["name"]: c["value"]["errors"] for c in infos["configs"] if c["value"]["errors"]}
    assert infos["error_count"] == 1
    assert "9 partitions is above topic.creation.policy.max.partitions (4)" in errors["topic.creation.wide.include"][0]


def test_a_policy_class_that_cannot_be_used_stops_start_up_naming_the_key(tmp_path: Path) -> None:
    worker = write_worker(tmp_path, "127.0.0.1:1", **{"topic.creation.policy.class": "no.such.Policy"})
    result = run_cli("standalone", str(worker))
    assert result.returncode == 2
    assert "topic.creation.policy.class: Class no.such.Policy" in result.stderr
    assert "could not be found" in result.stderr
    worker = write_worker(tmp_path, "127.0.0.1:1", **{**LIMITS, "topic.creation.policy.max.partitions": "many"})
    result = run_cli("standalone", str(worker))
    assert result.returncode == 2 and "topic.creation.policy.max.partitions" in result.stderr
