"""Operators' signals handed to a connector's tasks by the herder's side (runtime/herder/operator_signals.py),
over the fake task runner: every RUNNING or PAUSED task gets the signal, or the one named; when none may
take it, the refusal says each task's state, and nothing is sent."""

from __future__ import annotations

import logging

import pytest

from connectworker.api.operator import OperatorSignal
from connectworker.config.connector_config import parse_connector_config
from connectworker.runtime.herder.errors import InvalidRequestError
from connectworker.runtime.herder.operator_signals import send_signal
from connectworker.runtime.status import State
from connectworker.runtime.worker import Worker
from tests.unit.fake_runner import FakeRunner

SIGNAL = OperatorSignal("ad-hoc", "pause-snapshot")


def start(worker: Worker, tasks: int = 3) -> None:
    worker.start_connector(
        parse_connector_config(
            {"name": "split", "connector.class": "tests.unit.fake_runner.SplitConnector", "tasks.max": str(tasks)},
            source="test",
        )
    )


def test_running_and_paused_tasks_get_the_signal_and_the_log_says_so(
    worker: Worker, runner: FakeRunner, caplog: pytest.LogCaptureFixture
) -> None:
    start(worker)
    runner.started[1].pause()
    runner.started[2].fail("boom")
    with caplog.at_level(logging.INFO, logger="connectworker.runtime.herder.operator_signals"):
        assert send_signal(worker.get("split"), SIGNAL) == [0, 1]
    assert [t.signals for t in runner.started] == [[SIGNAL], [SIGNAL], []]
    sent = [r.getMessage() for r in caplog.records if r.name == "connectworker.runtime.herder.operator_signals"]
    assert sent == [  # (the connector's start is logged too when an earlier test left INFO on)
        "Signal 'ad-hoc' (pause-snapshot) sent to task split-0",
        "Signal 'ad-hoc' (pause-snapshot) sent to task split-1",
    ]


def test_a_signal_for_one_task_goes_to_it_alone(worker: Worker, runner: FakeRunner) -> None:
    start(worker)
    assert send_signal(worker.get("split"), SIGNAL, task_id=2) == [2]
    assert [len(t.signals) for t in runner.started] == [0, 0, 1]


def test_without_a_running_or_paused_task_the_refusal_says_each_tasks_state(worker: Worker, runner: FakeRunner) -> None:
    start(worker, tasks=2)
    for task in runner.started:
        task.fail("boom")
    with pytest.raises(InvalidRequestError) as refused:
        send_signal(worker.get("split"), SIGNAL)
    assert str(refused.value) == (
        "Signal 'ad-hoc' (pause-snapshot) not sent: only a RUNNING or PAUSED task takes signals, "
        "and task 0 is FAILED, task 1 is FAILED"
    )
    with pytest.raises(InvalidRequestError) as missing:
        send_signal(worker.get("split"), SIGNAL, task_id=5)
    assert str(missing.value) == "Signal 'ad-hoc' (pause-snapshot) not sent: connector split has no task 5"
    assert [t.signals for t in runner.started] == [[], []]


def test_a_stopped_connector_has_no_task_to_signal(worker: Worker, runner: FakeRunner) -> None:
    start(worker, tasks=1)
    worker.stop_connector("split")
    assert worker.get("split").status.state is State.STOPPED
    with pytest.raises(InvalidRequestError) as refused:
        send_signal(worker.get("split"), SIGNAL)
    assert (
        str(refused.value) == "Signal 'ad-hoc' (pause-snapshot) not sent: connector split has no tasks (it is STOPPED)"
    )
