"""The keys every CDC connector shares, Debezium's names, defaults and meanings, defined once
(`capture_keys`): the connection, what is captured, how records are keyed and shaped, what is sent, and how
a task reads. Each database's keys.py adds its own (`snapshot.mode`, its type keys, its slot or history)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, at_least, in_range

from .keys import (
    BINARY_MODES,
    DECIMAL_MODES,
    message_key_columns,
    operations,
    regex_list,
    required_text,
    topic_prefix,
)
from .signal_keys import signal_key_problems, signal_keys

HOSTNAME, PORT, USER, PASSWORD = "database.hostname", "database.port", "database.user", "database.password"
TOPIC_PREFIX = "topic.prefix"
TABLE_INCLUDE, TABLE_EXCLUDE = "table.include.list", "table.exclude.list"
COLUMN_INCLUDE, COLUMN_EXCLUDE = "column.include.list", "column.exclude.list"
MESSAGE_KEY_COLUMNS = "message.key.columns"
COLUMN_PROPAGATE, DATATYPE_PROPAGATE = "column.propagate.source.type", "datatype.propagate.source.type"
SKIPPED_OPERATIONS, TOMBSTONES = "skipped.operations", "tombstones.on.delete"
DECIMAL_MODE, BINARY_MODE = "decimal.handling.mode", "binary.handling.mode"
HEARTBEAT_MS, HEARTBEAT_PREFIX = "heartbeat.interval.ms", "topic.heartbeat.prefix"
MAX_BATCH, MAX_QUEUE, POLL_MS = "max.batch.size", "max.queue.size", "poll.interval.ms"
COMPACT_KEYED = "compact.keyed.table.topics"
RETRY_TIMEOUT = "errors.retry.timeout"  # Kafka Connect's key (the worker defines it); the tasks act on it

DATABASE, CONNECTOR, TYPES = "Database", "Connector", "Types"


def capture_keys(*, server: str, namespace: str, default_port: int, user_needs: str) -> ConfigDef:
    """The shared keys of a connector for `server` (PostgreSQL, MySQL or MariaDB) whose tables live in a
    `namespace` (schema, database): `<namespace>.include.list` and `.exclude.list` are its lists; then the keys
    of signals, incremental snapshots and notifications (signal_keys.py)."""
    return _capture_keys(server, namespace, default_port, user_needs).merge(signal_keys(namespace))


def _capture_keys(server: str, namespace: str, default_port: int, user_needs: str) -> ConfigDef:
    spaces = f"{namespace}.include.list", f"{namespace}.exclude.list"
    return (
        ConfigDef()
        .define(
            HOSTNAME,
            ConfigType.STRING,
            validator=required_text,
            importance=Importance.HIGH,
            group=DATABASE,
            documentation=f"The {server} server's host name or address.",
        )
        .define(
            PORT,
            ConfigType.INT,
            default_port,
            validator=in_range(1, 65535),
            group=DATABASE,
            documentation="The server's port.",
        )
        .define(
            USER,
            ConfigType.STRING,
            validator=required_text,
            importance=Importance.HIGH,
            group=DATABASE,
            documentation=f"The user: needs {user_needs}.",
        )
        .define(
            PASSWORD,
            ConfigType.PASSWORD,
            None,
            group=DATABASE,
            documentation="The user's password (a secret: hidden wherever configs are shown).",
        )
        .define(
            TOPIC_PREFIX,
            ConfigType.STRING,
            validator=topic_prefix,
            importance=Importance.HIGH,
            group=CONNECTOR,
            documentation=f"The first part of every topic name: <topic.prefix>.<{namespace}>.<table>; also the "
            "source partition and source.name.",
        )
        .define(
            spaces[0],
            ConfigType.LIST,
            "",
            validator=regex_list,
            group=CONNECTOR,
            documentation=f"Regular expressions matched against whole {namespace} names, ignoring case; empty: "
            f"every {namespace}. The table lists then apply within the captured {namespace}s.",
        )
        .define(
            spaces[1],
            ConfigType.LIST,
            "",
            validator=regex_list,
            group=CONNECTOR,
            documentation=f"Regular expressions matched against whole {namespace} names, ignoring case: their "
            "tables are not captured.",
        )
        .define(
            TABLE_INCLUDE,
            ConfigType.LIST,
            "",
            validator=regex_list,
            group=CONNECTOR,
            documentation=f"Regular expressions matched against whole {namespace}.table names, ignoring case; "
            "empty: every table.",
        )
        .define(
            TABLE_EXCLUDE,
            ConfigType.LIST,
            "",
            validator=regex_list,
            group=CONNECTOR,
            documentation=f"Regular expressions of {namespace}.table names left out (whole names, ignoring case).",
        )
        .define(
            COLUMN_INCLUDE,
            ConfigType.LIST,
            "",
            validator=regex_list,
            group=CONNECTOR,
            documentation=f"Regular expressions matched against whole {namespace}.table.column names, ignoring "
            "case; empty: every column.",
        )
        .define(
            COLUMN_EXCLUDE,
            ConfigType.LIST,
            "",
            validator=regex_list,
            group=CONNECTOR,
            documentation=f"Regular expressions of {namespace}.table.column names left out (whole names, ignoring "
            "case).",
        )
        .define(
            MESSAGE_KEY_COLUMNS,
            ConfigType.STRING,
            "",
            validator=message_key_columns,
            group=CONNECTOR,
            documentation=f"Keys other than the primary key, as Debezium's: <{namespace}.table regex>:<column>"
            "[,<column>...], several separated by ';' (e.g. 'inventory.orders:customer_id,order_no;(.*).audit:id'). "
            "A table matching a regular expression (the first that does) is keyed by those columns, in that order.",
        )
        .define(
            COLUMN_PROPAGATE,
            ConfigType.LIST,
            "",
            validator=regex_list,
            group=TYPES,
            documentation=f"Regular expressions matched (ignoring case) against whole {namespace}.table.column "
            "names: those columns' schemas carry their source type in Debezium's __debezium.source.column.type, "
            ".length and .scale parameters.",
        )
        .define(
            DATATYPE_PROPAGATE,
            ConfigType.LIST,
            "",
            validator=regex_list,
            group=TYPES,
            documentation=f"The same, for the columns whose {namespace}.table.TYPE matches (ignoring case; the type "
            "as the database names it: .+\\.NUMERIC, .+\\.VARCHAR).",
        )
        .define(
            SKIPPED_OPERATIONS,
            ConfigType.LIST,
            "t",
            validator=operations,
            group=CONNECTOR,
            documentation="Operations whose change events are not sent, as Debezium's: a list of c (insert), u "
            "(update), d (delete), t (truncate), or none. Default t: a TRUNCATE is sent only when this leaves it "
            "out.",
        )
        .define(
            TOMBSTONES,
            ConfigType.BOOLEAN,
            True,
            group=CONNECTOR,
            documentation="Follow each delete with a tombstone (same key, null value) for compaction.",
        )
        .define_choice(
            DECIMAL_MODE,
            "precise",
            DECIMAL_MODES,
            group=TYPES,
            documentation="Decimal columns: precise (Connect's Decimal), double (float64) or string.",
        )
        .define_choice(
            BINARY_MODE,
            "bytes",
            BINARY_MODES,
            group=TYPES,
            documentation="Binary columns: bytes, or base64, base64-url-safe, hex strings.",
        )
        .define(
            HEARTBEAT_MS,
            ConfigType.INT,
            0,
            validator=at_least(0),
            group=CONNECTOR,
            documentation="Every so often (0: never) a record to <topic.heartbeat.prefix>.<topic.prefix> "
            "carrying the current position, so the offsets advance when no captured table changes.",
        )
        .define(
            HEARTBEAT_PREFIX,
            ConfigType.STRING,
            "__debezium-heartbeat",
            validator=topic_prefix,
            group=CONNECTOR,
            documentation="The heartbeat topic's prefix.",
        )
        .define(
            MAX_BATCH,
            ConfigType.INT,
            2048,
            validator=at_least(1),
            group=CONNECTOR,
            documentation="The most records one poll returns.",
        )
        .define(
            MAX_QUEUE,
            ConfigType.INT,
            8192,
            validator=at_least(1),
            group=CONNECTOR,
            documentation="The most change records a task holds before they are polled (a transaction larger "
            "than this is handed on in parts); larger than max.batch.size, as Debezium requires.",
        )
        .define(
            POLL_MS,
            ConfigType.INT,
            500,
            validator=at_least(1),
            group=CONNECTOR,
            documentation="How long a poll waits for changes when there are none.",
        )
        .define(
            COMPACT_KEYED,
            ConfigType.BOOLEAN,
            False,
            group=CONNECTOR,
            documentation="Not Debezium's: create the topic of a table with a key compacted "
            "(cleanup.policy=compact), as KIP-158's settings_for_new_topic allows.",
        )
    )


def capture_key_problems(values: Mapping[str, Any], namespace: str) -> dict[str, str]:
    """The rules across the shared keys, on the typed values of the keys that hold."""
    problems = {}
    for include, exclude in (
        (f"{namespace}.include.list", f"{namespace}.exclude.list"),
        (TABLE_INCLUDE, TABLE_EXCLUDE),
        (COLUMN_INCLUDE, COLUMN_EXCLUDE),
    ):
        if values.get(include) and values.get(exclude):
            problems[exclude] = f"set {include} or {exclude}, not both"
    batch, queue = values.get(MAX_BATCH), values.get(MAX_QUEUE)
    if batch is not None and queue is not None and queue <= batch:
        problems[MAX_QUEUE] = f"must be larger than {MAX_BATCH} ({batch}), as Debezium requires; got {queue}"
    return {**problems, **signal_key_problems(values)}
