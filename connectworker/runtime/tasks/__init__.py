"""One source task's record path, from `poll()` to committed offsets.

`source_task.py` is the task (lifecycle, the loop, shutdown) built from `record_sending.py` (poll →
transforms → conversion → topic gate → produce) and `offset_commits.py` (acknowledged prefix →
offset store → `commit()`); `exactly_once_task.py` is the same task with transactions. The rest are
the pieces they use: task context, poll results and retry, record conversion, submitted records,
delivery reports, send failures, error tolerance, the transform chain, vanished topics, the
transaction context, and `task_factory.py`, which builds a task from its spec wherever it runs.

May import: api, config, converters, topics, transforms, and runtime's `offsets`, `clients`,
`observability` (log context, task counters and metrics), `topic_creation`, `status`. Never the herder,
the worker or rest.
"""
