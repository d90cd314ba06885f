"""Debezium's schema change event (`include.schema.changes`): on the topic `<topic.prefix>`, keyed by the
database name (`io.debezium.connector.<mysql|mariadb>.SchemaChangeKey`), its value (`...SchemaChangeValue`)
the `source` block, `ts_ms`, `databaseName`, `schemaName` (null on MySQL), the `ddl` and `tableChanges`:
each table the DDL changed, with its columns afterwards, in the Connect form of Debezium's
ConnectTableChangeSerializer (`io.debezium.connector.schema.Change` / `Table` / `Column`)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from connectworker.api.record import SourceRecord
from connectworker.api.schema import Schema, SchemaType

from .history import HistoryRecord, TableChange
from .settings import MySqlSettings
from .source import source_schema
from .tables import Column, Table, quote_label, quoted_id

_STRING, _OPT_STRING = Schema(SchemaType.STRING), Schema(SchemaType.STRING, optional=True)
_OPT_INT32, _OPT_BOOLEAN = Schema(SchemaType.INT32, optional=True), Schema(SchemaType.BOOLEAN, optional=True)


def _struct(name: str, *fields: tuple[str, Schema], optional: bool = False) -> Schema:
    """A struct schema of Debezium's, which all carry version 1."""
    return replace(Schema.struct(name, *fields, optional=optional), version=1)


COLUMN_SCHEMA = _struct(
    "io.debezium.connector.schema.Column",
    ("name", _STRING),
    ("jdbcType", Schema(SchemaType.INT32)),
    ("nativeType", _OPT_INT32),
    ("typeName", _STRING),
    ("typeExpression", _OPT_STRING),
    ("charsetName", _OPT_STRING),
    ("length", _OPT_INT32),
    ("scale", _OPT_INT32),
    ("position", Schema(SchemaType.INT32)),
    ("optional", _OPT_BOOLEAN),
    ("autoIncremented", _OPT_BOOLEAN),
    ("generated", _OPT_BOOLEAN),
    ("comment", _OPT_STRING),
    ("defaultValueExpression", _OPT_STRING),
    ("enumValues", Schema.array(_STRING, optional=True)),
)
TABLE_SCHEMA = _struct(
    "io.debezium.connector.schema.Table",
    ("defaultCharsetName", _OPT_STRING),
    ("primaryKeyColumnNames", Schema.array(_STRING, optional=True)),
    ("columns", Schema.array(COLUMN_SCHEMA)),
    ("comment", _OPT_STRING),
    optional=True,
)
CHANGE_SCHEMA = _struct(
    "io.debezium.connector.schema.Change", ("type", _STRING), ("id", _STRING), ("table", TABLE_SCHEMA)
)


@functools.cache
def key_schema(connector: str) -> Schema:
    return _struct(f"io.debezium.connector.{connector}.SchemaChangeKey", ("databaseName", _STRING))


@functools.cache
def value_schema(connector: str) -> Schema:
    return _struct(
        f"io.debezium.connector.{connector}.SchemaChangeValue",
        ("source", source_schema(connector)),
        ("ts_ms", Schema(SchemaType.INT64)),
        ("databaseName", _OPT_STRING),
        ("schemaName", _OPT_STRING),
        ("ddl", _OPT_STRING),
        ("tableChanges", Schema.array(CHANGE_SCHEMA)),
    )


def _column(column: Column, position: int) -> dict[str, Any]:
    return {
        "name": column.name,
        "jdbcType": column.jdbc_type,
        "nativeType": None,
        "typeName": column.type_name,
        "typeExpression": column.type_name,
        "charsetName": column.charset,
        "length": column.length,
        "scale": column.scale,
        "position": position,
        "optional": column.optional,
        "autoIncremented": column.auto_incremented,
        "generated": column.generated,
        "comment": column.comment,
        "defaultValueExpression": column.default,
        "enumValues": [quote_label(v) for v in column.enum_values] or None,
    }


def _table(table: Table | None) -> dict[str, Any] | None:
    if table is None:
        return None
    return {
        "defaultCharsetName": table.default_charset,
        "primaryKeyColumnNames": list(table.primary_key),
        "columns": [_column(c, number) for number, c in enumerate(table.columns, 1)],
        "comment": table.comment,
    }


def schema_change_record(
    settings: MySqlSettings,
    partition: dict[str, Any],
    offset: dict[str, Any],
    source: dict[str, Any],
    record: HistoryRecord,
    changes: Sequence[TableChange] | None = None,
) -> SourceRecord:
    """The schema change event of a history record (of its `changes` only, when given: the captured tables')."""
    changes = record.changes if changes is None else changes
    database = record.database or (changes[0].id[0] if changes else "")
    value = {
        "source": source,
        "ts_ms": source["ts_ms"],
        "databaseName": database,
        "schemaName": None,
        "ddl": record.ddl,
        "tableChanges": [
            {"type": change.kind, "id": quoted_id(change.id), "table": _table(change.table)} for change in changes
        ],
    }
    return SourceRecord(
        partition,
        offset,
        settings.topic_prefix,
        value,
        {"databaseName": database},
        key_schema=key_schema(settings.connector_name),
        value_schema=value_schema(settings.connector_name),
    )
