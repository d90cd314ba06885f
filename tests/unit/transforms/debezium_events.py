"""Change events shaped as Debezium's transform tests build them (`AbstractExtractStateTest`,
`EventRouterTest`): a `dummy.Envelope` of `{id: int8, name: string}` rows with a source of `lsn`,
`ts_ms`…, and outbox rows."""

from __future__ import annotations

from typing import Any

from connectworker.api.record import SourceRecord
from connectworker.api.schema import (
    BOOLEAN_SCHEMA,
    INT32_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Field,
    Schema,
    SchemaType,
)
from connectworker.transforms.debezium.envelope import TRANSACTION

INT8 = Schema(SchemaType.INT8)
OPTIONAL_INT64 = Schema(SchemaType.INT64, optional=True)
ROW = Schema.struct("dummy.Value", ("id", INT8), ("name", STRING_SCHEMA), optional=True)
SOURCE = Schema.struct(
    "dummy.Source",
    ("lsn", INT32_SCHEMA),
    ("ts_ms", OPTIONAL_INT64),
    ("ts_us", OPTIONAL_INT64),
    ("ts_ns", OPTIONAL_INT64),
    ("db", OPTIONAL_STRING_SCHEMA),
    ("table", OPTIONAL_STRING_SCHEMA),
)
TRANSACTION_BLOCK = Schema.struct(
    "event.block",
    ("id", STRING_SCHEMA),
    ("total_order", Schema(SchemaType.INT64)),
    ("data_collection_order", Schema(SchemaType.INT64)),
    optional=True,
)
SOURCE_TS_MS = 1588252618953
EVENT_TS_MS = 1710032523000


def envelope_schema(row: Schema = ROW, source: Schema = SOURCE, name: str = "dummy.Envelope") -> Schema:
    return Schema.struct(
        name,
        ("before", row),
        ("after", row),
        ("source", source),
        ("op", STRING_SCHEMA),
        ("ts_ms", OPTIONAL_INT64),
        ("ts_us", OPTIONAL_INT64),
        ("ts_ns", OPTIONAL_INT64),
        (TRANSACTION, TRANSACTION_BLOCK),
    )


ENVELOPE = envelope_schema()


def source(**fields: Any) -> dict[str, Any]:
    return {
        "lsn": 1234,
        "ts_ms": SOURCE_TS_MS,
        "ts_us": SOURCE_TS_MS * 1000,
        "ts_ns": SOURCE_TS_MS * 1_000_000,
        "db": "test_db",
        "table": "test_table",
    } | fields


def event(
    op: str,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    *,
    schema: Schema = ENVELOPE,
    key: Any = None,
    key_schema: Schema | None = None,
    topic: str = "dummy",
    transaction: dict[str, Any] | None = None,
    **extra: Any,
) -> SourceRecord:
    value = {
        "before": before,
        "after": after,
        "source": source(),
        "op": op,
        "ts_ms": EVENT_TS_MS,
        "ts_us": EVENT_TS_MS * 1000 + 123,
        "ts_ns": EVENT_TS_MS * 1_000_000 + 123456,
        TRANSACTION: transaction,
        **extra,
    }
    return SourceRecord({"server": "dummy"}, {"lsn": 1234}, topic, value, key, None, schema, key_schema)


def create() -> SourceRecord:
    return event("c", after={"id": 1, "name": "myRecord"})


def update() -> SourceRecord:
    return event(
        "u",
        before={"id": 1, "name": "myRecord"},
        after={"id": 1, "name": "updatedRecord"},
        transaction={"id": "571", "total_order": 42, "data_collection_order": 42},
    )


def delete() -> SourceRecord:
    return event("d", before={"id": 1, "name": "myRecord"})


def truncate() -> SourceRecord:
    return event("t")


def tombstone(topic: str = "dummy") -> SourceRecord:
    return SourceRecord({"server": "dummy"}, {"lsn": 1234}, topic, None)


def heartbeat() -> SourceRecord:
    schema = Schema.struct("io.debezium.connector.common.Heartbeat", ("ts_ms", Schema(SchemaType.INT64)))
    key_schema = Schema.struct("op.with.heartbeat.Key", ("id", STRING_SCHEMA))
    return SourceRecord({}, {}, "op.with.heartbeat", {"ts_ms": 1}, {"id": "123"}, None, schema, key_schema)


# -- outbox rows ----------------------------------------------------------------------------------
OUTBOX_FIELDS: tuple[tuple[str, Schema], ...] = (
    ("id", STRING_SCHEMA),
    ("aggregatetype", STRING_SCHEMA),
    ("aggregateid", STRING_SCHEMA),
    ("type", STRING_SCHEMA),
    ("payload", STRING_SCHEMA),
    ("is_deleted", BOOLEAN_SCHEMA.as_optional()),
)


def outbox_event(
    aggregate_type: str = "User",
    payload: Any = "{}",
    *,
    event_id: Any = "da8d6de6-3b77-45ff-8f44-57db55a7a06c",
    aggregate_id: Any = "10711fa5",
    event_type: Any = "UserCreated",
    op: str = "c",
    fields: tuple[tuple[str, Schema], ...] = OUTBOX_FIELDS,
    extra_fields: tuple[tuple[str, Schema], ...] = (),
    row: dict[str, Any] | None = None,
    **extra_values: Any,
) -> SourceRecord:
    """An insert into an outbox table (Debezium's `EventRouterTest.createEventRecord`); `row` replaces the
    whole row (with `fields`, for a table of other columns)."""
    row_schema = Schema(
        SchemaType.STRUCT,
        optional=True,
        name="db.outbox.Value",
        fields=tuple(Field(n, s) for n, s in (*fields, *extra_fields)),
    )
    row = row or {
        "id": event_id,
        "aggregatetype": aggregate_type,
        "aggregateid": aggregate_id,
        "type": event_type,
        "payload": payload,
        "is_deleted": None,
        **extra_values,
    }
    schema = envelope_schema(row_schema, Schema.struct("db.Source"), "db.outbox.Envelope")
    before, after = (row, None) if op == "d" else (None, row)
    return event(op, before, after, schema=schema, topic="db.outbox")
