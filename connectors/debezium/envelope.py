"""Debezium's change event envelope, which every Debezium connector writes the same way (2.6+): the value
`{before, after, source, op, ts_ms, ts_us, ts_ns, transaction}` under the schema `<topic>.Envelope`; only
`source` differs by connector."""

from __future__ import annotations

from typing import Any

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
