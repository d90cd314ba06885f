"""Where a table was read up to, in the shape of Confluent's JDBC source, so offsets carry over.

The source partition names the table (`{"protocol": "1", "table": "schema.table"}`) or the query
(`{"query": "query"}`); the offset holds `incrementing` (the last id read) and/or `timestamp` (epoch
milliseconds) with `timestamp_nanos` (the nanoseconds within that second), as Confluent's connector
writes them. Bulk mode has no offset: every run reads the whole table.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def table_partition(schema: str | None, table: str) -> dict[str, str]:
    return {"protocol": "1", "table": f"{schema}.{table}" if schema else table}


def query_partition() -> dict[str, str]:
    return {"query": "query"}


@dataclass(frozen=True, slots=True)
class TableOffset:
    incrementing: int | None = None
    timestamp: datetime | None = None  # an aware instant

    def to_connect(self) -> dict[str, Any] | None:
        out: dict[str, Any] = {}
        if self.incrementing is not None:
            out["incrementing"] = self.incrementing
        if self.timestamp is not None:
            since = self.timestamp - _EPOCH
            out["timestamp"] = since // timedelta(milliseconds=1)
            out["timestamp_nanos"] = since.microseconds * 1000
        return out or None

    @classmethod
    def from_connect(cls, offset: dict[str, Any] | None) -> TableOffset:
        """The offset a task committed (ours or Confluent's), or an empty one."""
        if not offset:
            return cls()
        incrementing = offset.get("incrementing")
        millis = offset.get("timestamp")
        timestamp = None
        if millis is not None:
            seconds = int(millis) // 1000
            nanos = int(offset.get("timestamp_nanos") or (int(millis) % 1000) * 1_000_000)
            timestamp = _EPOCH + timedelta(seconds=seconds, microseconds=nanos // 1000)
        return cls(None if incrementing is None else int(incrementing), timestamp)


def instant_of_epoch_ms(millis: int) -> datetime:
    return _EPOCH + timedelta(milliseconds=millis)
