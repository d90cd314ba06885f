"""The MySQL / MariaDB CDC connector's keys, Debezium's names, so a Debezium MySQL connector file runs
unchanged: their definitions and checks (`CONFIG_DEF`), each bad value refused at validate naming the key
and what is allowed."""

from __future__ import annotations

import re
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, at_least, in_range, one_of
from connectworker.connectors.postgres_cdc.keys import parse_message_key_columns

HOSTNAME, PORT, USER, PASSWORD = "database.hostname", "database.port", "database.user", "database.password"
SERVER_ID, TOPIC_PREFIX = "database.server.id", "topic.prefix"
DATABASE_INCLUDE, DATABASE_EXCLUDE = "database.include.list", "database.exclude.list"
TABLE_INCLUDE, TABLE_EXCLUDE, COLUMN_EXCLUDE = "table.include.list", "table.exclude.list", "column.exclude.list"
SNAPSHOT_MODE, LOCKING_MODE = "snapshot.mode", "snapshot.locking.mode"
HISTORY_SERVERS = "schema.history.internal.kafka.bootstrap.servers"
HISTORY_TOPIC = "schema.history.internal.kafka.topic"
SCHEMA_CHANGES, TOMBSTONES = "include.schema.changes", "tombstones.on.delete"
DECIMAL_MODE, TIME_MODE = "decimal.handling.mode", "time.precision.mode"
BIGINT_MODE, BINARY_MODE = "bigint.unsigned.handling.mode", "binary.handling.mode"
HEARTBEAT_MS, SKIPPED_OPERATIONS, MESSAGE_KEY_COLUMNS = (
    "heartbeat.interval.ms",
    "skipped.operations",
    "message.key.columns",
)

SNAPSHOT_MODES = ("initial", "initial_only", "no_data", "never", "when_needed")
LOCKING_MODES = ("minimal", "none")
DECIMAL_MODES = ("precise", "double", "string")
TIME_MODES = ("adaptive_time_microseconds", "connect")
BIGINT_MODES = ("long", "precise")
BINARY_MODES = ("bytes", "base64", "base64-url-safe", "hex")
OPERATIONS = ("c", "u", "d", "t")

_DATABASE, _CONNECTOR, _TYPES = "Database", "Connector", "Types"


def _required_text(key: str, value: Any) -> None:
    if value is None or not str(value).strip():
        raise ValueError("must be set")


def _topic_prefix(key: str, value: Any) -> None:
    if not re.fullmatch(r"[a-zA-Z0-9._-]+", str(value or "")):
        raise ValueError("must be set, with ASCII letters, digits, '.', '_' and '-' only (it begins topic names)")


def _regex_list(key: str, value: Any) -> None:
    for pattern in value or []:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{pattern!r} is not a valid regular expression: {exc}") from None


def _operations(key: str, value: Any) -> None:
    wrong = [op for op in (o.strip().lower() for o in value or []) if op not in (*OPERATIONS, "none")]
    if wrong:
        raise ValueError(f"Value must be a list of c, u, d, t, or none; got {', '.join(wrong)}")


def _message_key_columns(key: str, value: Any) -> None:
    parse_message_key_columns(value)


def _mode(*allowed: str) -> Any:
    return one_of(*allowed)


