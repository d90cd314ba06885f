"""The Worker over a fake task runner (tests/unit/fake_runner.py; the `runner` and `worker` fixtures are in
conftest.py): the seam carries the whole lifecycle (start, pause, resume,
restart, reconfigure, stop, failure) without a thread or a broker."""

from __future__ import annotations

import gc
import threading
from pathlib import Path

import pytest

from connectworker.api.errors import ConfigError, ConnectError
from connectworker.config.connector_config import ConnectorConfig, parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.offsets.file_store import FileOffsetStore
from connectworker.runtime.status import State
from connectworker.runtime.worker import Worker
from tests.integration.harness import wait_until
from tests.unit.fake_runner import FakeRunner, SplitConnector, SplitTask


def connector(tasks_max: int = 2, name: str = "split") -> ConnectorConfig:
    return parse_connector_config(
        {"name": name, "connector.class": "tests.unit.fake_runner.SplitConnector", "tasks.max": str(tasks_max)},
        source="test",
    )


def states(worker: Worker) -> dict[str, State]:
    return {label: status.state for label, status, _ in worker.status_snapshot()}


def test_starting_a_connector_hands_the_runner_one_spec_per_task(worker: Worker, runner: FakeRunner) -> None:
    worker.start_connector(connector(tasks_max=3))
    assert [(t.spec.task_id, t.props["share"], t.spec.task_class) for t in runner.started] == [
        (0, "0/3", SplitTask),
        (1, "1/3", SplitTask),
        (2, "2/3", SplitTask),
    ]
    assert runner.started[0].props["name"] == "split"  # the connector's props under the task's own
    assert states(worker) == {
        "connector split": State.RUNNING,
        "task split-0": State.RUNNING,
        "task split-1": State.RUNNING,
        "task split-2": State.RUNNING,
    }
    assert worker.get("split").topics == {"topic-of-split-0", "topic-of-split-1", "topic-of-split-2"}


def test_a_connector_created_paused_starts_its_tasks_paused(worker: Worker, runner: FakeRunner) -> None:
    worker.start_connector(connector(), initial_state=State.PAUSED)
    assert set(states(worker).values()) == {State.PAUSED}


def test_pause_and_resume_reach_every_task(worker: Worker, runner: FakeRunner) -> None:
    worker.start_connector(connector())
    worker.pause_connector("split")
    assert set(states(worker).values()) == {State.PAUSED}
    worker.resume_connector("split")
    assert set(states(worker).values()) == {State.RUNNING}
    assert len(runner.started) == 2  # nothing restarted


def test_restarting_one_task_stops_it_and_starts_the_same_spec_again(worker: Worker, runner: FakeRunner) -> None:
    worker.start_connector(connector())
    first, second = runner.started
    worker.restart_task("split", 1)
    assert second.stopped and not first.stopped
    again = runner.started[-1]
    assert (again.spec.task_id, again.props) == (1, second.props)
    assert worker.get("split").tasks == [first, again]


def test_a_paused_connectors_restarted_task_stays_paused(worker: Worker, runner: FakeRunner) -> None:
    worker.start_connector(connector())
    worker.pause_connector("split")
    worker.restart_task("split", 0)
    assert runner.started[-1].status.state is State.PAUSED


def test_reconfiguring_stops_every_task_and_starts_the_new_set(worker: Worker, runner: FakeRunner) -> None:
    worker.start_connector(connector(tasks_max=2))
    old = list(runner.started)
    worker.restart_connector("split", connector(tasks_max=3))
    assert all(task.stopped for task in old)
    assert [t.props["share"] for t in worker.get("split").tasks] == ["0/3", "1/3", "2/3"]


def test_a_failed_task_shows_failed_and_a_restart_runs_it_again(worker: Worker, runner: FakeRunner) -> None:
    worker.start_connector(connector())
    runner.started[0].fail("poll() raised ValueError: boom")
    assert states(worker)["task split-0"] is State.FAILED
    assert worker.get("split").tasks[0].status.snapshot()[1] == "poll() raised ValueError: boom"
    worker.restart_task("split", 0)
    assert states(worker)["task split-0"] is State.RUNNING


