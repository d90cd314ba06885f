"""The Debezium keys the CDC connectors do not implement, each with its verdict under the rule of
unimplemented_keys.py (refused when they would change what is written, unless set to what the connector
does anyway; warned when they only tune): first the keys both connectors share, with one verdict for both,
then each connector's own. Within a list, a key comes before a prefix that covers it."""

from __future__ import annotations

from .unimplemented_keys import UnimplementedKey as Key
from .unimplemented_keys import key_warnings

SHARED_UNIMPLEMENTED = (
    Key("database.initial.statements", True, "it runs statements on each connection (they may change values)"),
    Key("snapshot.select.statement.overrides", True, "it changes which rows the snapshot reads"),
    Key("snapshot.include.collection.list", True, "it changes which tables the snapshot reads"),
    Key("snapshot.query.mode", True, "it replaces the snapshot's queries", ("select_all",)),
    Key("converters", True, "custom converters change columns' values and schemas"),
    Key("topic.naming.strategy", True, "topics are always <topic.prefix>.<namespace>.<table>"),
    Key("topic.delimiter", True, "topics are always <topic.prefix>.<namespace>.<table>", (".",)),
    Key("provide.transaction.metadata", True, "it adds transaction events and the transaction block", ("false",)),
    Key("event.processing.failure.handling.mode", True, "warn or skip would drop events", ("fail",)),
    Key("field.name.adjustment.mode", True, "it renames fields", ("none",)),
    Key("schema.name.adjustment.mode", True, "it renames schemas", ("none",)),
    Key("read.only", True, "read-only incremental snapshots (no signal table) are not implemented", ("false",)),
    Key(
        "incremental.snapshot.allow.schema.changes",
        True,
        "a schema change mid-snapshot is not checked chunk by chunk",
        ("false",),
    ),
    Key("database.server.name"),  # Debezium 1.x's; topic.prefix names the topics now
    Key("snapshot.fetch.size"),
    Key("snapshot.lock.timeout.ms"),
    Key("snapshot.max.threads"),
    Key("snapshot.delay.ms"),
    Key("signal.emit.failure.max.retries"),
    Key("signal.emit.failure.backoff.ms"),
    Key("signal.kafka.poll.timeout.ms"),
    Key("max.queue.size.in.bytes"),
    Key("retriable.restart.connector.wait.ms"),
    Key("custom.metric.tags"),
    Key("heartbeat.action.query"),
    Key("table.ignore.builtin"),
    Key("topic.transaction"),
    Key("errors.max.retries"),
)
POSTGRES_UNIMPLEMENTED = (
    *SHARED_UNIMPLEMENTED,
    Key("include.unknown.datatypes", True, "it adds columns of unknown types", ("false",)),
    Key("slot.stream.params", True, "it changes what the slot's output plugin sends"),
    Key("publish.via.partition.root", True, "it sends partitions' changes to the parent table's topic", ("false",)),
    Key("xmin.fetch.interval.ms", True, "it fills source.xmin", ("0",)),
    Key("database.tcpKeepAlive"),
    Key("database.sslcert"),
    Key("database.sslkey"),
    Key("database.sslpassword"),
    Key("database.sslrootcert"),
    Key("database.sslfactory"),
    Key("database.query.timeout.ms"),
    Key("snapshot.isolation.mode"),
    Key("snapshot.locking.mode"),
    Key("slot.max.retries"),
    Key("slot.retry.delay.ms"),
    Key("slot.failover"),
    Key("status.update.interval.ms"),
    Key("schema.refresh.mode"),
    Key("include.schema.changes"),  # Debezium's PostgreSQL connector sends no schema change events either
    Key("flush.lsn.source"),
    Key("lsn.flush.timeout.ms"),
    Key("message.prefix.include.list"),
    Key("message.prefix.exclude.list"),
)
MYSQL_UNIMPLEMENTED = (
    *SHARED_UNIMPLEMENTED,
    Key("database.ssl.mode", True, "TLS to the database is not implemented", ("disabled",)),
    Key("gtid.source.includes", True, "it filters the changes by GTID source"),
    Key("gtid.source.excludes", True, "it filters the changes by GTID source"),
    Key("include.query", True, "it fills source.query", ("false",)),
    Key("inconsistent.schema.handling.mode", True, "warn or skip would drop events", ("fail",)),
    Key("event.deserialization.failure.handling.mode", True, "warn or skip would drop events", ("fail",)),
    Key("database.connectionTimeZone"),
    Key("database.jdbc.driver"),
    Key("database.protocol"),
    Key("connect.timeout.ms"),
    Key("connect.keep.alive"),
    Key("connect.keep.alive.interval.ms"),
    Key("snapshot.tables.order.by.row.count"),
    Key("min.row.count.to.stream.results"),
    Key("enable.time.adjuster"),
    Key("binlog.buffer.size"),
    Key("schema.history.internal.store.only.captured.tables.ddl"),
    Key("schema.history.internal.store.only.captured.databases.ddl"),
    Key("schema.history.internal.kafka.recovery.poll.interval.ms"),
    Key("schema.history.internal.kafka.recovery.attempts"),
    Key("schema.history.internal.kafka.query.timeout.ms"),
    Key("schema.history.internal.producer."),
    Key("schema.history.internal.consumer."),
)
POSTGRES_KEY_WARNINGS = key_warnings("PostgreSQL")
MYSQL_KEY_WARNINGS = key_warnings("MySQL")
