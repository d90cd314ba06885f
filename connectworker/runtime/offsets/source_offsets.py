"""The source offsets a poll hands over: the newest per source partition, checked to be storable.

Offsets are checked when a task hands them over, not when the store writes them: an offset that
cannot be stored (not a dict, or not JSON-serialisable) then fails the task that produced it, with a
message naming the task and the offending value, and never reaches the store that every task shares.
Only the newest offset of each partition in a poll is ever stored, so only those are checked (one
`json.dumps` per partition per poll, not per record). `newest_offsets` picks them from a poll (in poll
order), `newest_indexed` from records known by an index (Spark's rows, merged across write tasks);
every mode takes its newest offsets from here.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Mapping, Sequence
from itertools import repeat
from operator import attrgetter, is_
from typing import Any, TypeVar

from connectworker.api.errors import ConnectError
from connectworker.api.record import SourceRecord, SourceRecordBatch
from connectworker.runtime.offsets.file_store import partition_key

ALLOWED = "dicts of JSON values (str, int, float, bool, None, and lists and dicts of them)"


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

_SOURCE_PARTITION = attrgetter("source_partition")


def name_one_partition(records: Sequence[SourceRecord]) -> bool:
    """Whether every record names the same `source_partition` object (connectors usually reuse one
    dict), asked in C loops."""
    if not records:
        return True
    first = records[0].source_partition
    return all(map(is_, map(_SOURCE_PARTITION, records), repeat(first, len(records))))


class InvalidSourceOffsetError(ConnectError):
    pass


def newest_offsets(
    records: Sequence[SourceRecord] | SourceRecordBatch, *, one_partition: bool = False
) -> dict[str, Any]:
    """The newest offset of each source partition in `records`, keyed by `partition_key`.
    `one_partition`: the caller knows that every record names the same `source_partition` object.

    Raises `InvalidSourceOffsetError` when a partition or one of these offsets cannot be stored.
    """
    if isinstance(records, SourceRecordBatch):
        newest = records.newest_offset()
        if newest is None:
            return {}
        out = {_key_of(records.source_partition): newest}
    else:
        shared = _shared_partition_newest(records, one_partition)
        out = shared if shared is not None else _newest_per_partition(records)
    for key, offset in out.items():
        check_offset(key, offset)
    return out


def _shared_partition_newest(records: Sequence[SourceRecord], known: bool) -> dict[str, Any] | None:
    """The common case in C loops: every record names the same `source_partition` object (connectors
    usually reuse one dict), so the newest offset is the last one that is not None. None when the
    records name more than one object. `known`: the caller checked that they name one."""
    if not records:
        return {}
    if not known and not name_one_partition(records):
        return None
    partition = records[0].source_partition
    for record in reversed(records):
        if record.source_offset is not None:  # None: delivered, but nothing to resume from
            return {_key_of(partition): record.source_offset}
    return {}


def _newest_per_partition(records: Sequence[SourceRecord]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    last_partition: object = object()
    key = ""
    for record in records:
        if record.source_offset is None:  # delivered, but nothing to resume from
            continue
        if record.source_partition is not last_partition:  # connectors often reuse one dict
            last_partition = record.source_partition
            key = _key_of(record.source_partition)
        out[key] = record.source_offset
    return out


def newest_indexed(
    entries: Iterable[tuple[K, int, V | None]], into: dict[K, tuple[int, V]] | None = None
) -> dict[K, tuple[int, V]]:
    """The newest offset per key when the records' order is only known by an index (Spark's
    `source_index`: rows may be reshuffled): for each key the (index, offset) of the highest index,
    merged `into` a previous result. Entries without an offset are delivered but never committed."""
    newest: dict[K, tuple[int, V]] = {} if into is None else into
    for key, index, offset in entries:
        if offset is None:
            continue
        current = newest.get(key)
        if current is None or index > current[0]:
            newest[key] = (index, offset)
    return newest


def _key_of(partition: object) -> str:
    if partition is not None and not isinstance(partition, Mapping):
        raise InvalidSourceOffsetError(
            f"a source_partition is a {type(partition).__name__} ({_short(partition)}); it must be None or a "
            f"dict of JSON values"
        )
    try:
        return partition_key(partition)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise InvalidSourceOffsetError(
            f"the source_partition {_short(partition)} cannot be stored: {_offending(partition, 'source_partition')}"
            f" ({exc}); source partitions must be {ALLOWED}"
        ) from None


def check_offset(partition: str, offset: object) -> None:
    """Raise `InvalidSourceOffsetError` unless `offset` can be stored (and read back) as JSON."""
    if not isinstance(offset, Mapping):
        raise InvalidSourceOffsetError(
            f"the source_offset for source partition {partition} is a {type(offset).__name__} "
            f"({_short(offset)}); source offsets must be {ALLOWED}"
        )
    try:
        json.dumps(offset)
    except (TypeError, ValueError) as exc:
        raise InvalidSourceOffsetError(
            f"the source_offset {_short(offset)} for source partition {partition} cannot be stored: "
            f"{_offending(offset, 'source_offset')} ({exc}); source offsets must be {ALLOWED}"
        ) from None


def _offending(value: object, path: str) -> str:
    """The first value inside `value` that JSON cannot hold, as 'path[...] is a <type>'."""
    found = _find_unserialisable(value, path)
    return f"{found[0]} is a {type(found[1]).__name__}" if found else f"{path} is not serialisable"


def _find_unserialisable(value: object, path: str) -> tuple[str, object] | None:
    if value is None or isinstance(value, str | int | float | bool):
        return None
    children: Iterable[tuple[str, object]]
    if isinstance(value, Mapping):
        bad_key = next((k for k in value if not isinstance(k, str | int | float | bool) and k is not None), None)
        if bad_key is not None:
            return f"a key of {path}", bad_key
        children = ((f"{path}[{k!r}]", v) for k, v in value.items())
    elif isinstance(value, list | tuple):
        children = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return path, value
    for child_path, child in children:
        if (found := _find_unserialisable(child, child_path)) is not None:
            return found
    return None


def _short(value: object, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"
