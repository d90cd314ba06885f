"""Debezium's heartbeat record (`heartbeat.interval.ms`): on `__debezium-heartbeat.<topic.prefix>`, keyed
by the server name, carrying the current binlog position as its offset, so the offsets advance while no
captured table changes."""

from __future__ import annotations

import time
from typing import Any

from connectworker.api.record import SourceRecord
from connectworker.api.schema import Schema, SchemaType

from .settings import MySqlSettings

HEARTBEAT_KEY = Schema.struct("io.debezium.connector.common.ServerNameKey", ("serverName", Schema(SchemaType.STRING)))
HEARTBEAT_VALUE = Schema.struct("io.debezium.connector.common.Heartbeat", ("ts_ms", Schema(SchemaType.INT64)))


def heartbeat_record(settings: MySqlSettings, partition: dict[str, Any], offset: dict[str, Any]) -> SourceRecord:
    return SourceRecord(
        partition,
        offset,
        settings.heartbeat_topic,
        {"ts_ms": int(time.time() * 1000)},
        {"serverName": settings.topic_prefix},
        key_schema=HEARTBEAT_KEY,
        value_schema=HEARTBEAT_VALUE,
    )
