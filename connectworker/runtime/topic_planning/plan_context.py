"""The task context of a dry run: the task's config and the committed offsets the real run would use,
as they were read when the dry run began (a dry-started task writes no offset)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connectworker.runtime.tasks.task_context import TaskOffsetReader, WorkerTaskContext


class PlanTaskContext(WorkerTaskContext):
    """The worker's task context over `committed` (this connector's offsets, keyed by canonical
    partition JSON; none by default)."""

    def __init__(self, props: Mapping[str, str], committed: Mapping[str, Any] | None = None) -> None:
        super().__init__(TaskOffsetReader(committed or {}), props)
