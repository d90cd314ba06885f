"""The Debezium MySQL connector keys this connector does not implement and whose absence changes nothing a
record holds (tuning, retries, metrics, naming adjustments for Avro): listed once, in one warning, when a
connector is created, and otherwise ignored. Keys whose absence would change what is captured or how it is
written are refused at validate instead (settings.py's UNSUPPORTED_KEYS)."""

from __future__ import annotations

from collections.abc import Mapping

from connectworker.config.unsupported_keys import ConnectorKeyWarnings

from ..debezium.keys import listed_keys
from .keys import CONFIG_DEF

# Debezium MySQL keys (exact, or a prefix ending in '.') this connector does not implement.
DEBEZIUM_KEYS = (
    "database.server.name",
    "database.connectionTimeZone",
    "database.jdbc.driver",
    "database.protocol",
    "connect.timeout.ms",
    "connect.keep.alive",
    "connect.keep.alive.interval.ms",
    "max.queue.size",
    "max.queue.size.in.bytes",
    "max.batch.size",
    "poll.interval.ms",
    "snapshot.fetch.size",
    "snapshot.lock.timeout.ms",
    "snapshot.max.threads",
    "snapshot.delay.ms",
    "snapshot.tables.order.by.row.count",
    "min.row.count.to.stream.results",
    "event.deserialization.failure.handling.mode",
    "event.processing.failure.handling.mode",
    "inconsistent.schema.handling.mode",
    "include.query",
    "provide.transaction.metadata",
    "enable.time.adjuster",
    "binlog.buffer.size",
    "table.ignore.builtin",
    "schema.history.internal.store.only.captured.tables.ddl",
    "schema.history.internal.store.only.captured.databases.ddl",
    "schema.history.internal.kafka.recovery.poll.interval.ms",
    "schema.history.internal.kafka.recovery.attempts",
    "schema.history.internal.kafka.query.timeout.ms",
    "schema.history.internal.producer.",
    "schema.history.internal.consumer.",
    "field.name.adjustment.mode",
    "schema.name.adjustment.mode",
    "retriable.restart.connector.wait.ms",
    "notification.enabled.channels",
    "custom.metric.tags",
    "heartbeat.action.query",
    "topic.delimiter",
    "topic.transaction",
    "errors.max.retries",
)
DEBEZIUM_KEY_WARNINGS = ConnectorKeyWarnings(
    "{a}Debezium MySQL connector key{s} this connector does not implement: ignored, as none changes a record "
    "it writes (docs/cdc.md)"
)


def unimplemented_keys(props: Mapping[str, str]) -> list[str]:
    return listed_keys(props, DEBEZIUM_KEYS, CONFIG_DEF.keys)
