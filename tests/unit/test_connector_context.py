"""A connector's `ConnectorContext` through the Worker (over the fake task runner): a reconfiguration
request restarts the tasks only when their configs changed, and `raise_error` fails the connector."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from connectworker.api.config_def import ConfigDef
from connectworker.api.connector import SourceConnector
from connectworker.api.errors import ConnectError
from connectworker.api.task import SourceTask
from connectworker.config.connector_config import ConnectorConfig, parse_connector_config
from connectworker.runtime.status import State
from connectworker.runtime.worker import Worker
from connectworker.testing import RecordedConnectorContext, connector_task_props
from tests.integration.harness import wait_until
from tests.unit.fake_runner import FakeRunner, SplitTask


class ShardConnector(SourceConnector):
    """One task per shard; the test changes `shards` and asks for a reconfiguration, as a table source
    does when a table appears."""

    shards: list[str] = ["a"]
    instances: list[ShardConnector] = []
    fail_in_start: BaseException | None = None

    def version(self) -> str:
        return "1"

    def config_def(self) -> ConfigDef:
        return ConfigDef()

    def start(self, props: dict[str, str]) -> None:
        ShardConnector.instances.append(self)
        self.stopped = False
        if ShardConnector.fail_in_start is not None:
            self.context.raise_error(ShardConnector.fail_in_start)

    def task_class(self) -> type[SourceTask]:
        return SplitTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{"shard": shard} for shard in ShardConnector.shards[:max_tasks]]

    def stop(self) -> None:
        self.stopped = True


@pytest.fixture(autouse=True)
def fresh_shards() -> Iterator[None]:
    ShardConnector.shards, ShardConnector.instances, ShardConnector.fail_in_start = ["a"], [], None
    yield


def shard_connector(tasks_max: int = 4) -> ConnectorConfig:
    return parse_connector_config(
        {"name": "shards", "connector.class": f"{__name__}.ShardConnector", "tasks.max": str(tasks_max)}, source="test"
    )


def shards_running(worker: Worker) -> list[str]:
    return [task.props["shard"] for task in worker.get("shards").tasks]


def test_a_new_shard_and_a_reconfiguration_request_restart_the_tasks_with_the_connector_kept(
    worker: Worker, runner: FakeRunner
) -> None:
    worker.start_connector(shard_connector())
    first = runner.started[0]
    ShardConnector.shards = ["a", "b"]
    ShardConnector.instances[0].context.request_task_reconfiguration()
    wait_until(lambda: shards_running(worker) == ["a", "b"], timeout=5, what="tasks for both shards")
    assert first.stopped  # the old task stopped (committing its offsets) before the new set started
    assert len(ShardConnector.instances) == 1 and not ShardConnector.instances[0].stopped
    assert worker.get("shards").status.state is State.RUNNING


def test_a_request_with_unchanged_task_configs_restarts_nothing(worker: Worker, runner: FakeRunner) -> None:
    worker.start_connector(shard_connector())
    ShardConnector.instances[0].context.request_task_reconfiguration()
    ShardConnector.shards = ["a", "b"]  # a change after a second request proves the first was handled
    ShardConnector.instances[0].context.request_task_reconfiguration()
    wait_until(lambda: len(runner.started) == 3, timeout=5, what="the second request's restart")
    assert [t.props["shard"] for t in runner.started] == ["a", "a", "b"]  # the first request started nothing


def test_a_paused_connector_is_reconfigured_with_its_new_tasks_paused(worker: Worker, runner: FakeRunner) -> None:
    worker.start_connector(shard_connector())
    worker.pause_connector("shards")
    ShardConnector.shards = ["a", "b"]
    ShardConnector.instances[0].context.request_task_reconfiguration()
    wait_until(lambda: len(worker.get("shards").tasks) == 2, timeout=5, what="two tasks")
    assert {task.status.state for task in worker.get("shards").tasks} == {State.PAUSED}


def test_a_request_from_a_stopped_instance_changes_nothing(worker: Worker, runner: FakeRunner) -> None:
    worker.start_connector(shard_connector())
    old = ShardConnector.instances[0]
    worker.restart_connector("shards")
    ShardConnector.shards = ["a", "b"]
    old.context.request_task_reconfiguration()
    done = threading.Event()
    worker._background().submit(done.set)  # queued behind the request
    assert done.wait(5)
    assert shards_running(worker) == ["a"]


def test_raise_error_fails_the_connector_with_the_error_and_a_restart_runs_it_again(
    worker: Worker, runner: FakeRunner
) -> None:
    worker.start_connector(shard_connector())
    ShardConnector.instances[0].context.raise_error(ConnectError("lost the database: connection refused"))
    status = worker.get("shards").status
    assert status.state is State.FAILED
    assert "lost the database: connection refused" in (status.snapshot()[1] or "")
    worker.restart_connector("shards")
    assert worker.get("shards").status.state is State.RUNNING


def test_raise_error_inside_start_is_a_failed_start(worker: Worker, runner: FakeRunner) -> None:
    ShardConnector.fail_in_start = ConnectError("table.whitelist names no table of the database")
    worker.start_connector(shard_connector())
    status = worker.get("shards").status
    assert status.state is State.FAILED
    assert "table.whitelist names no table" in (status.snapshot()[1] or "")
    assert runner.started == [] and ShardConnector.instances[0].stopped


def test_a_context_used_before_initialize_names_the_call() -> None:
    with pytest.raises(ConnectError, match=r"initialize\(context\) is called before start"):
        ShardConnector().context.request_task_reconfiguration()


def test_the_testing_kit_hands_connectors_a_recording_context() -> None:
    ShardConnector.fail_in_start = ConnectError("bad credentials for connection.user")
    with pytest.raises(ConnectError, match="bad credentials"):
        connector_task_props(ShardConnector, {"tasks.max": "2"})
    context = RecordedConnectorContext()
    ShardConnector.fail_in_start = None
    instance = ShardConnector()
    instance.initialize(context)
    instance.start({})
    threading.Timer(0.05, instance.context.request_task_reconfiguration).start()
    assert context.wait_for_reconfiguration(timeout=5)
