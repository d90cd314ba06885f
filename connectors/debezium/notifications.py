"""Debezium's notifications (`notification.enabled.channels`, `notification.sink.topic.name`): what an
incremental or initial snapshot says as it goes, as `[Notification Service]` log lines (`log`) and as
records on the notification topic (`sink`), with Debezium's schemas and `additional_data`.

`IncrementalNotifications` and `InitialNotifications` build them as Debezium's
`IncrementalSnapshotNotificationService` and `InitialSnapshotNotificationService` fill them; `Notifier`
sends them where the connector's channels say. `additional_data` is kept in the order a Java `HashMap`
iterates it, so the log line and a JSON-converted record read as Debezium's do. The notification topic
is an ordinary topic of the connector's: the worker creates it by its `topic.creation.*` rules when the
first notification goes to it.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from connectworker.api.errors import ConfigError
from connectworker.api.record import SourcePartition, SourceRecord
from connectworker.api.schema import Schema, SchemaType

from .pending import Pending
from .routes import Route
from .signal_types import Notification

log = logging.getLogger(__name__)

NOTIFICATION_KEY = Schema(
    SchemaType.STRUCT,
    name="io.debezium.connector.common.NotificationKey",
    version=1,
    fields=Schema.struct(None, ("id", Schema(SchemaType.STRING))).fields,
)
NOTIFICATION_VALUE = Schema(
    SchemaType.STRUCT,
    name="io.debezium.connector.common.Notification",
    version=1,
    fields=Schema.struct(
        None,
        ("id", Schema(SchemaType.STRING)),
        ("type", Schema(SchemaType.STRING)),
        ("aggregate_type", Schema(SchemaType.STRING)),
        ("additional_data", Schema.map(Schema(SchemaType.STRING), Schema(SchemaType.STRING), optional=True)),
        ("timestamp", Schema(SchemaType.INT64)),
    ).fields,
)

CHANNELS = ("sink", "log")
"""Debezium's channels this connector sends to (Debezium's `jmx` has no counterpart here)."""
CHANNELS_KEY = "notification.enabled.channels"
TOPIC_KEY = "notification.sink.topic.name"
LOG_PREFIX = "[Notification Service] "  # logged as "{} {}": two spaces before the notification

INCREMENTAL_SNAPSHOT = "Incremental Snapshot"
INITIAL_SNAPSHOT = "Initial Snapshot"
LIST_DELIMITER = ","
NULL = "<null>"
TABLE_SCAN_STATUSES = ("EMPTY", "NO_PRIMARY_KEY", "SKIPPED", "SQL_EXCEPTION", "SUCCEEDED", "UNKNOWN_SCHEMA")
"""`IncrementalSnapshotNotificationService.TableScanCompletionStatus`."""

Clock = Callable[[], int]
"""Now, in epoch milliseconds."""


def epoch_ms() -> int:
    return time.time_ns() // 1_000_000


class Notifier:
    """Sends notifications to the connector's enabled channels: `log` logs Debezium's line at INFO, `sink`
    makes the record for `topic`, at the partition and offset the connector is at (Debezium sends it
    through its change-event queue, in order with the data records). `incremental` and `initial` make the
    notifications, for `connector_name` (`topic.prefix`)."""

    def __init__(
        self, channels: Collection[str], topic: str | None, connector_name: str, clock: Clock | None = None
    ) -> None:
        unknown = sorted(set(channels) - set(CHANNELS))
        if unknown:
            raise ConfigError(
                {CHANNELS_KEY: f"unknown channel(s) {', '.join(unknown)}; allowed: {', '.join(CHANNELS)}"}
            )
        if "sink" in channels and not topic:
            raise ConfigError({TOPIC_KEY: f"required when {CHANNELS_KEY} includes sink"})
        self.logs = "log" in channels
        self.route: Route | None = (
            (topic, NOTIFICATION_KEY, NOTIFICATION_VALUE, ()) if "sink" in channels and topic else None
        )
        self.incremental = IncrementalNotifications(connector_name, clock or epoch_ms)
        self.initial = InitialNotifications(connector_name, clock or epoch_ms)

    @property
    def enabled(self) -> bool:
        """Whether any channel is on (with none, Debezium sends nothing)."""
        return self.logs or self.route is not None

    def notify_pending(self, notification: Notification, offset: Mapping[str, Any] | None) -> Pending | None:
        """Log `notification` (channel `log`) and return its record for the pending queue (channel `sink`;
        None without it): the offset the connector is at (empty when it has none yet, as Debezium's)."""
        if self.logs:
            log.info("%s %s", LOG_PREFIX, java_text(notification))
        if self.route is None:
            return None
        return dict(offset or {}), {"id": notification.id}, notification_value(notification), self.route

    def notify(
        self, notification: Notification, partition: SourcePartition, offset: Mapping[str, Any] | None
    ) -> SourceRecord | None:
        """`notify_pending`, as a `SourceRecord` of `partition`."""
        pending = self.notify_pending(notification, offset)
        if pending is None:
            return None
        record_offset, key, value, (topic, key_schema, value_schema, _) = pending
        return SourceRecord(
            partition, record_offset, topic, value, key, key_schema=key_schema, value_schema=value_schema
        )


def notification_value(notification: Notification) -> dict[str, Any]:
    """The record value, a `io.debezium.connector.common.Notification` struct."""
    return {
        "id": notification.id,
        "type": notification.type,
        "aggregate_type": notification.aggregate_type,
        "additional_data": dict(notification.additional_data),
        "timestamp": notification.timestamp,
    }


def java_text(notification: Notification) -> str:
    """Debezium's `Notification.toString()`: `{id='…', aggregateType='…', type='…', additionalData={k=v, …},
    timestamp=…}`."""
    data = ", ".join(f"{key}={value}" for key, value in notification.additional_data.items())
    return (
        f"{{id='{notification.id}', aggregateType='{notification.aggregate_type}', type='{notification.type}', "
        f"additionalData={{{data}}}, timestamp={notification.timestamp}}}"
    )


class IncrementalNotifications:
    """The notifications of an incremental snapshot (aggregate type "Incremental Snapshot"), each with the
    `additional_data` Debezium gives it plus `connector_name` (`topic.prefix`); its id is the
    `execute-snapshot` signal's (the snapshot's correlation id) when there is one, else a random UUID."""

    def __init__(self, connector_name: str, clock: Clock = epoch_ms) -> None:
        self._connector_name = connector_name
        self._clock = clock

    def started(self, correlation_id: str | None, data_collections: Sequence[str]) -> Notification:
        return self._build(correlation_id, "STARTED", {"data_collections": _joined(data_collections)})

    def paused(self, correlation_id: str | None, data_collections: Sequence[str]) -> Notification:
        return self._build(correlation_id, "PAUSED", {"data_collections": _joined(data_collections)})

    def resumed(self, correlation_id: str | None, data_collections: Sequence[str]) -> Notification:
        return self._build(correlation_id, "RESUMED", {"data_collections": _joined(data_collections)})

    def in_progress(
        self,
        correlation_id: str | None,
        data_collections: Sequence[str],
        current: str,
        maximum_key: Sequence[Any] | None,
        last_processed_key: Sequence[Any],
    ) -> Notification:
        """After a non-empty chunk was read: `maximum_key` the table's (None when unknown: Debezium then
        writes `"<null>"`, quotes included), `last_processed_key` the chunk's last key; each key's values
        joined by `,`, a null value as `<null>`."""
        return self._build(
            correlation_id,
            "IN_PROGRESS",
            {
                "data_collections": _joined(data_collections),
                "current_collection_in_progress": current,
                "maximum_key": f'"{NULL}"' if maximum_key is None else key_text(maximum_key),
                "last_processed_key": key_text(last_processed_key),
            },
        )

    def table_scan_completed(
        self, correlation_id: str | None, data_collections: Sequence[str], scanned: str, total_rows: int, status: str
    ) -> Notification:
        """A table finished (or was skipped); `status` one of `TABLE_SCAN_STATUSES`."""
        if status not in TABLE_SCAN_STATUSES:
            raise ValueError(f"table scan status {status!r} is not one of {', '.join(TABLE_SCAN_STATUSES)}")
        return self._build(
            correlation_id,
            "TABLE_SCAN_COMPLETED",
            {
                "data_collections": _joined(data_collections),
                "scanned_collection": scanned,
                "total_rows_scanned": str(total_rows),
                "status": status,
            },
        )

    def completed(self, correlation_id: str | None) -> Notification:
        return self._build(correlation_id, "COMPLETED", {})

    def aborted(self, correlation_id: str | None, stopped: Sequence[str] | None = None) -> Notification:
        """A stop was processed: `stopped` the collections it named (None: Debezium's form without any)."""
        return self._build(correlation_id, "ABORTED", {} if stopped is None else {"data_collections": _joined(stopped)})

    def _build(self, correlation_id: str | None, kind: str, data: dict[str, str]) -> Notification:
        return Notification(
            correlation_id if correlation_id is not None else str(uuid.uuid4()),
            INCREMENTAL_SNAPSHOT,
            kind,
            java_hash_map({**data, "connector_name": self._connector_name}),
            self._clock(),
        )


class InitialNotifications:
    """The notifications of an initial (or blocking) snapshot (aggregate type "Initial Snapshot"), as
    Debezium's relational snapshot sends them: random UUID ids, `connector_name` in every
    `additional_data`."""

    def __init__(self, connector_name: str, clock: Clock = epoch_ms) -> None:
        self._connector_name = connector_name
        self._clock = clock

    def started(self) -> Notification:
        return self._build("STARTED", {})

    def skipped(self) -> Notification:
        """No snapshot is taken (the snapshot mode says none, or it was done before)."""
        return self._build("SKIPPED", {})

    def table_in_progress(self, current: str, data_collections: Sequence[str]) -> Notification:
        return self._build(
            "IN_PROGRESS", {"current_collection_in_progress": current, "data_collections": _joined(data_collections)}
        )

    def table_completed(self, scanned: str, total_rows: int, data_collections: Sequence[str]) -> Notification:
        return self._build(
            "TABLE_SCAN_COMPLETED",
            {
                "scanned_collection": scanned,
                "data_collections": _joined(data_collections),
                "total_rows_scanned": str(total_rows),
                "status": "SUCCEEDED",
            },
        )

    def table_failed(self, scanned: str) -> Notification:
        """Reading the table failed (Debezium: an SQL exception)."""
        return self._build("TABLE_SCAN_COMPLETED", {"scanned_collection": scanned, "status": "SQL_EXCEPTION"})

    def completed(self) -> Notification:
        return self._build("COMPLETED", {})

    def aborted(self) -> Notification:
        return self._build("ABORTED", {})

    def _build(self, kind: str, data: dict[str, str]) -> Notification:
        return Notification(
            str(uuid.uuid4()),
            INITIAL_SNAPSHOT,
            kind,
            java_hash_map({**data, "connector_name": self._connector_name}),
            self._clock(),
        )


def key_text(values: Sequence[Any]) -> str:
    """A key's values as Debezium joins them (`Objects.toString(x, "<null>")`, then `,`)."""
    return LIST_DELIMITER.join(_java_string(value) for value in values)


def _java_string(value: Any) -> str:
    if value is None:
        return NULL
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _joined(collections: Sequence[str]) -> str:
    return LIST_DELIMITER.join(collections)


def java_hash_map(entries: Mapping[str, str]) -> dict[str, str]:
    """`entries` in the order a Java `HashMap` built as Debezium builds `additional_data` iterates them:
    `new HashMap<>(data)` (sized for `data`), then `put("connector_name", …)` (the last entry here).

    A HashMap iterates its buckets in index order, and the keys of one bucket in the order they were put
    (a resize keeps that order); a key's bucket is `(h ^ (h >>> 16)) & (capacity - 1)`, `h` its Java
    `hashCode`. Only the final capacity matters, so it is worked out and the keys sorted by bucket. Two
    keys of one bucket come in the order `data` lists them; Debezium's come in the order of its `Map.of`,
    which changes from one JVM to the next (IN_PROGRESS's `last_processed_key` and `data_collections`
    share a bucket: either order is Debezium's)."""
    keys = list(entries)
    first = len(keys) - 1  # the entries of the map the HashMap is copied from
    capacity = _table_size(int(first / 0.75 + 1.0)) if first > 0 else 16
    threshold = int(capacity * 0.75)
    if len(keys) > threshold:
        capacity *= 2
    order = sorted(range(len(keys)), key=lambda i: (_spread(_java_hash(keys[i])) & (capacity - 1), i))
    return {keys[i]: entries[keys[i]] for i in order}


def _table_size(wanted: int) -> int:
    """Java's `HashMap.tableSizeFor`: the least power of two at or above `wanted` (at least 1)."""
    size = 1
    while size < wanted:
        size *= 2
    return size


def _java_hash(text: str) -> int:
    """Java's `String.hashCode()`, over UTF-16 code units, as an unsigned 32-bit number."""
    h = 0
    units = text.encode("utf-16-be")
    for i in range(0, len(units), 2):
        h = (31 * h + (units[i] << 8 | units[i + 1])) & 0xFFFFFFFF
    return h


def _spread(h: int) -> int:
    return h ^ (h >> 16)
