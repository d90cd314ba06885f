"""A remote task that ended FAILED is FAILED in the worker, whatever became of its status updates.

Its status travels on the task channel, which drops what arrives once the task's Spark job or task process
said it is done: a task whose start failed could end STOPPED, and `auto.restart.enabled` never saw it fail
(one run of tests/integration/test_spark.py::test_a_failed_spark_task_is_restarted_automatically timed out
on `task status STOPPED, automatic restarts 0`). The end of the job (or process) now carries the state."""

from __future__ import annotations

import io
import json
import pickle
import threading
from typing import Any

import pytest

from connectworker.runtime.runners import task_host
from connectworker.runtime.runners.remote_task import ended_failure
from connectworker.spark.runner.task_runner import SparkTaskRunner

TRACE = "Traceback (most recent call last):\nConnectError: the first start fails"


class Handle:
    attempt, name = "a-1", "flaky-0"

    def __init__(self) -> None:
        self.failure: object = "not ended"

    def ended_with(self, failure: str | None) -> None:
        self.failure = failure


class Context:
    """What a Spark job of one task returns, without Spark: the task ended in `state`."""

    def __init__(self, state: str) -> None:
        self.state = state

    def setJobGroup(self, *args: Any, **kwargs: Any) -> None:
        pass

    def parallelize(self, items: list[Any], slices: int) -> Context:
        return self

    def mapPartitions(self, function: Any) -> Context:
        return self

    def collect(self) -> list[dict[str, Any]]:
        return [{"task": "flaky-0", "state": self.state, "trace": TRACE if self.state == "FAILED" else None}]


class Channel:
    def unregister(self, attempt: str) -> None:
        pass


@pytest.mark.parametrize(("state", "failure"), [("FAILED", TRACE), ("STOPPED", None)])
def test_a_spark_job_s_result_sets_the_task_s_final_state(state: str, failure: str | None) -> None:
    runner = object.__new__(SparkTaskRunner)
    runner.context, runner.channel = Context(state), Channel()  # type: ignore[assignment]
    runner._lock, runner._running = threading.Lock(), {}
    handle = Handle()
    runner._run_job(handle, payload=None)  # type: ignore[arg-type]
    assert handle.failure == failure


@pytest.mark.parametrize(("state", "failure"), [("FAILED", TRACE), ("STOPPED", None)])
def test_a_task_process_says_a_task_ended_failed_with_its_trace(
    monkeypatch: pytest.MonkeyPatch, state: str, failure: str | None
) -> None:
    ended = {"task": "flaky-0", "state": state, "trace": TRACE if state == "FAILED" else None}
    monkeypatch.setattr(task_host, "run_remote_task", lambda payload: ended)
    control = io.BytesIO()
    host = task_host.TaskHost(control)
    host._run("a-1", "flaky-0", pickle.dumps(_Payload()))
    assert json.loads(control.getvalue()) == {"ended": "a-1", "failure": failure}


def test_a_failed_task_without_a_trace_is_still_named() -> None:
    assert ended_failure({"task": "flaky-0", "state": "FAILED", "trace": None}) == "Task flaky-0 FAILED"
    assert ended_failure({"task": "flaky-0", "state": "RUNNING", "trace": None}) is None


class _Payload:
    log_level = "INFO"
