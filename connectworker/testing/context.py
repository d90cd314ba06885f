"""A task context for tests: the task's props and committed offsets held in memory.

It is the worker's own context (`connectworker.runtime.tasks.task_context`) over a plain mapping of offsets,
so a task sees in a test exactly what it sees in the worker: `context.configs()`,
`context.offset_storage_reader.offset(partition)` / `.offsets(partitions)`, and its operators' line: a test
sends the task signals (`send_signal`) and reads the progress it reported (`progress`).
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from connectworker.api.exactly_once import TransactionContext
from connectworker.api.operator import OperatorSignal
from connectworker.api.record import SourceOffset, SourcePartition, SourceRecord
from connectworker.runtime.offsets.file_store import partition_key
from connectworker.runtime.tasks.operator_link import OperatorLink
from connectworker.runtime.tasks.task_context import TaskOffsetReader, WorkerTaskContext

__all__ = [
    "InMemoryTaskContext",
    "Offsets",
    "RecordedConnectorContext",
    "RecordedTransactions",
    "offsets_by_key",
    "partition_key",
]

Offsets = Mapping[str, SourceOffset | None] | Iterable[tuple[SourcePartition | None, SourceOffset | None]]
"""Committed offsets as a test gives them: ``(source_partition, source_offset)`` pairs, e.g.
``[({"filename": "in.txt"}, {"position": 12})]``, or a mapping keyed by the partition's JSON (as
`TaskHarness.committed_offsets` returns it, or as the offsets file stores it). A None offset means
"nothing committed" for that partition."""


def offsets_by_key(offsets: Offsets | None) -> dict[str, SourceOffset]:
    """`offsets` keyed by canonical partition JSON (`partition_key`), the form the worker reads.

    Keys of a mapping are parsed as JSON and written again canonically, so ``'{"b": 1, "a": 2}'`` and
    ``'{"a":2,"b":1}'`` name the same partition. Raises ValueError for a key that is not JSON, or a
    partition or offset that is not a dict (or None).
    """
    if offsets is None:
        return {}
    pairs: list[tuple[object, object]] = []
    if isinstance(offsets, Mapping):
        for key, offset in offsets.items():
            try:
                partition: object = json.loads(key)
            except (TypeError, ValueError) as exc:
                raise ValueError(f"offset key {key!r} is not the JSON of a source partition: {exc}") from None
            pairs.append((partition, offset))
    else:
        pairs.extend(offsets)
    keyed: dict[str, SourceOffset] = {}
    for partition, offset in pairs:
        if partition is not None and not isinstance(partition, dict):
            raise ValueError(f"a source partition must be a dict or None, got {partition!r}")
        if offset is None:
            continue
        if not isinstance(offset, dict):
            raise ValueError(f"the offset of partition {partition!r} must be a dict or None, got {offset!r}")
        keyed[partition_key(partition)] = offset
    return keyed


class InMemoryTaskContext(WorkerTaskContext):
    """The context `SourceTask.initialize` receives, over `props` and fixed committed `offsets`.

    ``task.initialize(InMemoryTaskContext({"topic": "t"}, [({"filename": "a"}, {"position": 3})]))``
    lets a task read ``{"position": 3}`` for partition ``{"filename": "a"}``, as if a previous run had
    committed it. The offsets are read as given (a snapshot), as a task reads them when it starts.
    """

    def __init__(
        self,
        props: Mapping[str, str] | None = None,
        offsets: Offsets | None = None,
        transaction_context: TransactionContext | None = None,
    ) -> None:
        self._committed = offsets_by_key(offsets)
        self._line = OperatorLink("test task")
        super().__init__(TaskOffsetReader(self._committed), props or {}, transaction_context, self._line)

    @property
    def committed_offsets(self) -> dict[str, SourceOffset]:
        """The offsets the task can read, keyed by canonical partition JSON (a copy)."""
        return dict(self._committed)

    @property
    def progress(self) -> dict[str, Any] | None:
        """The progress document the task last reported (`report_progress`), as the REST status shows it."""
        return self._line.progress

    def send_signal(self, type: str, data: Mapping[str, Any] | None = None, id: str | None = None) -> OperatorSignal:
        """Send the task a signal, as `POST /connectors/NAME/signals` does: its next `operator_signals()`
        returns it. Without `id`, a random UUID, as the worker gives one."""
        signal = OperatorSignal(id if id is not None else str(uuid.uuid4()), type, dict(data or {}))
        self._line.deliver(signal)
        return signal


class RecordedTransactions(TransactionContext):
    """A `TransactionContext` that records what the task asked, for tests of connector-defined
    transaction boundaries: ``InMemoryTaskContext(props, transaction_context=RecordedTransactions())``.

    `requests` holds ``("commit" | "abort", record or None)`` in the order the task made them.
    """

    def __init__(self) -> None:
        self.requests: list[tuple[str, SourceRecord | None]] = []

    def commit_transaction(self, record: SourceRecord | None = None) -> None:
        self.requests.append(("commit", record))

    def abort_transaction(self, record: SourceRecord | None = None) -> None:
        self.requests.append(("abort", record))


class RecordedConnectorContext:
    """A `ConnectorContext` that records what the connector asked, for tests of a connector that
    reconfigures itself or fails from its own threads:

    ``connector.initialize(ctx := RecordedConnectorContext()); connector.start(props); ...;
    assert ctx.wait_for_reconfiguration(timeout=5)``.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.reconfiguration_requests = 0
        """How many times the connector called `request_task_reconfiguration()`."""
        self.errors: list[BaseException] = []
        """What the connector passed to `raise_error`, in order."""

    def request_task_reconfiguration(self) -> None:
        with self._changed:
            self.reconfiguration_requests += 1
            self._changed.notify_all()

    def raise_error(self, exc: BaseException) -> None:
        with self._changed:
            self.errors.append(exc)
            self._changed.notify_all()

    def wait_for_reconfiguration(self, timeout: float, *, beyond: int = 0) -> bool:
        """Whether more than `beyond` reconfiguration requests were made within `timeout` seconds."""
        with self._changed:
            return self._changed.wait_for(lambda: self.reconfiguration_requests > beyond, timeout)
