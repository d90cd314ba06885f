"""Unit-testing kit for connector authors: run a `SourceTask` without a worker or a broker.

```python
from connectworker.testing import TaskHarness

def test_my_task_reads_three_lines(tmp_path):
    harness = TaskHarness(MyTask, {"topic": "lines", "file": str(tmp_path / "in.txt")})
    records = harness.run(records=3)
    assert [r.value for r in records] == ["a", "b", "c"]
```

- `TaskHarness` drives a task as the worker does (initialize, start, poll, stop, commit_record,
  commit), collects its records, keeps the offsets the worker would commit, and plans its topics
  with the connector's `topic.creation.*` rules and the task's `settings_for_new_topic`.
- `InMemoryTaskContext` is the context a task gets, over props and committed offsets in memory, for
  tests that call the task's methods themselves; `RecordedTransactions` records the commits and
  aborts a task asks for with `transaction.boundary=connector`; `RecordedConnectorContext` records a
  connector's task reconfiguration requests and errors (`SourceConnector.initialize`).
- `connector_task_props` builds the task props of a connector, as the worker does.
- `BadPollResultError`, `InvalidSourceOffsetError` and `TopicCreationError` are what the harness (and
  the worker) raise for a poll result, an offset or a `settings_for_new_topic` answer it cannot use.

The kit uses the worker's own code for what it checks (poll results, storable offsets, the rule
parser, the topic-creation dry run), so a test sees what the worker would do.
"""

from connectworker.runtime.offsets.source_offsets import InvalidSourceOffsetError
from connectworker.runtime.tasks.poll_results import BadPollResultError
from connectworker.testing.context import (
    InMemoryTaskContext,
    Offsets,
    RecordedConnectorContext,
    RecordedTransactions,
    offsets_by_key,
    partition_key,
)
from connectworker.testing.harness import TaskHarness, connector_task_props
from connectworker.testing.topic_plan import TopicPlan, parse_rules
from connectworker.topics.decisions import TopicCreationError

__all__ = [
    "BadPollResultError",
    "InMemoryTaskContext",
    "InvalidSourceOffsetError",
    "Offsets",
    "RecordedConnectorContext",
    "RecordedTransactions",
    "TaskHarness",
    "TopicCreationError",
    "TopicPlan",
    "connector_task_props",
    "offsets_by_key",
    "parse_rules",
    "partition_key",
]
