"""Where a worker's tasks run, as the standalone runtime sees it: a `TaskPlacement` is asked to
prepare when the runtime starts, for its `TaskRunner` once topic creation exists, and to close once the
worker stopped its tasks. `LocalPlacement` is the standalone worker's: task processes of its own
(`task.processes`, by default one per core), or with `task.processes=0` the worker's threads.
`connectworker spark` brings its own (Spark tasks: `connectworker.spark.runner.spark_placement`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from connectworker.config.connector_config import ConnectorConfig
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.offsets.storage_settings import offset_storage_settings
from connectworker.runtime.runners.fork_server import TaskForkServer
from connectworker.runtime.runners.process_runner import ProcessTaskRunner
from connectworker.runtime.runners.task_channel import TaskChannel
from connectworker.runtime.runners.task_runner import TaskRunner
from connectworker.runtime.tasks.task_factory import TaskMetricsFactory, TopicGateFactory

log = logging.getLogger(__name__)

__all__ = ["LOOPBACK", "LocalPlacement", "RunnerNeeds", "TaskPlacement"]

LOOPBACK = "127.0.0.1"  # where task processes on this host reach the worker's task channel


@dataclass(frozen=True)
class RunnerNeeds:
    """What the runtime hands a placement for its runner: the worker's config (with the embedded broker's
    address, once known), the connectors the command line starts, each connector's topic gate and each
    task's metrics."""

    config: WorkerConfig
    file_connectors: Sequence[ConnectorConfig]
    gates: TopicGateFactory
    task_metrics: TaskMetricsFactory


class TaskPlacement(Protocol):
    """Where tasks run. The runtime calls `prepare` first thing in `start()`, `open_runner` once topic
    creation exists, and `close` once the worker stopped its tasks, or when start-up failed at any point
    (so `close` may come without `open_runner`, and more than once)."""

    def prepare(self, config: WorkerConfig) -> None:
        """Begin what takes long (a fork server, a JVM) while the runtime reaches the cluster."""
        ...

    def spans_hosts(self, config: WorkerConfig) -> bool:
        """Tasks may run on other hosts: then files on this host (the offsets file, the connectors saved
        through REST) are not what every task, or a driver restarted elsewhere, sees."""
        ...

    def shares_offsets_file(self, config: WorkerConfig) -> bool:
        """Tasks in other processes write the offsets file too: each flush must merge under a lock."""
        ...

    def open_runner(self, needs: RunnerNeeds) -> TaskRunner | None:
        """The runner of the worker's tasks; None: the worker runs them on threads of its own."""
        ...

    def close(self) -> None:
        """Release what `prepare` and `open_runner` hold. Raises `ConnectError` saying what failed."""
        ...


class LocalPlacement:
    """Task processes on this host (`task.processes`), or the worker's threads with `task.processes=0`.

    `fork_server`: one started before the configuration was read (the command line forks it from itself
    first thing: `fork_server.py`); it is this placement's from now on, and closed at once if the worker
    runs no task processes."""

    def __init__(self, fork_server: TaskForkServer | None = None) -> None:
        self._forks = fork_server
        self._channel: TaskChannel | None = None
        self.task_processes: ProcessTaskRunner | None = None

    def prepare(self, config: WorkerConfig) -> None:
        if config.task_process_count == 0:
            forks, self._forks = self._forks, None
            if forks is not None:
                forks.close(0)
        elif self._forks is None:
            # Now: a spawned server imports the task runtime while the broker and the cluster answer.
            self._forks = TaskForkServer.for_worker()

    def spans_hosts(self, config: WorkerConfig) -> bool:
        return False

    def shares_offsets_file(self, config: WorkerConfig) -> bool:
        return config.task_process_count > 0

    def open_runner(self, needs: RunnerNeeds) -> TaskRunner | None:
        config = needs.config
        if config.task_process_count == 0:
            return None
        assert self._forks is not None  # prepare() started it
        self._channel = TaskChannel(LOOPBACK)
        self.task_processes = ProcessTaskRunner(
            config, offset_storage_settings(config), self._channel, needs.gates, self._forks, needs.task_metrics
        )
        self._forks = None  # the runner's now
        log.info("Tasks run in up to %d task process(es) (task.processes)", self.task_processes.limit)
        return self.task_processes

    def close(self) -> None:
        runner, self.task_processes = self.task_processes, None
        if runner is not None:
            runner.close()
        channel, self._channel = self._channel, None
        if channel is not None:
            channel.close()
        forks, self._forks = self._forks, None
        if forks is not None:  # start-up failed before the runner took it
            forks.close(0)
