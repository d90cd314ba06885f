"""What a running task sees of the worker: its config and its connector's committed offsets."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from connectworker.api.record import SourceOffset, SourcePartition
from connectworker.runtime.offset_store import FileOffsetStore, partition_key


class StoreOffsetReader:
    """Reads a connector's committed offsets from the worker's offset store."""

    def __init__(self, store: FileOffsetStore, connector: str) -> None:
        self._store = store
        self._connector = connector

    def offset(self, partition: SourcePartition) -> SourceOffset | None:
        return self._store.offset(self._connector, partition)

    def offsets(self, partitions: Collection[SourcePartition]) -> dict[str, SourceOffset | None]:
        return {partition_key(p): self._store.offset(self._connector, p) for p in partitions}


class WorkerTaskContext:
    def __init__(self, reader: StoreOffsetReader, props: Mapping[str, str]) -> None:
        self._reader = reader
        self._props = dict(props)

    @property
    def offset_storage_reader(self) -> StoreOffsetReader:
        return self._reader

    def configs(self) -> Mapping[str, str]:
        return self._props