def test_a_task_the_runner_cannot_start_is_failed_with_the_reason_and_a_restart_tries_again(
    worker: Worker, runner: FakeRunner
) -> None:
    runner.refuse = lambda spec: ValueError("value.converter: no such class") if spec.task_id == 1 else None
    worker.start_connector(connector())
    assert states(worker) == {
        "connector split": State.RUNNING,
        "task split-0": State.RUNNING,
        "task split-1": State.FAILED,
    }
    trace = worker.get("split").tasks[1].status.snapshot()[1]
    assert trace is not None and trace.startswith("Task split-1 could not be started: value.converter: no such class")
    runner.refuse = lambda spec: None
    worker.restart_task("split", 1)
    assert states(worker)["task split-1"] is State.RUNNING


def test_stopping_a_connector_stops_its_tasks_and_resume_starts_them_again(worker: Worker, runner: FakeRunner) -> None:
    worker.start_connector(connector())
    old = list(runner.started)
    worker.stop_connector("split")
    assert all(task.stopped for task in old)
    assert states(worker) == {"connector split": State.STOPPED}
    worker.resume_connector("split")
    assert len(runner.started) == 4 and set(states(worker).values()) == {State.RUNNING}


def test_reset_topics_reaches_every_task(worker: Worker, runner: FakeRunner) -> None:
    worker.start_connector(connector())
    worker.reset_topics("split")
    assert worker.get("split").topics == set()
    assert all(task.reported_again for task in runner.started)


def test_removing_a_connector_stops_its_tasks_and_forgets_it(worker: Worker, runner: FakeRunner) -> None:
    worker.start_connector(connector())
    worker.remove_connector("split")
    assert all(task.stopped for task in runner.started)
    assert worker.connector_names() == []


def test_the_metrics_read_each_tasks_stats_through_its_handle(worker: Worker, runner: FakeRunner) -> None:
    worker.metrics.watch(worker.status_snapshot, None)
    worker.start_connector(connector(tasks_max=1))
    text = worker.metrics.exposition().decode()
    assert 'source_record_active_count{connector="split",task="0"} 3.0' in text


class GreedyConnector(SplitConnector):
    """Returns twice as many task configs as it may (a connector bug KIP-1004 stops)."""

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{"share": str(i)} for i in range(2 * max_tasks)]


def limited_worker(tmp_path: Path, runner: FakeRunner, **limits: str) -> Worker:
    config = WorkerConfig.from_properties({"offset.storage.file.filename": str(tmp_path / "offsets.json"), **limits})
    return Worker(
        config,
        FileOffsetStore(tmp_path / "offsets.json"),
        lambda _: None,  # type: ignore[arg-type,return-value]
        runner=runner,
    )


def test_a_connector_asking_for_more_tasks_than_one_connector_may_is_refused_naming_the_keys(
    tmp_path: Path, runner: FakeRunner
) -> None:
    worker = limited_worker(tmp_path, runner, **{"worker.tasks.max": "8", "connector.tasks.max.limit": "4"})
    with pytest.raises(ConfigError) as refused:
        worker.start_connector(connector(tasks_max=100_000))
    assert set(refused.value.problems) == {"tasks.max"}
    assert (
        "100000 is more tasks than this worker lets one connector run: at most 4 (the worker's "
        "connector.tasks.max.limit)" in refused.value.problems["tasks.max"]
    )
    assert worker.connector_names() == [] and runner.started == []


def test_connectors_together_stay_within_worker_tasks_max(tmp_path: Path, runner: FakeRunner) -> None:
    worker = limited_worker(tmp_path, runner, **{"worker.tasks.max": "5"})
    worker.start_connector(connector(tasks_max=3, name="first"))
    with pytest.raises(ConfigError) as refused:
        worker.start_connector(connector(tasks_max=3, name="second"))
    assert (
        "the worker runs at most 5 tasks (worker.tasks.max) and its other connectors take 3, so this "
        "connector may ask for at most 2"
    ) in refused.value.problems["tasks.max"]
    worker.start_connector(connector(tasks_max=2, name="second"))
    assert len(runner.started) == 5
    with pytest.raises(ConfigError):  # reconfiguring counts the others, not the connector's own old tasks
        worker.restart_connector("second", connector(tasks_max=3, name="second"))
    worker.restart_connector("first", connector(tasks_max=3, name="first"))