CONFIG_DEF = (
    ConfigDef()
    .define(
        HOSTNAME,
        ConfigType.STRING,
        validator=_required_text,
        importance=Importance.HIGH,
        group=_DATABASE,
        documentation="The MySQL or MariaDB server's host name or address.",
    )
    .define(
        PORT, ConfigType.INT, 3306, validator=in_range(1, 65535), group=_DATABASE, documentation="The server's port."
    )
    .define(
        USER,
        ConfigType.STRING,
        validator=_required_text,
        importance=Importance.HIGH,
        group=_DATABASE,
        documentation="The user: needs SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE and REPLICATION "
        "CLIENT (MariaDB: BINLOG MONITOR).",
    )
    .define(
        PASSWORD,
        ConfigType.PASSWORD,
        None,
        group=_DATABASE,
        documentation="The user's password (a secret: hidden wherever configs are shown).",
    )
    .define(
        SERVER_ID,
        ConfigType.LONG,
        validator=in_range(1, 4_294_967_295),
        importance=Importance.HIGH,
        group=_DATABASE,
        documentation="The connector's own replica id, unique among the server's replicas "
        "(not the database's server_id, which source.server_id carries).",
    )
    .define(
        TOPIC_PREFIX,
        ConfigType.STRING,
        validator=_topic_prefix,
        importance=Importance.HIGH,
        group=_CONNECTOR,
        documentation="Topics are <topic.prefix>.<database>.<table>; schema changes go to <topic.prefix>.",
    )
    .define(
        DATABASE_INCLUDE,
        ConfigType.LIST,
        "",
        validator=_regex_list,
        group=_CONNECTOR,
        documentation="Regular expressions matched against whole database names; empty: every database.",
    )
    .define(
        DATABASE_EXCLUDE,
        ConfigType.LIST,
        "",
        validator=_regex_list,
        group=_CONNECTOR,
        documentation="Databases left out (whole-name regular expressions).",
    )
    .define(
        TABLE_INCLUDE,
        ConfigType.LIST,
        "",
        validator=_regex_list,
        group=_CONNECTOR,
        documentation="Regular expressions matched against whole database.table names; empty: every table.",
    )
    .define(
        TABLE_EXCLUDE,
        ConfigType.LIST,
        "",
        validator=_regex_list,
        group=_CONNECTOR,
        documentation="Tables left out (whole database.table regular expressions).",
    )
    .define(
        COLUMN_EXCLUDE,
        ConfigType.LIST,
        "",
        validator=_regex_list,
        group=_CONNECTOR,
        documentation="Columns left out (whole database.table.column regular expressions).",
    )
    .define(
        SNAPSHOT_MODE,
        ConfigType.STRING,
        "initial",
        validator=_mode(*SNAPSHOT_MODES),
        group=_CONNECTOR,
        recommended_values=SNAPSHOT_MODES,
        documentation="initial: snapshot once, then stream; initial_only: snapshot, then stop; no_data "
        "(never): stream only; when_needed: snapshot again when the binlog position is gone.",
    )
    .define(
        LOCKING_MODE,
        ConfigType.STRING,
        "minimal",
        validator=_mode(*LOCKING_MODES),
        group=_CONNECTOR,
        recommended_values=LOCKING_MODES,
        documentation="minimal: a global read lock only while the binlog position is read; none: no lock.",
    )
    .define(
        HISTORY_SERVERS,
        ConfigType.STRING,
        "",
        group=_CONNECTOR,
        documentation="The Kafka cluster of the schema history topic; empty: the worker's.",
    )
    .define(
        HISTORY_TOPIC,
        ConfigType.STRING,
        validator=_required_text,
        importance=Importance.HIGH,
        group=_CONNECTOR,
        documentation="The schema history topic: one partition, retention.ms=-1, cleanup.policy=delete.",
    )
    .define(
        SCHEMA_CHANGES,
        ConfigType.BOOLEAN,
        True,
        group=_CONNECTOR,
        documentation="Whether schema change events go to the <topic.prefix> topic.",
    )
    .define(
        TOMBSTONES,
        ConfigType.BOOLEAN,
        True,
        group=_CONNECTOR,
        documentation="Whether a delete is followed by a tombstone (a null value under the row's key).",
    )
    .define(
        HEARTBEAT_MS,
        ConfigType.INT,
        0,
        validator=at_least(0),
        group=_CONNECTOR,
        documentation="Every so often (0: never) a heartbeat record carrying the binlog position.",
    )
    .define(
        SKIPPED_OPERATIONS,
        ConfigType.LIST,
        "t",
        validator=_operations,
        group=_CONNECTOR,
        documentation="Operations whose change events are not sent: c, u, d, t, or none.",
    )
    .define(
        MESSAGE_KEY_COLUMNS,
        ConfigType.STRING,
        "",
        validator=_message_key_columns,
        group=_CONNECTOR,
        documentation="<database.table regex>:<column>[,<column>...] entries, ';'-separated: the key "
        "columns of the tables they match, in place of the primary key.",
    )
    .define(
        DECIMAL_MODE,
        ConfigType.STRING,
        "precise",
        validator=_mode(*DECIMAL_MODES),
        group=_TYPES,
        recommended_values=DECIMAL_MODES,
        documentation="DECIMAL as Connect's Decimal, a double or a string.",
    )
    .define(
        TIME_MODE,
        ConfigType.STRING,
        "adaptive_time_microseconds",
        validator=_mode(*TIME_MODES),
        group=_TYPES,
        recommended_values=TIME_MODES,
        documentation="Temporal types as io.debezium.time.* values or Connect's logical types.",
    )
    .define(
        BIGINT_MODE,
        ConfigType.STRING,
        "long",
        validator=_mode(*BIGINT_MODES),
        group=_TYPES,
        recommended_values=BIGINT_MODES,
        documentation="BIGINT UNSIGNED as a long (wrapping) or a Decimal.",
    )
    .define(
        BINARY_MODE,
        ConfigType.STRING,
        "bytes",
        validator=_mode(*BINARY_MODES),
        group=_TYPES,
        recommended_values=BINARY_MODES,
        documentation="Binary columns as bytes or encoded text.",
    )
)
