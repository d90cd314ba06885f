"""The automatic-restart policy (`auto.restart.*`) against a fake worker and clock: Strimzi's schedule,
the limit and its note, the reset after a healthy run and by a REST restart, and the keys' validation."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from connectworker.api.errors import ConfigError
from connectworker.config.auto_restart import AutoRestartSettings
from connectworker.config.connector_config import parse_connector_config
from connectworker.runtime.herder.auto_restart import AutoRestarter
from connectworker.runtime.observability.metrics import WorkerMetrics
from connectworker.runtime.status import State, Status


@dataclass
class FakeTask:
    task_id: int
    status: Status = field(default_factory=Status)


class FakeWorker:
    """One connector, `c`, with one task; `fail_next` says how each restart leaves the task."""

    def __init__(self, props: dict[str, str]) -> None:
        self.running = SimpleNamespace(
            config=SimpleNamespace(props=props),
            resolved=None,
            target_state=State.RUNNING,
            status=Status(),
            tasks=[FakeTask(0)],
        )
        self.running.status.set(State.RUNNING)
        self.restarts: list[tuple[float, int | None]] = []
        self.clock = 0.0
        self.fails_after_restart = True

    def connector_names(self) -> list[str]:
        return ["c"]

    def get(self, name: str) -> Any:
        return self.running

    def fail_task(self, trace: str = "boom") -> None:
        self.running.tasks[0].status.set(State.FAILED, trace)

    def restart_task(self, name: str, task_id: int) -> None:
        self.restarts.append((self.clock, task_id))
        task = FakeTask(task_id)
        task.status.set(State.FAILED if self.fails_after_restart else State.RUNNING, "boom again")
        self.running.tasks[task_id] = task

    def restart_connector(self, name: str) -> None:
        self.restarts.append((self.clock, None))
        self.running.status.set(State.RUNNING)


def policy(worker: FakeWorker, metrics: WorkerMetrics | None = None, **kwargs: Any) -> AutoRestarter:
    return AutoRestarter(
        worker,
        worker.restart_connector,
        worker.restart_task,
        metrics,  # type: ignore[arg-type]
        clock=lambda: worker.clock,
        **kwargs,
    )


def run(worker: FakeWorker, restarter: AutoRestarter, until: float, step: float = 0.5) -> None:
    while worker.clock <= until:
        restarter.tick()
        worker.clock += step


def props(**extra: str) -> dict[str, str]:
    return {
        "name": "c",
        "connector.class": "DataGen",
        "auto.restart.enabled": "true",
        "auto.restart.backoff.base.ms": "1000",
        **extra,
    }


def test_the_schedule_is_strimzis_and_capped_at_an_hour() -> None:
    settings = AutoRestartSettings(True, None, 60_000)
    assert [settings.delay_ms(n) // 60_000 for n in range(9)] == [0, 2, 6, 12, 20, 30, 42, 56, 60]
    assert settings.delay_ms(1000) == 3_600_000
    assert AutoRestartSettings.from_props({}) == AutoRestartSettings(False, None, 60_000)


def test_a_failing_task_is_restarted_at_once_then_after_2_6_and_12_bases(caplog: pytest.LogCaptureFixture) -> None:
    worker = FakeWorker(props())
    metrics = WorkerMetrics()
    restarter = policy(worker, metrics)
    worker.fail_task()
    with caplog.at_level(logging.WARNING):
        run(worker, restarter, until=25)
    # at once, then 2, 6 and 12 bases (1 s) after the failure was seen: at the tick after the restart, 0.5 s on
    assert [at for at, _ in worker.restarts] == [0.0, 0.5 + 2, 3.0 + 6, 9.5 + 12]
    assert restarter.restarts("c", 0) == 4
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings[0].startswith("Restarting task c-0 automatically: restart 1 ")
    assert "next restart follows 2 s after" in warnings[0]
    assert "restart 4 " in warnings[3] and "follows 20 s after" in warnings[3]
    assert all(
        getattr(r, "connector", None) == "c" and getattr(r, "task", None) == 0
        for r in caplog.records
        if r.levelno == logging.WARNING
    )
    assert b'connectworker_auto_restarts_total{connector="c",task="0"} 4.0' in metrics.exposition()


def test_the_policy_gives_up_after_max_restarts_and_says_so_in_the_trace(caplog: pytest.LogCaptureFixture) -> None:
    worker = FakeWorker(props(**{"auto.restart.max.restarts": "2"}))
    metrics = WorkerMetrics()
    restarter = policy(worker, metrics)
    worker.fail_task()
    with caplog.at_level(logging.WARNING):
        run(worker, restarter, until=60)
    assert [at for at, _ in worker.restarts] == [0.0, 0.5 + 2]
    state, trace = worker.running.tasks[0].status.shown()
    assert state is State.FAILED and trace is not None
    assert trace.startswith("boom again\n\nAutomatic restarts gave up: still FAILED after 2 automatic restart(s)")
    assert "POST /connectors/c/tasks/0/restart" in trace
    assert worker.running.tasks[0].status.snapshot() == (State.FAILED, "boom again")  # the trace itself is kept
    restarts = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Restarting")]
    assert restarts[0].endswith(
        "restart 1 of at most 2 (auto.restart.enabled); should it fail again, the next restart follows 2 s after"
    )
    assert restarts[1].endswith(
        "restart 2 of at most 2 (auto.restart.enabled); the last one "
        "(auto.restart.max.restarts): should it fail again, it stays FAILED"
    )
    gave_up = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Giving up")]
    assert gave_up == [
        "Giving up on task c-0: still FAILED after 2 automatic restart(s) "
        "(auto.restart.max.restarts=2); it stays FAILED until restarted through the REST API"
    ]
    assert b'connectworker_auto_restart_give_ups_total{connector="c",task="0"} 1.0' in metrics.exposition()
    # the note stays while the task stays FAILED, whatever its task process reports again
    worker.running.tasks[0].status.set(State.FAILED, "boom, reported again")
    run(worker, restarter, until=worker.clock + 1)
    assert "Automatic restarts gave up" in (worker.running.tasks[0].status.shown()[1] or "")
    # a person's restart starts the count again
    restarter.reset("c", 0)
    assert worker.running.tasks[0].status.shown() == (State.FAILED, "boom, reported again")
    worker.fail_task()
    start = worker.clock
    run(worker, restarter, until=start + 3)
    assert [at - start for at, _ in worker.restarts[2:]] == [0.0, 0.5 + 2]


def test_a_task_that_runs_long_enough_starts_counting_again() -> None:
    worker = FakeWorker(props())
    worker.fails_after_restart = False
    restarter = policy(worker, healthy_after_s=30)
    worker.fail_task()
    run(worker, restarter, until=10)
    worker.fail_task()  # 10 s after its restart: the next restart waits 2 bases
    run(worker, restarter, until=13)
    assert [at for at, _ in worker.restarts] == [0.0, 10.5 + 2]
    assert restarter.restarts("c", 0) == 2
    run(worker, restarter, until=12 + 31)  # RUNNING for longer than healthy_after_s
    assert restarter.restarts("c", 0) == 0
    worker.fail_task()
    failed_at = worker.clock
    run(worker, restarter, until=failed_at + 1)
    assert worker.restarts[-1][0] == failed_at  # at once again


def test_a_failed_connector_is_restarted_and_nothing_is_without_the_key() -> None:
    worker = FakeWorker(props())
    restarter = policy(worker)
    worker.running.status.set(State.FAILED, "connector start failed")
    run(worker, restarter, until=1)
    assert worker.restarts == [(0.0, None)]
    off = FakeWorker({"name": "c", "connector.class": "DataGen"})
    quiet = policy(off)
    off.fail_task()
    off.running.status.set(State.FAILED, "x")
    run(off, quiet, until=5)
    assert off.restarts == []


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("auto.restart.enabled", "yes"),
        ("auto.restart.max.restarts", "-1"),
        ("auto.restart.max.restarts", "many"),
        ("auto.restart.backoff.base.ms", "0"),
    ],
)
def test_bad_values_are_refused_naming_the_key(key: str, value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_connector_config({"name": "c", "connector.class": "DataGen", key: value})
    assert list(caught.value.problems) == [key]


def test_the_keys_are_declared_so_no_unknown_key_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        parse_connector_config(
            {
                "name": "auto-keys",
                "connector.class": "DataGen",
                **{
                    "auto.restart.enabled": "true",
                    "auto.restart.max.restarts": "3",
                    "auto.restart.backoff.base.ms": "10",
                },
            }
        )
    assert "auto.restart" not in caplog.text


def test_the_supervisor_goes_on_after_a_failing_job_and_logs_it_once_a_minute(caplog: pytest.LogCaptureFixture) -> None:
    import threading

    from connectworker.runtime.herder.supervisor import Supervisor

    calls = {"bad": 0, "good": 0}
    enough = threading.Event()

    def bad() -> None:
        calls["bad"] += 1
        raise RuntimeError("tick failed")

    def good() -> None:
        calls["good"] += 1
        if calls["good"] >= 5:
            enough.set()

    with caplog.at_level(logging.ERROR):
        supervisor = Supervisor([bad, good], period_s=0.01).start()
        try:
            assert enough.wait(10)
        finally:
            supervisor.stop(timeout_s=10)
    assert calls["bad"] >= 5
    failures = [r for r in caplog.records if "supervisor failed" in r.getMessage()]
    assert len(failures) == 1 and "bad" in failures[0].getMessage()
