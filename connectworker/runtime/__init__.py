"""The worker runtime: tasks, offsets, topic creation at run time, and the herder that owns the lifecycle.

- `Worker` runs connectors and their tasks (`tasks/source_task.py` is one task's loop);
- `StandaloneHerder` applies lifecycle requests (create, reconfigure, pause, restart, delete) and
  persists them; the REST API and the CLI both drive it; `StandaloneRuntime` assembles a standalone
  worker (broker, offset store, topic creation, herder);
- offsets: `OffsetBackingStore` with `FileOffsetStore` and `KafkaOffsetStore`;
  `WorkerTaskContext`/`TaskOffsetReader` give tasks their committed offsets;
- `RecordSerializer` (`tasks/record_conversion.py`) turns a poll into bytes, shared by the task loop
  and the Spark source.

Names resolve on first use, so importing one module does not import them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from connectworker.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from connectworker.runtime.connector_context import DetachedConnectorContext
    from connectworker.runtime.herder.errors import ConnectorExistsError, InvalidRequestError
    from connectworker.runtime.herder.herder import StandaloneHerder
    from connectworker.runtime.herder.standalone import StandaloneRuntime
    from connectworker.runtime.offsets.backing_store import OffsetBackingStore
    from connectworker.runtime.offsets.file_store import FileOffsetStore
    from connectworker.runtime.offsets.kafka_store import KafkaOffsetStore
    from connectworker.runtime.status import State, Status
    from connectworker.runtime.tasks.record_conversion import RecordSerializer
    from connectworker.runtime.tasks.task_context import TaskOffsetReader, WorkerTaskContext
    from connectworker.runtime.topic_planning.plan import plan_topics
    from connectworker.runtime.worker import UnknownConnectorError, Worker

_EXPORTS = {
    "ConnectorExistsError": "herder.errors",
    "DetachedConnectorContext": "connector_context",
    "FileOffsetStore": "offsets.file_store",
    "InvalidRequestError": "herder.errors",
    "KafkaOffsetStore": "offsets.kafka_store",
    "OffsetBackingStore": "offsets.backing_store",
    "RecordSerializer": "tasks.record_conversion",
    "StandaloneHerder": "herder.herder",
    "StandaloneRuntime": "herder.standalone",
    "State": "status",
    "Status": "status",
    "TaskOffsetReader": "tasks.task_context",
    "UnknownConnectorError": "worker",
    "Worker": "worker",
    "WorkerTaskContext": "tasks.task_context",
    "plan_topics": "topic_planning.plan",
}
__all__ = [
    "ConnectorExistsError",
    "DetachedConnectorContext",
    "FileOffsetStore",
    "InvalidRequestError",
    "KafkaOffsetStore",
    "OffsetBackingStore",
    "RecordSerializer",
    "StandaloneHerder",
    "StandaloneRuntime",
    "State",
    "Status",
    "TaskOffsetReader",
    "UnknownConnectorError",
    "Worker",
    "WorkerTaskContext",
    "plan_topics",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
