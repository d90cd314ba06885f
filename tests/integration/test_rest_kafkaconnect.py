"""A third-party Kafka Connect REST client from PyPI, `kafkaconnect` (lsst-sqre), manages connectworker
unchanged: its documented command line drives create, list, status, pause, resume, restart, delete."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from confluent_kafka.admin import AdminClient
from kafkaconnect.cli import main as kafkaconnect_cli

from tests.broker import Broker
from tests.integration.harness import wait_until
from tests.integration.test_rest_harness import (
    RestWorker,
    rest_worker,
    rest_worker_config,
    wait_for_records,
    wait_for_states,
)
from tests.kafka_helpers import delete_topics


def run(api: RestWorker, *args: str) -> str:
    result = CliRunner().invoke(kafkaconnect_cli, ["--connect", api.url, *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def run_json(api: RestWorker, *args: str) -> Any:
    return json.loads(run(api, *args))


def test_kafkaconnect_cli_manages_a_connector(broker: Broker, admin: AdminClient, tmp_path: Path, unique: str) -> None:
    name, topic = f"kc-{unique}", f"kc-{unique}"
    config_file = tmp_path / "datagen.json"
    config_file.write_text(
        json.dumps(
            {
                "connector.class": "DataGen",
                "topic.pattern": topic,
                "topic.count": "1",
                "rate": "100",
                "format": "string",
            }
        )
    )
    with rest_worker(rest_worker_config(broker.bootstrap_servers, tmp_path)) as api:
        # `upload` validates through /connector-plugins/{class}/config/validate, then PUTs the config.
        uploaded = run(api, "upload", str(config_file), "--name", name)
        assert uploaded.startswith(f"Uploading {name} connector configuration...")
        info = json.loads(uploaded.split("\n", 1)[1])
        # The connector starts in the background (docs/rest.md): its task is listed once it was made.
        assert info["name"] == name and info["tasks"] in ([], [{"connector": name, "task": 0}]), info
        wait_until(
            lambda: api.client.get(f"/connectors/{name}").json()["tasks"] == [{"connector": name, "task": 0}],
            30,
            "the connector's task listed",
        )
        assert wait_for_records(broker.bootstrap_servers, topic, 20) >= 20

        assert run_json(api, "list") == [name]
        status = run_json(api, "status", name)
        assert status["connector"]["state"] == "RUNNING" and status["type"] == "source"
        assert run_json(api, "config", name)["topic.pattern"] == topic
        assert run_json(api, "topics", name) == {name: {"topics": [topic]}}
        assert "connectworker.connectors.datagen.DataGenConnector" in [p["class"] for p in run_json(api, "plugins")]

        assert run(api, "pause", name).strip() == ""
        wait_for_states(api, name, "PAUSED", ["PAUSED"])
        assert run(api, "resume", name).strip() == ""
        wait_for_states(api, name, "RUNNING", ["RUNNING"])
        assert run(api, "restart", name).strip() == ""
        wait_for_states(api, name, "RUNNING", ["RUNNING"])

        assert run(api, "delete", name).strip() == ""
        assert run_json(api, "list") == []
        # The client reports a missing connector in its own words, from our 404.
        assert run(api, "status", name).strip() == f"Resource {api.url}/connectors/{name}/status not found."
    delete_topics(admin, [topic])
