"""What a running task sees of the worker: its config, its connector's committed offsets and its line to
its operators (progress out, signals in: `operator_link.py`).

One context and one offset reader for every mode: the standalone worker reads the live backing store
(`OffsetBackingStore`, file or topic), a dry run (`plan_context.py`) reads no offsets, and a Spark task
reads the offsets its driver read for the micro-batch (a plain mapping shipped in the input partition).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from connectworker.api.exactly_once import TransactionContext
from connectworker.api.operator import OperatorSignal, progress_document
from connectworker.api.record import SourceOffset, SourcePartition
from connectworker.runtime.offsets.backing_store import OffsetBackingStore
from connectworker.runtime.offsets.file_store import partition_key
from connectworker.runtime.tasks.operator_link import OperatorLink


class TaskOffsetReader:
    """A task's `offset_storage_reader`: `connector`'s offsets in `offsets`, a backing store (read
    live) or a mapping keyed by canonical partition JSON (`partition_key`), read as it is."""

    def __init__(self, offsets: OffsetBackingStore | Mapping[str, Any], connector: str = "") -> None:
        self._get: Callable[[SourcePartition | None], SourceOffset | None]
        if isinstance(offsets, Mapping):
            fixed = dict(offsets)
            self._get = lambda partition: fixed.get(partition_key(partition))
        else:
            store = offsets
            self._get = lambda partition: store.offset(connector, partition)

    def offset(self, partition: SourcePartition) -> SourceOffset | None:
        return self._get(partition)

    def offsets(self, partitions: Collection[SourcePartition]) -> dict[str, SourceOffset | None]:
        return {partition_key(p): self._get(p) for p in partitions}


class WorkerTaskContext:
    """`operator`: where the task's progress goes and its signals come from; without one (a dry run, a
    Spark micro-batch) progress is checked and dropped and there are no signals."""

    def __init__(
        self,
        reader: TaskOffsetReader,
        props: Mapping[str, str],
        transaction_context: TransactionContext | None = None,
        operator: OperatorLink | None = None,
    ) -> None:
        self._reader = reader
        self._props = dict(props)
        self._transaction_context = transaction_context
        self._operator = operator

    @property
    def transaction_context(self) -> TransactionContext | None:
        return self._transaction_context

    @property
    def offset_storage_reader(self) -> TaskOffsetReader:
        return self._reader

    def configs(self) -> Mapping[str, str]:
        return self._props

    def report_progress(self, progress: Mapping[str, Any] | None) -> None:
        if self._operator is None:
            progress_document(progress)  # checked all the same: a bad document fails wherever the task runs
            return
        self._operator.report_progress(progress)

    def operator_signals(self) -> list[OperatorSignal]:
        return self._operator.take_signals() if self._operator is not None else []
