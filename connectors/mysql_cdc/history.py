"""The schema history: the DDL the connector applied to the schema it holds, and from which binlog position
on, kept in the schema history topic (`schema.history.internal.kafka.topic`, one partition, created by the
worker: schema_history.py) so that a restart knows each table's schema at its resumed position rather than
as of now.

Each record is Debezium's `HistoryRecord` JSON: `source` (`{"server": <topic.prefix>}`), `position` (the
binlog offset of the statement's transaction), `ts_ms`, `databaseName` (the database the statement ran
in), `ddl` (its text) and `tableChanges`, each table it changed as Debezium's JsonTableChangeSerializer
writes it (`type` CREATE / ALTER / DROP, `id` `"db"."table"`, `previousId` for a rename, and `table` with
its columns: name, jdbcType, typeName, typeExpression, charsetName, length, scale, position, optional,
autoIncremented, generated, enumValues, ...). A record is written for the snapshot (the server's and each
database's character set, and every held table's `SHOW CREATE TABLE`, at the snapshot's position) and for
each DDL of a held database met in the binlog; one at a time and synchronously (flushed, a delivery error
fails the task) before any change after it is handed on, so the history is never behind the offsets.

Recovery reads the topic from its beginning to its end (no consumer group); schema_state.schemas_as_of
replays the records up to a position, as Debezium does: a record's `tableChanges` where it has them, else
its `ddl` parsed again. Records this connector wrote before it kept Debezium's form (their columns as
information_schema's `columnType`) are read too.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connectworker.api.errors import ConnectError, RetriableError

from .keys import HISTORY_SERVERS, HISTORY_TOPIC
from .source import Position
from .tables import Table, TableId, parse_quoted_id, quoted_id, table_json, table_of_json

log = logging.getLogger(__name__)

_FLUSH_S = 30.0


def position_order(file: str, pos: int) -> tuple[str, int, int]:
    """Binlog positions in order: by file (its base name, then its numeric extension), then byte offset."""
    base, _, number = file.rpartition(".")
    return (base, int(number), pos) if number.isdigit() else (file, 0, pos)


def not_after(position: Position, limit: Position) -> bool:
    return position_order(position.file, position.pos) <= position_order(limit.file, limit.pos)


@dataclass(frozen=True)
class TableChange:
    """One table a statement changed, as Debezium's TableChanges.TableChange: CREATE or ALTER with the table
    afterwards (`previous`: its name before a rename), or DROP."""

    kind: str
    id: TableId
    table: Table | None = None
    previous: TableId | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind, "id": quoted_id(self.id)}
        if self.previous is not None:
            out["previousId"] = quoted_id(self.previous)
        if self.table is not None:
            out["table"] = table_json(self.table)
            out["comment"] = self.table.comment
        return out

    @staticmethod
    def from_json(value: Mapping[str, Any]) -> TableChange:
        kind = str(value.get("type", "ALTER"))
        table_id = parse_quoted_id(str(value["id"])) if "id" in value else (value["database"], value["tableName"])
        previous = parse_quoted_id(str(value["previousId"])) if value.get("previousId") else None
        found = value.get("table")
        if kind == "DROP" or not found:
            return TableChange("DROP" if kind == "DROP" or not found else kind, table_id, None, previous)
        if any("columnType" in c for c in found.get("columns") or ()):
            from .history_v1 import table_of_v1_json

            return TableChange(kind, table_id, table_of_v1_json(table_id, found), previous)
        return TableChange(kind, table_id, table_of_json(table_id, found), previous)


@dataclass(frozen=True)
class HistoryRecord:
    position: Position
    database: str  # the database the statement ran in (Debezium's databaseName)
    ddl: str
    changes: tuple[TableChange, ...]
    ts_ms: int = 0
    snapshot: bool = False  # written by a snapshot (its position carries Debezium's `snapshot: true`)

    def to_json(self, server: str) -> dict[str, Any]:
        position: dict[str, Any] = {
            "ts_sec": self.position.ts_sec,
            "file": self.position.file,
            "pos": self.position.pos,
        }
        if self.position.gtids:
            position["gtids"] = self.position.gtids
        position["server_id"] = self.position.server_id
        if self.snapshot:
            position["snapshot"] = True
        return {
            "source": {"server": server},
            "position": position,
            "ts_ms": self.ts_ms,
            "databaseName": self.database,
            "ddl": self.ddl,
            "tableChanges": [change.to_json() for change in self.changes],
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
        changes = tuple(TableChange.from_json(change) for change in value.get("tableChanges") or ())
        database, ddl = str(value.get("databaseName") or ""), str(value.get("ddl") or "")
        return HistoryRecord(position, database, ddl, changes, int(value.get("ts_ms", 0)), bool(where.get("snapshot")))

    def same_event(self, other: HistoryRecord) -> bool:
        """Whether two records stand for one DDL event (a restart meeting a DDL it recorded before)."""
        return (self.position.file, self.position.pos, self.ddl) == (other.position.file, other.position.pos, other.ddl)


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
            self._producer = Producer(  # one record in flight, as Debezium's history producer: never reordered
                {
                    "bootstrap.servers": self._servers,
                    "acks": "all",
                    "linger.ms": 0,
                    "max.in.flight.requests.per.connection": 1,
                    # as Debezium's: not idempotent (brokers before 2.8 want an ACL for it, and its producer id
                    # costs the first record a round trip, 0.5 s on the embedded broker); a record written twice
                    # after a lost acknowledgement replays to the same schema
                    "enable.idempotence": False,
                }
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
