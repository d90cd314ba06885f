"""A task runner whose tasks do nothing but hold a state the test drives, for tests of the Worker's
lifecycle without a thread or a broker (the `runner` and `worker` fixtures of conftest.py use it)."""

from __future__ import annotations

from collections.abc import Callable

from connectworker.api.config_def import ConfigDef
from connectworker.api.connector import SourceConnector
from connectworker.api.operator import OperatorSignal
from connectworker.api.record import SourceRecord
from connectworker.api.task import SourceTask
from connectworker.runtime.observability.task_stats import TaskStats
from connectworker.runtime.status import State, Status
from connectworker.runtime.tasks.task_spec import TaskSpec


class SplitTask(SourceTask):
    def version(self) -> str:
        return "1"

    def start(self, props: dict[str, str]) -> None:
        pass

    def poll(self) -> list[SourceRecord] | None:
        return None

    def stop(self) -> None:
        pass


class SplitConnector(SourceConnector):
    """One task per `tasks.max`, each told its share."""

    def version(self) -> str:
        return "1"

    def config_def(self) -> ConfigDef:
        return ConfigDef()

    def start(self, props: dict[str, str]) -> None:
        self.props = props

    def task_class(self) -> type[SourceTask]:
        return SplitTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{"share": f"{i}/{max_tasks}"} for i in range(max_tasks)]

    def stop(self) -> None:
        pass


class FakeTask:
    """A task handle whose life the test drives: nothing runs."""

    transactional_id = None
    worker_id = None

    def __init__(self, spec: TaskSpec, paused: bool) -> None:
        self.spec = spec
        self.connector, self.task_id, self.name, self.props = spec.connector, spec.task_id, spec.name, spec.props
        self.status = Status()
        self.status.set(State.PAUSED if paused else State.RUNNING)
        self.stopped = False
        self.reported_again = False
        self.signals: list[OperatorSignal] = []

    def pause(self) -> None:
        if self.status.state is State.RUNNING:
            self.status.set(State.PAUSED)

    def resume(self) -> None:
        if self.status.state is State.PAUSED:
            self.status.set(State.RUNNING)

    def stop(self) -> None:
        self.stopped = True
        if self.status.state is not State.FAILED:
            self.status.set(State.STOPPED)

    def join(self, timeout: float | None) -> bool:
        return self.stopped

    def forget_reported_topics(self) -> None:
        self.reported_again = True

    def signal(self, signal: OperatorSignal) -> None:
        self.signals.append(signal)

    def stats(self) -> TaskStats:
        return TaskStats(produced=10, committed_records=7)

    def fail(self, message: str) -> None:
        self.status.set(State.FAILED, message)


class FakeRunner:
    def __init__(self) -> None:
        self.started: list[FakeTask] = []
        self.refuse: Callable[[TaskSpec], Exception | None] = lambda spec: None

    def start(self, spec: TaskSpec, *, paused: bool, on_topics: Callable[[set[str]], None]) -> FakeTask:
        refusal = self.refuse(spec)
        if refusal is not None:
            raise refusal
        task = FakeTask(spec, paused)
        on_topics({f"topic-of-{spec.name}"})
        self.started.append(task)
        return task
