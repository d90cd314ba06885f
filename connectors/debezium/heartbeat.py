"""Debezium's heartbeat (`heartbeat.interval.ms`): a record on `<topic.heartbeat.prefix>.<topic.prefix>`,
keyed by the server name, carrying the stream's current position as its offset, so the offsets (and
PostgreSQL's slot) advance while no captured table changes."""

from __future__ import annotations

import time
from typing import Any

from connectworker.api.schema import Schema, SchemaType

from .routes import Route
from .settings import CaptureSettings

HEARTBEAT_KEY = Schema.struct("io.debezium.connector.common.ServerNameKey", ("serverName", Schema(SchemaType.STRING)))
HEARTBEAT_VALUE = Schema.struct("io.debezium.connector.common.Heartbeat", ("ts_ms", Schema(SchemaType.INT64)))


class Heartbeats:
    def __init__(self, settings: CaptureSettings) -> None:
        self._interval_s = settings.heartbeat_s
        self._key = {"serverName": settings.topic_prefix}
        self.route: Route = (settings.heartbeat_topic, HEARTBEAT_KEY, HEARTBEAT_VALUE, ())
        self._last = time.monotonic()

    def due(self) -> bool:
        """Whether a heartbeat is to be sent now (and, if so, the next one is an interval away)."""
        if not self._interval_s or time.monotonic() - self._last < self._interval_s:
            return False
        self._last = time.monotonic()
        return True

    def record(self, offset: dict[str, Any]) -> tuple[dict[str, Any], Any, Any, Route]:
        """The heartbeat, as a pending record (offset, key, value, route)."""
        return offset, self._key, {"ts_ms": int(time.time() * 1000)}, self.route
