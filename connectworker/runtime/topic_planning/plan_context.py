"""The task context of a dry run: the task's config and the worker's committed offsets are not
consulted, so a planned task always starts from the beginning and writes nothing."""

from __future__ import annotations

from collections.abc import Mapping

from connectworker.runtime.tasks.task_context import TaskOffsetReader, WorkerTaskContext


class PlanTaskContext(WorkerTaskContext):
    """The worker's task context over no offsets."""

    def __init__(self, props: Mapping[str, str]) -> None:
        super().__init__(TaskOffsetReader({}), props)
