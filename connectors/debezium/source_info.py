"""The `source` block's fields every Debezium connector writes first, the same way (Debezium's
`AbstractSourceInfoStructMaker.commonSchemaBuilder`): `version`, `connector`, `name` (topic.prefix), the
instant in `ts_ms` (and `ts_us`, `ts_ns` since 2.6), `snapshot`, `db` and `sequence`; each connector's own
fields follow (PostgreSQL's `schema`, `txId`, `lsn`; MySQL's binlog `file`, `pos`, `gtid`)."""

from __future__ import annotations

from typing import Any

import connectworker
from connectworker.api.schema import Schema, SchemaType

VERSION = f"connectworker-{connectworker.__version__}"
SNAPSHOT_RECORDS = "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"
OPTIONAL_STRING = Schema(SchemaType.STRING, optional=True)
OPTIONAL_INT64 = Schema(SchemaType.INT64, optional=True)


def source_schema(connector_module: str, *fields: tuple[str, Schema]) -> Schema:
    """`io.debezium.connector.<module>.Source`: the common fields, then the connector's `fields`."""
    return Schema.struct(
        f"io.debezium.connector.{connector_module}.Source",
        ("version", Schema(SchemaType.STRING)),
        ("connector", Schema(SchemaType.STRING)),
        ("name", Schema(SchemaType.STRING)),
        ("ts_ms", Schema(SchemaType.INT64)),
        (
            "snapshot",
            Schema(
                SchemaType.STRING,
                optional=True,
                name="io.debezium.data.Enum",
                version=1,
                parameters=(("allowed", SNAPSHOT_RECORDS),),
            ),
        ),
        ("db", Schema(SchemaType.STRING)),
        ("sequence", OPTIONAL_STRING),
        ("ts_us", OPTIONAL_INT64),
        ("ts_ns", OPTIONAL_INT64),
        *fields,
    )


def common_source(
    connector: str, name: str, *, ts_us: int, snapshot: str, db: str, sequence: str | None
) -> dict[str, Any]:
    """The common fields' values: `ts_ms`, `ts_us` and `ts_ns` are one instant (the change's commit, or the
    snapshot's start), which the databases give in microseconds."""
    return {
        "version": VERSION,
        "connector": connector,
        "name": name,
        "ts_ms": ts_us // 1000,
        "snapshot": snapshot,
        "db": db,
        "sequence": sequence,
        "ts_us": ts_us,
        "ts_ns": ts_us * 1000,
    }
