"""The task context of a dry run: the task's config and the worker's committed offsets are not
consulted, so a planned task always starts from the beginning and writes nothing."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from connectworker.api.record import SourceOffset, SourcePartition
from connectworker.runtime.offset_store import partition_key


class _NoOffsets:
    def offset(self, partition: SourcePartition) -> SourceOffset | None:
        return None

    def offsets(self, partitions: Collection[SourcePartition]) -> dict[str, SourceOffset | None]:
        return {partition_key(p): None for p in partitions}


class PlanTaskContext:
    def __init__(self, props: Mapping[str, str]) -> None:
        self._props = dict(props)

    @property
    def offset_storage_reader(self) -> _NoOffsets:
        return _NoOffsets()

    def configs(self) -> Mapping[str, str]:
        return self._props