def test_the_default_limit_is_32_tasks_per_cpu_core(tmp_path: Path) -> None:
    import os

    config = WorkerConfig.from_properties({"offset.storage.file.filename": str(tmp_path / "o.json")})
    assert config.max_tasks == 32 * (os.cpu_count() or 1) == config.max_tasks_per_connector


def test_more_task_configs_than_tasks_max_fail_the_connector_as_kip_1004_says(
    worker: Worker, runner: FakeRunner
) -> None:
    greedy = parse_connector_config(
        {"name": "greedy", "connector.class": f"{__name__}.GreedyConnector", "tasks.max": "2"}, source="test"
    )
    worker.start_connector(greedy)
    state, trace = worker.get("greedy").status.snapshot()
    assert state is State.FAILED and trace is not None
    assert "generated 4 task configs, more than its tasks.max (2)" in trace and "tasks.max.enforce=false" in trace
    assert runner.started == []


def test_tasks_max_enforce_false_runs_them_all_within_the_worker_limit(tmp_path: Path, runner: FakeRunner) -> None:
    worker = limited_worker(tmp_path, runner, **{"worker.tasks.max": "5"})
    lenient = {"connector.class": f"{__name__}.GreedyConnector", "tasks.max.enforce": "false"}
    worker.start_connector(parse_connector_config({"name": "ok", "tasks.max": "2", **lenient}, source="test"))
    assert len(runner.started) == 4
    worker.start_connector(parse_connector_config({"name": "too-many", "tasks.max": "1", **lenient}, source="t"))
    state, trace = worker.get("too-many").status.snapshot()
    assert state is State.FAILED and trace is not None and "worker.tasks.max" in trace


def test_a_connector_started_in_the_background_is_unassigned_until_it_runs(worker: Worker, runner: FakeRunner) -> None:
    with worker._lock:  # a lifecycle change in progress holds the start back
        started = worker.start_connector(connector(), wait=False)
        assert started is not None
        assert states(worker) == {"connector split": State.UNASSIGNED}
    started.result(timeout=5)
    assert set(states(worker).values()) == {State.RUNNING} and len(runner.started) == 2


def test_a_stop_drops_starts_still_queued(worker: Worker, runner: FakeRunner) -> None:
    with worker._lock:
        worker.start_connector(connector(name="queued"), wait=False)
        stopper = threading.Thread(target=worker.stop)
        stopper.start()
        wait_until(lambda: worker._stopping.is_set(), 5, "the stop to begin")
    stopper.join(5)
    assert not stopper.is_alive()
    assert runner.started == []  # the queued start never ran
    with pytest.raises(ConnectError, match="stopping"):
        worker.start_connector(connector(name="late"))


@pytest.mark.parametrize(
    ("thresholds", "collections"),
    [
        # an application embedding the worker: its collector frees stopped tasks on its own schedule; a
        # full collection over its heap took 1-3.7 s per connector stop in this suite's processes
        ((700, 10, 10), {"removed": 0, "stopped": 0}),
        # the worker command's settings (cycles could wait hours): one collection per change, and one
        # for a worker's whole stop, not one per connector
        ((100_000, 50, 100), {"removed": 1, "stopped": 1}),
    ],
)
def test_stopped_tasks_are_collected_at_once_only_under_the_worker_commands_collector_settings(
    worker: Worker,
    runner: FakeRunner,
    monkeypatch: pytest.MonkeyPatch,
    thresholds: tuple[int, int, int],
    collections: dict[str, int],
) -> None:
    calls: list[str] = []
    doing = "starting"
    monkeypatch.setattr(gc, "collect", lambda generation=2: calls.append(doing) or 0)
    monkeypatch.setattr(gc, "get_threshold", lambda: thresholds)
    for name in ("one", "two", "three"):
        worker.start_connector(connector(name=name))
    doing = "removed"
    worker.remove_connector("one")
    doing = "stopped"
    worker.stop()
    assert {what: calls.count(what) for what in ("removed", "stopped")} == collections
    assert len(runner.started) == 6 and all(task.stopped for task in runner.started)
