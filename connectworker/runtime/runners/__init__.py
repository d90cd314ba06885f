"""Where tasks run. `Worker` decides which tasks exist and in which state; a `TaskRunner` runs them
and hands back a `TaskHandle` to pause, resume, stop and watch each one.

- `ProcessTaskRunner` (process_runner.py, the standalone default): tasks in task processes of their
  own (task_host.py), bounded by `task.processes`.
- `ThreadTaskRunner` (thread_runner.py, `task.processes=0`): each task on a thread of the worker.
- The remote-task protocol, shared by task processes and `connectworker spark`'s Spark tasks: the task
  loop in another process (remote_task.py) reports to the worker over the task channel
  (task_channel.py), whose handle (remote_handle.py) carries the commands back and answers the task's
  topic-creation requests with the worker's own service (topic_creation/remote_gate.py).

May import: runtime's `tasks`, `offsets`, `topic_creation`, `observability` and `status`; never the
worker or the herder.
"""
