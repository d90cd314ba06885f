"""Standalone's runner: each task on a daemon thread of the worker's own process."""

from __future__ import annotations

import threading
from collections.abc import Callable

from connectworker.runtime.tasks.source_task import WorkerSourceTask
from connectworker.runtime.tasks.task_factory import SourceTaskFactory
from connectworker.runtime.tasks.task_spec import TaskSpec


class ThreadTaskRunner:
    def __init__(self, factory: SourceTaskFactory) -> None:
        self.factory = factory

    def start(self, spec: TaskSpec, *, paused: bool, on_topics: Callable[[set[str]], None]) -> WorkerSourceTask:
        task = self.factory.build(spec, on_topics)
        if paused:
            task.pause()
        # A daemon thread: a task stuck in a connector's poll() beyond every deadline must not keep the
        # process alive after the worker gave up on it.
        threading.Thread(target=task.run, name=f"task-{task.name}", daemon=True).start()
        return task
