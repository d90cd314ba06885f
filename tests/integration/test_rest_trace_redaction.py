"""Failure traces carry no secret out of the REST API: a task or a connector failing with its password in
the message shows `[hidden]` in its status, its task's status and `GET /connectors?expand=status`,
exactly as the log line about the failure does."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from tests.broker import Broker
from tests.integration.password_quoting_connectors import (
    PASSWORD_KEY,
    PasswordQuotingSource,
    PasswordQuotingStartSource,
)
from tests.integration.test_rest_harness import rest_worker, rest_worker_config, wait_for_states

SHOWN = "login refused for user admin with password [hidden]"


def _class_path(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def test_a_password_in_a_failure_message_is_hidden_in_every_status_response(
    broker: Broker, tmp_path: Path, unique: str, caplog: pytest.LogCaptureFixture
) -> None:
    secret = f"hunter2-{unique}"
    task_fails, start_fails = f"task-fails-{unique}", f"start-fails-{unique}"
    with caplog.at_level(logging.ERROR), rest_worker(rest_worker_config(broker.bootstrap_servers, tmp_path)) as api:
        for name, cls in ((task_fails, PasswordQuotingSource), (start_fails, PasswordQuotingStartSource)):
            created = api.client.put(
                f"/connectors/{name}/config", json={"connector.class": _class_path(cls), PASSWORD_KEY: secret}
            )
            assert created.status_code == 201, created.text
        wait_for_states(api, task_fails, "RUNNING", ["FAILED"])
        wait_for_states(api, start_fails, "FAILED", [])

        task_status = api.client.get(f"/connectors/{task_fails}/tasks/0/status")
        connector_status = api.client.get(f"/connectors/{task_fails}/status")
        failed_start = api.client.get(f"/connectors/{start_fails}/status")
        expanded = api.client.get("/connectors", params={"expand": "status"})
        for response in (task_status, connector_status, failed_start, expanded):
            assert response.status_code == 200, response.text
            assert secret not in response.text
        assert SHOWN in task_status.json()["trace"]
        assert SHOWN in connector_status.json()["tasks"][0]["trace"]
        assert SHOWN in failed_start.json()["connector"]["trace"]
        statuses = expanded.json()
        assert SHOWN in statuses[task_fails]["status"]["tasks"][0]["trace"]
        assert SHOWN in statuses[start_fails]["status"]["connector"]["trace"]

        # Redacted on the way out only: the worker still holds the real trace.
        _, trace = api.worker.get(task_fails).tasks[0].status.snapshot()
        assert trace is not None and secret in trace
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert SHOWN in logged and secret not in logged  # the same replacement as in the log lines
