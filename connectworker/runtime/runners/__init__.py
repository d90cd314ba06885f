"""Where tasks run. `Worker` decides which tasks exist and in which state; a `TaskRunner` runs them
and hands back a `TaskHandle` to pause, resume, stop and watch each one.

- `ProcessTaskRunner` (process_runner.py, the standalone default): tasks in task processes of their
  own (task_host.py), bounded by `task.processes`.
- `ThreadTaskRunner` (thread_runner.py, `task.processes=0`): each task on a thread of the worker.
- The remote-task protocol, shared by task processes and `connectworker spark`'s Spark tasks: the task
  loop in another process (remote_task.py) reports to the worker over the task channel
  (task_channel.py), whose handle (remote_handle.py) carries the commands back and answers the task's
  topic-creation requests with the worker's own service (runners/remote_topic_gate.py).

May import: runtime's `tasks`, `offsets`, `topic_creation`, `observability` and `status`; never the
worker or the herder.

Its public surface (`__all__`) is what other packages (Spark's among them) use; names resolve on
first use, so importing the package imports none of its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from connectworker.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from connectworker.runtime.runners.placement import LOOPBACK, LocalPlacement, RunnerNeeds, TaskPlacement
    from connectworker.runtime.runners.remote_handle import RemoteTaskHandle
    from connectworker.runtime.runners.remote_start import RemoteStarts
    from connectworker.runtime.runners.remote_task import RemoteTask, ended_failure, run_remote_tasks
    from connectworker.runtime.runners.task_channel import TaskChannel
    from connectworker.runtime.runners.task_runner import TaskRunner

_EXPORTS = {
    "LOOPBACK": "placement",
    "LocalPlacement": "placement",
    "RemoteStarts": "remote_start",
    "RemoteTask": "remote_task",
    "RemoteTaskHandle": "remote_handle",
    "RunnerNeeds": "placement",
    "TaskChannel": "task_channel",
    "TaskPlacement": "placement",
    "TaskRunner": "task_runner",
    "ended_failure": "remote_task",
    "run_remote_tasks": "remote_task",
}
__all__ = [
    "LOOPBACK",
    "LocalPlacement",
    "RemoteStarts",
    "RemoteTask",
    "RemoteTaskHandle",
    "RunnerNeeds",
    "TaskChannel",
    "TaskPlacement",
    "TaskRunner",
    "ended_failure",
    "run_remote_tasks",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
