"""Debezium's PostgreSQL `source` block (schema `io.debezium.connector.postgresql.Source`): where a change
came from: the connector, `name` (topic.prefix), `db`, `schema`, `table`, the transaction (`txId`), its LSN,
`sequence` (the resume point and the change's own LSN), `snapshot` and the commit's instant in `ts_ms`,
`ts_us` and `ts_ns`."""

from __future__ import annotations

from typing import Any

from connectworker.api.schema import Schema, SchemaType

from ..debezium.source_info import OPTIONAL_INT64, common_source, source_schema
from .settings import CdcSettings

SOURCE_SCHEMA = source_schema(
    "postgresql",
    ("schema", Schema(SchemaType.STRING)),
    ("table", Schema(SchemaType.STRING)),
    ("txId", OPTIONAL_INT64),
    ("lsn", OPTIONAL_INT64),
    ("xmin", OPTIONAL_INT64),
)


def source_struct(
    settings: CdcSettings,
    schema: str,
    table: str,
    *,
    ts_us: int,
    snapshot: str,
    tx_id: int | None,
    lsn: int | None,
    sequence: str | None,
) -> dict[str, Any]:
    """`source`, as Debezium 2.6+ writes it."""
    return {
        **common_source(
            "postgresql", settings.topic_prefix, ts_us=ts_us, snapshot=snapshot, db=settings.dbname, sequence=sequence
        ),
        "schema": schema,
        "table": table,
        "txId": tx_id,
        "lsn": lsn,
        "xmin": None,
    }
