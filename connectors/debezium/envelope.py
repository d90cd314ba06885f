"""Debezium's change event envelope, which every Debezium connector writes the same way (2.6+): the value
`{before, after, source, op, ts_ms, ts_us, ts_ns, transaction}` under the schema `<topic>.Envelope`; only
`source` differs by connector."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, Protocol

from connectworker.api.record import SourceRecord
from connectworker.api.schema import Schema, SchemaType

_OPT_INT64 = Schema(SchemaType.INT64, optional=True)
TRANSACTION_SCHEMA = Schema.struct(
    "event.block",
    ("id", Schema(SchemaType.STRING)),
    ("total_order", Schema(SchemaType.INT64)),
    ("data_collection_order", Schema(SchemaType.INT64)),
    optional=True,
)


def envelope_schema(topic: str, row_schema: Schema, source_schema: Schema) -> Schema:
    """`<topic>.Envelope` (version 1, as Debezium's), `before` and `after` both `row_schema` (optional)."""
    return Schema(
        SchemaType.STRUCT,
        name=f"{topic}.Envelope",
        version=1,
        fields=Schema.struct(
            None,
            ("before", row_schema),
            ("after", row_schema),
            ("source", source_schema),
            ("op", Schema(SchemaType.STRING)),
            ("ts_ms", _OPT_INT64),
            ("ts_us", _OPT_INT64),
            ("ts_ns", _OPT_INT64),
            ("transaction", TRANSACTION_SCHEMA),
        ).fields,
    )


def envelope(
    before: dict[str, Any] | None, after: dict[str, Any] | None, source: dict[str, Any], op: str, ts_ns: int
) -> dict[str, Any]:
    """The change event; `ts_ms`, `ts_us`, `ts_ns`: when the connector made it (Debezium 2.6+)."""
    return {
        "before": before,
        "after": after,
        "source": source,
        "op": op,
        "ts_ms": ts_ns // 1_000_000,
        "ts_us": ts_ns // 1000,
        "ts_ns": ts_ns,
        "transaction": None,
    }


class RowShape(Protocol):
    """What a connector's table shape gives a snapshot's records."""

    topic: str
    key_schema: Schema | None
    envelope_schema: Schema

    def row(self, values: Any) -> dict[str, Any]: ...

    def key(self, row: dict[str, Any]) -> dict[str, Any] | None: ...


def read_records(
    shape: RowShape, rows: Iterable[Any], partition: dict[str, Any], offset: dict[str, Any], source: dict[str, Any]
) -> list[SourceRecord]:
    """A snapshot batch's rows as read (`op: r`) records; each gets its own copy of `source`, where its
    `source.snapshot` marker is set (snapshot_markers.py)."""
    now = time.time_ns()
    records = []
    for values in rows:
        after = shape.row(values)
        records.append(
            SourceRecord(
                partition,
                offset,
                shape.topic,
                envelope(None, after, dict(source), "r", now),
                shape.key(after),
                key_schema=shape.key_schema,
                value_schema=shape.envelope_schema,
            )
        )
    return records
