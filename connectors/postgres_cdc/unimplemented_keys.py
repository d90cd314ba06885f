"""The Debezium PostgreSQL connector keys this connector does not implement: listed once, in one warning,
when a connector is created (the way Kafka keys the worker ignores are), and otherwise ignored."""

from __future__ import annotations

from collections.abc import Mapping

from connectworker.config.unsupported_keys import ConnectorKeyWarnings

from ..debezium.keys import listed_keys
from .keys import CONFIG_DEF

# Debezium PostgreSQL keys (exact, or a prefix ending in '.') this connector does not implement.
DEBEZIUM_KEYS = (
    "database.server.name",
    "database.initial.statements",
    "database.tcpKeepAlive",
    "database.sslcert",
    "database.sslkey",
    "database.sslpassword",
    "database.sslrootcert",
    "database.sslfactory",
    "database.query.timeout.ms",
    "snapshot.select.statement.overrides",
    "snapshot.fetch.size",
    "snapshot.lock.timeout.ms",
    "snapshot.max.threads",
    "snapshot.include.collection.list",
    "snapshot.delay.ms",
    "snapshot.isolation.mode",
    "snapshot.locking.mode",
    "snapshot.query.mode",
    "max.queue.size",
    "max.queue.size.in.bytes",
    "include.unknown.datatypes",
    "slot.stream.params",
    "slot.max.retries",
    "slot.retry.delay.ms",
    "slot.failover",
    "status.update.interval.ms",
    "provide.transaction.metadata",
    "signal.data.collection",
    "signal.enabled.channels",
    "event.processing.failure.handling.mode",
    "schema.refresh.mode",
    "converters",
    "publish.via.partition.root",
    "xmin.fetch.interval.ms",
    "include.schema.changes",
    "field.name.adjustment.mode",
    "schema.name.adjustment.mode",
    "incremental.snapshot.chunk.size",
    "flush.lsn.source",
    "retriable.restart.connector.wait.ms",
    "notification.enabled.channels",
    "lsn.flush.timeout.ms",
    "topic.naming.strategy",
    "topic.delimiter",
    "topic.transaction",
    "custom.metric.tags",
    "heartbeat.action.query",
    "table.ignore.builtin",
    "tombstones.on.delete.",
    "column.mask.",
    "column.truncate.",
    "column.mask.hash.",
    "message.prefix.include.list",
    "message.prefix.exclude.list",
    "errors.max.retries",
    "decimal.handling.",
)
DEBEZIUM_KEY_WARNINGS = ConnectorKeyWarnings(
    "{a}Debezium PostgreSQL connector key{s} this connector does not implement: ignored (docs/cdc.md)"
)


def unimplemented_keys(props: Mapping[str, str]) -> list[str]:
    return listed_keys(props, DEBEZIUM_KEYS, CONFIG_DEF.keys)
