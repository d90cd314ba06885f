"""The worker runtime: tasks, offsets, topic creation at run time, and the herder that owns the lifecycle.

- `Worker` runs connectors and their tasks (`worker_source_task.py` is one task's loop);
- `StandaloneHerder` applies lifecycle requests (create, reconfigure, pause, restart, delete) and
  persists them; the REST API and the CLI both drive it; `StandaloneRuntime` assembles a standalone
  worker (broker, offset store, topic creation, herder);
- offsets: `OffsetBackingStore` with `FileOffsetStore` and `KafkaOffsetStore`;
  `WorkerTaskContext`/`TaskOffsetReader` give tasks their committed offsets;
- `RecordSerializer` turns a poll into bytes, shared by the task loop and the Spark source.

Names resolve on first use, so importing one module does not import them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from connectworker.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from connectworker.runtime.herder import StandaloneHerder
    from connectworker.runtime.herder_errors import ConnectorExistsError, InvalidRequestError
    from connectworker.runtime.kafka_offset_store import KafkaOffsetStore
    from connectworker.runtime.offset_backing_store import OffsetBackingStore
    from connectworker.runtime.offset_store import FileOffsetStore
    from connectworker.runtime.record_conversion import RecordSerializer
    from connectworker.runtime.standalone import StandaloneRuntime
    from connectworker.runtime.status import State, Status
    from connectworker.runtime.task_context import TaskOffsetReader, WorkerTaskContext
    from connectworker.runtime.topic_plan import plan_topics
    from connectworker.runtime.worker import UnknownConnectorError, Worker

_EXPORTS = {
    "ConnectorExistsError": "herder_errors",
    "FileOffsetStore": "offset_store",
    "InvalidRequestError": "herder_errors",
    "KafkaOffsetStore": "kafka_offset_store",
    "OffsetBackingStore": "offset_backing_store",
    "RecordSerializer": "record_conversion",
    "StandaloneHerder": "herder",
    "StandaloneRuntime": "standalone",
    "State": "status",
    "Status": "status",
    "TaskOffsetReader": "task_context",
    "UnknownConnectorError": "worker",
    "Worker": "worker",
    "WorkerTaskContext": "task_context",
    "plan_topics": "topic_plan",
}
__all__ = [
    "ConnectorExistsError",
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
