"""The handle of a task its runner could not start (its converter's config is wrong, its class cannot be
built, …): FAILED with the reason, as Kafka shows such a task, until a restart tries again."""

from __future__ import annotations

import traceback

from connectworker.api.operator import OperatorSignal
from connectworker.runtime.observability.task_stats import TaskStats
from connectworker.runtime.status import State, Status
from connectworker.runtime.tasks.task_spec import TaskSpec


class UnstartedTask:
    transactional_id: str | None = None
    worker_id: str | None = None  # runs in the worker's own process

    def __init__(self, spec: TaskSpec, error: BaseException) -> None:
        self.connector, self.task_id, self.name, self.props = spec.connector, spec.task_id, spec.name, spec.props
        self.status = Status()
        message = str(error) or type(error).__name__
        self.status.set(
            State.FAILED,
            f"Task {spec.name} could not be started: {message}\n" + "".join(traceback.format_exception(error)),
        )

    def pause(self) -> None:
        """Nothing runs: nothing to pause."""

    def resume(self) -> None:
        """Nothing runs: a restart starts it."""

    def stop(self) -> None:
        """Nothing runs: nothing to stop."""

    def join(self, timeout: float | None) -> bool:
        return True

    def forget_reported_topics(self) -> None:
        """It reported none."""

    def signal(self, signal: OperatorSignal) -> None:
        """Nothing runs to read it (the herder signals only running and paused tasks)."""

    def stats(self) -> TaskStats:
        return TaskStats()
