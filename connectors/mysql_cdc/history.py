"""The schema history: what the connector knew of each captured table's columns, and from which binlog
position on, kept in the schema history topic (`schema.history.internal.kafka.topic`, one partition,
created by the worker: schema_history.py) so that a restart knows each table's schema at its resumed
position rather than as of now.

A record is written for the snapshot (every captured table's columns, at the snapshot's position) and for
each DDL on a captured table met in the binlog (at its transaction's position): its `ddl`, the database
it ran in, and each table it changed with that table's columns as the connector read them from
information_schema right after it (name, COLUMN_TYPE, charset, nullability, place in the primary key), or
a drop. Records are written one at a time and synchronously (flushed, a delivery error fails the task)
before any change after the DDL is handed on, so the history is never behind the offsets.

Recovery reads the topic from its beginning to its end (no consumer group), and `schemas_as_of` gives each
table's columns as of a position: its last record at or before it.

The columns are read, not parsed from the DDL: a connector far behind the server that meets two ALTERs of
one table reads the columns after the second at the first, and the row events between them then fail with
a schema mismatch (binlog.SchemaMismatchError) rather than being decoded with a guessed schema.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from connectworker.api.errors import ConnectError, RetriableError

from .catalog import CatalogColumn
from .keys import HISTORY_SERVERS, HISTORY_TOPIC
from .source import Position

log = logging.getLogger(__name__)

TableId = tuple[str, str]  # (database, table)
_FLUSH_S = 30.0


def position_order(file: str, pos: int) -> tuple[str, int, int]:
    """Binlog positions in order: by file (its base name, then its numeric extension), then byte offset."""
    base, _, number = file.rpartition(".")
    return (base, int(number), pos) if number.isdigit() else (file, 0, pos)


def not_after(position: Position, limit: Position) -> bool:
    return position_order(position.file, position.pos) <= position_order(limit.file, limit.pos)


@dataclass(frozen=True)
class TableChange:
    database: str
    table: str
    columns: tuple[CatalogColumn, ...] | None  # None: the table was dropped
    kind: str = "ALTER"  # CREATE, ALTER or DROP, as Debezium's tableChanges name them


@dataclass(frozen=True)
class HistoryRecord:
    position: Position
    database: str  # the database the statement ran in (Debezium's databaseName)
    ddl: str
    changes: tuple[TableChange, ...]
    ts_ms: int = 0

    def to_json(self, server: str) -> dict[str, Any]:
        position: dict[str, Any] = {"file": self.position.file, "pos": self.position.pos}
        if self.position.gtids:
            position["gtids"] = self.position.gtids
        position |= {"server_id": self.position.server_id, "ts_sec": self.position.ts_sec}
        return {
            "source": {"server": server},
            "position": position,
            "ts_ms": self.ts_ms,
            "databaseName": self.database,
            "ddl": self.ddl,
            "tableChanges": [_change_json(change) for change in self.changes],
        }

    @staticmethod
    def from_json(value: Mapping[str, Any]) -> HistoryRecord:
        where = value["position"]
        position = Position(
            str(where["file"]),
            int(where["pos"]),
            where.get("gtids"),
            server_id=int(where.get("server_id", 0)),
            ts_sec=int(where.get("ts_sec", 0)),
        )
        changes = tuple(_change_of(change) for change in value.get("tableChanges", ()))
        database, ddl = str(value.get("databaseName", "")), str(value.get("ddl", ""))
        return HistoryRecord(position, database, ddl, changes, int(value.get("ts_ms", 0)))

    def same_event(self, other: HistoryRecord) -> bool:
        """Whether two records stand for one DDL event (a restart meeting a DDL it recorded before)."""
        return (self.position.file, self.position.pos, self.ddl) == (other.position.file, other.position.pos, other.ddl)


def _change_json(change: TableChange) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "DROP" if change.columns is None else change.kind}
    out["id"] = f'"{change.database}"."{change.table}"'
    out["database"], out["tableName"] = change.database, change.table
    if change.columns is not None:
        keyed = sorted((c for c in change.columns if c.key_position), key=lambda c: c.key_position)
        out["table"] = {
            "primaryKeyColumnNames": [c.name for c in keyed],
            "columns": [
                {
                    "name": c.name,
                    "columnType": c.column_type,
                    "charsetName": c.charset,
                    "position": number,
                    "optional": c.nullable,
                    "keyPosition": c.key_position,
                }
                for number, c in enumerate(change.columns, 1)
            ],
        }
    return out


def _change_of(value: Mapping[str, Any]) -> TableChange:
    table = value.get("table")
    columns = (
        tuple(
            CatalogColumn(
                str(c["name"]), str(c["columnType"]), c.get("charsetName"), bool(c["optional"]), int(c["keyPosition"])
            )
            for c in table["columns"]
        )
        if value.get("type") != "DROP" and table is not None
        else None
    )
    return TableChange(str(value["database"]), str(value["tableName"]), columns, str(value.get("type", "ALTER")))


def schemas_as_of(records: Iterable[HistoryRecord], position: Position) -> dict[TableId, tuple[CatalogColumn, ...]]:
    """Each table's columns as of `position`: from its last record (in the topic's order) at or before it;
    a table whose last such record is a drop is left out."""
    held: dict[TableId, tuple[CatalogColumn, ...] | None] = {}
    for record in records:
        if not_after(record.position, position):
            for change in record.changes:
                held[(change.database, change.table)] = change.columns
    return {table: columns for table, columns in held.items() if columns is not None}


class SchemaHistory:
    """The schema history topic of one connector (`server`: its topic.prefix)."""

    def __init__(self, servers: str, topic: str, server: str, *, flush_s: float = _FLUSH_S) -> None:
        self._servers, self.topic, self._server = servers, topic, server
        self._flush_s = flush_s
        self._producer: Any = None

    def record(self, record: HistoryRecord) -> None:
        """Writes `record` and waits until the broker has it; raises RetriableError when it could not."""
        from confluent_kafka import KafkaException, Producer

        if self._producer is None:
            self._producer = Producer(
                {"bootstrap.servers": self._servers, "acks": "all", "enable.idempotence": True, "linger.ms": 0}
            )
        failed: list[str] = []

        def delivered(error: Any, message: Any) -> None:
            if error is not None:
                failed.append(str(error))

        payload = json.dumps(record.to_json(self._server), separators=(",", ":")).encode()
        try:
            self._producer.produce(self.topic, payload, on_delivery=delivered)
            left = self._producer.flush(self._flush_s)
        except KafkaException as exc:
            failed.append(str(exc))
            left = 0
        if left or failed:
            reason = failed[0] if failed else f"not acknowledged within {self._flush_s:g}s"
            raise RetriableError(
                f"Cannot write the schema history record of {record.ddl[:80]!r} to {HISTORY_TOPIC}={self.topic} on "
                f"{HISTORY_SERVERS}={self._servers}: {reason}"
            )

    def recover(self, timeout: float = 60.0) -> list[HistoryRecord]:
        """Every record of the topic, in order (none when the topic does not exist yet)."""
        from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, TopicPartition

        consumer = Consumer(
            {
                "bootstrap.servers": self._servers,
                "group.id": f"connectworker-schema-history-{self._server}",  # assign only: never joined
                "enable.auto.commit": False,
                "enable.partition.eof": True,
            }
        )
        try:
            metadata = consumer.list_topics(self.topic, timeout=timeout).topics.get(self.topic)
            if metadata is None or metadata.error is not None or not metadata.partitions:
                return []
            if len(metadata.partitions) != 1:
                raise ConnectError(
                    f"The schema history topic {self.topic} ({HISTORY_TOPIC}) has {len(metadata.partitions)} "
                    "partitions: its DDL cannot be read back in order. Give the connector a new history topic "
                    "(the worker creates it with one partition) and snapshot.mode=when_needed, or recreate it."
                )
            _low, high = consumer.get_watermark_offsets(TopicPartition(self.topic, 0), timeout=timeout)
            records: list[HistoryRecord] = []
            if high <= 0:
                return records
            consumer.assign([TopicPartition(self.topic, 0, OFFSET_BEGINNING)])
            deadline, last = time.monotonic() + timeout, -1
            while last < high - 1:
                if time.monotonic() > deadline:
                    raise RetriableError(
                        f"Reading the schema history topic {self.topic} timed out at offset {last + 1} of {high}"
                    )
                message = consumer.poll(0.5)
                if message is None:
                    continue
                error = message.error()
                if error is not None:
                    if error.code() == KafkaError._PARTITION_EOF:  # all there is was read
                        break
                    raise RetriableError(f"Reading the schema history topic {self.topic}: {error}")
                last = message.offset() or 0
                value = json.loads(message.value() or b"{}")
                if value.get("source", {}).get("server") == self._server:
                    records.append(HistoryRecord.from_json(value))
            log.info("Read %d schema history record(s) from %s", len(records), self.topic)
            return records
        finally:
            consumer.close()

    def close(self) -> None:
        if self._producer is not None:
            self._producer.flush(self._flush_s)
            self._producer = None
