"""The worker's handle of a task that runs elsewhere (a task process, a Spark task): pause and resume are
shown and logged once each, however fast the task answers."""

from __future__ import annotations

import logging

import pytest

from connectworker.config.connector_config import parse_connector_config
from connectworker.connectors.datagen import DataGenTask
from connectworker.runtime.runners.remote_handle import RemoteTaskHandle
from connectworker.runtime.status import State
from connectworker.runtime.tasks.task_spec import TaskSpec


def handle() -> RemoteTaskHandle:
    config = parse_connector_config({"name": "fast", "connector.class": "DataGen"})
    return RemoteTaskHandle(
        TaskSpec(config, 0, dict(config.props), DataGenTask),
        lambda topics: None,
        paused=False,
        transactional_id=None,
        waiting_note="starting",
        topic_gate=lambda: None,  # type: ignore[arg-type,return-value]
        placement="a task process",
    )


def test_a_task_that_reports_its_new_state_before_the_command_returns_is_still_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    task = handle()
    task.on_report({"state": "RUNNING"})
    # the task process answers the command at once: its report arrives while `pause()` is sending it
    answers = {"run": "RUNNING", "pause": "PAUSED"}
    task.attach(lambda: task.on_report({"state": answers[task.command_now(None)]}))
    with caplog.at_level(logging.INFO, logger="connectworker.runtime.runners.remote_handle"):
        task.pause()
        assert task.status.state is State.PAUSED
        task.resume()
        assert task.status.state is State.RUNNING
    assert [r.getMessage() for r in caplog.records] == ["Task fast-0 paused", "Task fast-0 resumed"]
