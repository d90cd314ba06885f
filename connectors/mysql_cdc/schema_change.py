"""Debezium's schema change event (`include.schema.changes`): on the topic `<topic.prefix>`, keyed by the
database name (`io.debezium.connector.mysql.SchemaChangeKey`), its value
(`io.debezium.connector.mysql.SchemaChangeValue`) the `source` block, `ts_ms`, `databaseName`, `schemaName`
(null on MySQL), the `ddl` and `tableChanges`: each table the DDL changed, with its columns afterwards."""

from __future__ import annotations

from typing import Any

from connectworker.api.record import SourceRecord
from connectworker.api.schema import Schema, SchemaType

from .history import HistoryRecord, TableChange
from .settings import MySqlSettings
from .source import SOURCE_SCHEMA

_STRING, _OPT_STRING = Schema(SchemaType.STRING), Schema(SchemaType.STRING, optional=True)
COLUMN_SCHEMA = Schema.struct(
    "io.debezium.connector.schema.Column",
    ("name", _STRING),
    ("typeName", _STRING),
    ("typeExpression", _OPT_STRING),
    ("charsetName", _OPT_STRING),
    ("position", Schema(SchemaType.INT32)),
    ("optional", Schema(SchemaType.BOOLEAN, optional=True)),
)
TABLE_SCHEMA = Schema.struct(
    "io.debezium.connector.schema.Table",
    ("defaultCharsetName", _OPT_STRING),
    ("primaryKeyColumnNames", Schema.array(_STRING, optional=True)),
    ("columns", Schema.array(COLUMN_SCHEMA)),
    optional=True,
)
CHANGE_SCHEMA = Schema.struct(
    "io.debezium.connector.schema.Change", ("type", _STRING), ("id", _STRING), ("table", TABLE_SCHEMA)
)
KEY_SCHEMA = Schema.struct("io.debezium.connector.mysql.SchemaChangeKey", ("databaseName", _STRING))
VALUE_SCHEMA = Schema.struct(
    "io.debezium.connector.mysql.SchemaChangeValue",
    ("source", SOURCE_SCHEMA),
    ("ts_ms", Schema(SchemaType.INT64)),
    ("databaseName", _OPT_STRING),
    ("schemaName", _OPT_STRING),
    ("ddl", _OPT_STRING),
    ("tableChanges", Schema.array(CHANGE_SCHEMA)),
)


def _table(change: TableChange) -> dict[str, Any] | None:
    if change.columns is None:
        return None
    keyed = sorted((c for c in change.columns if c.key_position), key=lambda c: c.key_position)
    return {
        "defaultCharsetName": None,
        "primaryKeyColumnNames": [c.name for c in keyed],
        "columns": [
            {
                "name": c.name,
                "typeName": c.column_type.split("(")[0].split()[0].upper(),
                "typeExpression": c.column_type,
                "charsetName": c.charset,
                "position": number,
                "optional": c.nullable,
            }
            for number, c in enumerate(change.columns, 1)
        ],
    }


def schema_change_record(
    settings: MySqlSettings,
    partition: dict[str, Any],
    offset: dict[str, Any],
    source: dict[str, Any],
    record: HistoryRecord,
) -> SourceRecord:
    database = record.database or (record.changes[0].database if record.changes else "")
    value = {
        "source": source,
        "ts_ms": source["ts_ms"],
        "databaseName": database,
        "schemaName": None,
        "ddl": record.ddl,
        "tableChanges": [
            {
                "type": "DROP" if change.columns is None else change.kind,
                "id": f'"{change.database}"."{change.table}"',
                "table": _table(change),
            }
            for change in record.changes
        ],
    }
    return SourceRecord(
        partition,
        offset,
        settings.topic_prefix,
        value,
        {"databaseName": database},
        key_schema=KEY_SCHEMA,
        value_schema=VALUE_SCHEMA,
    )
