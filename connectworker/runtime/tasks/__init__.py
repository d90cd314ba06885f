"""One source task's record path, from `poll()` to committed offsets.

`source_task.py` is the task (lifecycle, the loop, shutdown, and the hooks its variations override),
holding a `RecordSender` (`record_sending.py`: poll → transforms → conversion → topic gate → produce)
and an `OffsetCommitter` (`offset_commits.py`: acknowledged offsets → offset store);
`exactly_once_task.py` is the same task with transactions, through the hooks. `task_parts.py` builds a
task's converters, error handling, transforms and topic gate for every placement (the worker's
threads, task processes, Spark tasks, the `connect-source` format), and `task_factory.py` a task from
its spec wherever it runs. The rest are the pieces they use: task context, poll results and retry,
record conversion, submitted records, delivery reports, send failures, error tolerance, the transform
chain, the transaction context.

May import: api, config, converters, topics, transforms, and runtime's `offsets`, `clients`,
`observability` (log context, task counters and metrics), `topic_creation`, `status`. Never the herder,
the worker or rest.

Its public surface (`__all__`) is what other packages (Spark's among them) use; names resolve on
first use, so importing the package imports none of its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from connectworker.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from connectworker.runtime.tasks.poll_results import check_poll_result
    from connectworker.runtime.tasks.record_conversion import ConvertedHeaders, ConvertedPoll, RecordSerializer
    from connectworker.runtime.tasks.task_context import TaskOffsetReader, WorkerTaskContext
    from connectworker.runtime.tasks.task_factory import TaskMetricsFactory, TopicGateFactory
    from connectworker.runtime.tasks.task_parts import ConverterDefaults, TaskParts
    from connectworker.runtime.tasks.task_spec import TaskSpec

_EXPORTS = {
    "ConvertedHeaders": "record_conversion",
    "ConvertedPoll": "record_conversion",
    "ConverterDefaults": "task_parts",
    "RecordSerializer": "record_conversion",
    "TaskMetricsFactory": "task_factory",
    "TaskOffsetReader": "task_context",
    "TaskParts": "task_parts",
    "TaskSpec": "task_spec",
    "TopicGateFactory": "task_factory",
    "WorkerTaskContext": "task_context",
    "check_poll_result": "poll_results",
}
__all__ = [
    "ConvertedHeaders",
    "ConvertedPoll",
    "ConverterDefaults",
    "RecordSerializer",
    "TaskMetricsFactory",
    "TaskOffsetReader",
    "TaskParts",
    "TaskSpec",
    "TopicGateFactory",
    "WorkerTaskContext",
    "check_poll_result",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
