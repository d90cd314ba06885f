"""What a source task hands the worker, and what the worker hands back once Kafka has acknowledged it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, TypeGuard, overload

from connectworker.api.schema import Schema

SourcePartition = dict[str, Any]
SourceOffset = dict[str, Any]
Headers = list[tuple[str, Any]]
"""A record's headers: `(name, value)` pairs, in order, names repeating at will. A value is any Connect
value (`str`, `bytes`, `int`, `float`, `bool`, `list`, `dict`, `date`/`time`/`datetime`, `None`),
schemaless, or a `SchemaAndValue` that gives its schema; the worker's `header.converter` turns each into
the bytes Kafka stores (`SimpleHeaderConverter` by default: text, as Kafka writes it)."""


def as_json(value: object) -> str:
    """An offset, a partition or one of their values as its JSON, for messages: as the user wrote it in a
    REST body or sees it in the offsets (`{"seq": "abc"}`, not Python's `{'seq': 'abc'}`)."""
    return json.dumps(value, default=repr)


def is_offset_count(value: object) -> TypeGuard[int]:
    """Whether `value` is what an offset holds as a position or a count: a non-negative integer (`True`
    is not one, though Python's bool is an int)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


@dataclass(slots=True)
class SourceRecord:
    """One record produced by a source task.

    `source_partition` identifies the stream in the external system (e.g. ``{"filename": "a.txt"}``)
    and `source_offset` the position in it after this record (e.g. ``{"position": 120}``). Both must be
    JSON-serialisable: they are stored in the offsets file and read back when a task restarts.
    """

    source_partition: SourcePartition | None
    source_offset: SourceOffset | None
    topic: str
    value: Any
    key: Any = None
    partition: int | None = None
    value_schema: Schema | None = None
    key_schema: Schema | None = None
    timestamp: int | None = None
    headers: Headers = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class RecordMetadata:
    """Where Kafka stored an acknowledged record."""

    topic: str
    partition: int
    offset: int
    timestamp: int | None = None


class SourceRecordBatch(Sequence[SourceRecord]):
    """Records of one poll and one source partition, column by column.

    A cheaper form of ``list[SourceRecord]`` for high-rate sources: the worker produces straight from
    the columns, without a `SourceRecord` object per record, and commits the newest of
    `source_offsets`. It is still a sequence of `SourceRecord` (built on access), so code that reads a
    poll's records works with either form. Records of a batch share their schemas and have no fixed
    partition, timestamp or headers; use `SourceRecord`s for those.
    """

    __slots__ = ("key_schema", "keys", "source_offsets", "source_partition", "topics", "value_schema", "values")

    def __init__(
        self,
        source_partition: SourcePartition | None,
        source_offsets: Sequence[SourceOffset | None],
        topics: Sequence[str],
        keys: Sequence[Any],
        values: Sequence[Any],
        *,
        key_schema: Schema | None = None,
        value_schema: Schema | None = None,
    ) -> None:
        if not len(topics) == len(keys) == len(values) == len(source_offsets):
            raise ValueError(
                f"SourceRecordBatch columns differ in length: {len(topics)} topics, {len(keys)} keys, "
                f"{len(values)} values, {len(source_offsets)} offsets"
            )
        self.source_partition = source_partition
        self.source_offsets = source_offsets
        self.topics = topics
        self.keys = keys
        self.values = values
        self.key_schema = key_schema
        self.value_schema = value_schema

    def __len__(self) -> int:
        return len(self.topics)

    @overload
    def __getitem__(self, index: int) -> SourceRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[SourceRecord]: ...

    def __getitem__(self, index: int | slice) -> SourceRecord | list[SourceRecord]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return SourceRecord(
            self.source_partition,
            self.source_offsets[index],
            self.topics[index],
            self.values[index],
            self.keys[index],
            None,
            self.value_schema,
            self.key_schema,
        )

    def newest_offset(self) -> SourceOffset | None:
        """The offset to commit once every record of the batch is acknowledged."""
        for i in range(len(self) - 1, -1, -1):
            offset = self.source_offsets[i]
            if offset is not None:
                return offset
        return None
