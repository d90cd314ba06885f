"""The MySQL / MariaDB CDC connector's keys, Debezium's names, so a Debezium MySQL connector file runs
unchanged: their definitions and checks (`CONFIG_DEF`), each bad value refused at validate naming the key
and what is allowed."""

from __future__ import annotations

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, at_least, in_range, one_of

from ..debezium.keys import (
    BINARY_MODES,
    DECIMAL_MODES,
    message_key_columns,
    operations,
    regex_list,
    required_text,
    topic_prefix,
)

HOSTNAME, PORT, USER, PASSWORD = "database.hostname", "database.port", "database.user", "database.password"
SERVER_ID, TOPIC_PREFIX = "database.server.id", "topic.prefix"
DATABASE_INCLUDE, DATABASE_EXCLUDE = "database.include.list", "database.exclude.list"
TABLE_INCLUDE, TABLE_EXCLUDE, COLUMN_EXCLUDE = "table.include.list", "table.exclude.list", "column.exclude.list"
SNAPSHOT_MODE, LOCKING_MODE = "snapshot.mode", "snapshot.locking.mode"
HISTORY_SERVERS = "schema.history.internal.kafka.bootstrap.servers"
HISTORY_TOPIC = "schema.history.internal.kafka.topic"
SKIP_UNPARSEABLE_DDL = "schema.history.internal.skip.unparseable.ddl"
SCHEMA_CHANGES, TOMBSTONES = "include.schema.changes", "tombstones.on.delete"
HEARTBEAT_PREFIX = "topic.heartbeat.prefix"
DECIMAL_MODE, TIME_MODE = "decimal.handling.mode", "time.precision.mode"
BIGINT_MODE, BINARY_MODE = "bigint.unsigned.handling.mode", "binary.handling.mode"
HEARTBEAT_MS, SKIPPED_OPERATIONS, MESSAGE_KEY_COLUMNS = (
    "heartbeat.interval.ms",
    "skipped.operations",
    "message.key.columns",
)

SNAPSHOT_MODES = ("initial", "initial_only", "no_data", "never", "when_needed", "recovery")
DEPRECATED_SNAPSHOT_MODES = {"schema_only": "no_data", "schema_only_recovery": "recovery"}  # Debezium 2.x's names
LOCKING_MODES = ("minimal", "none")
TIME_MODES = ("adaptive_time_microseconds", "connect")
BIGINT_MODES = ("long", "precise")

_DATABASE, _CONNECTOR, _TYPES = "Database", "Connector", "Types"


CONFIG_DEF = (
    ConfigDef()
    .define(
        HOSTNAME,
        ConfigType.STRING,
        validator=required_text,
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
        validator=required_text,
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
        validator=topic_prefix,
        importance=Importance.HIGH,
        group=_CONNECTOR,
        documentation="Topics are <topic.prefix>.<database>.<table>; schema changes go to <topic.prefix>.",
    )
    .define(
        DATABASE_INCLUDE,
        ConfigType.LIST,
        "",
        validator=regex_list,
        group=_CONNECTOR,
        documentation="Regular expressions matched against whole database names; empty: every database.",
    )
    .define(
        DATABASE_EXCLUDE,
        ConfigType.LIST,
        "",
        validator=regex_list,
        group=_CONNECTOR,
        documentation="Databases left out (whole-name regular expressions).",
    )
    .define(
        TABLE_INCLUDE,
        ConfigType.LIST,
        "",
        validator=regex_list,
        group=_CONNECTOR,
        documentation="Regular expressions matched against whole database.table names; empty: every table.",
    )
    .define(
        TABLE_EXCLUDE,
        ConfigType.LIST,
        "",
        validator=regex_list,
        group=_CONNECTOR,
        documentation="Tables left out (whole database.table regular expressions).",
    )
    .define(
        COLUMN_EXCLUDE,
        ConfigType.LIST,
        "",
        validator=regex_list,
        group=_CONNECTOR,
        documentation="Columns left out (whole database.table.column regular expressions).",
    )
    .define(
        SNAPSHOT_MODE,
        ConfigType.STRING,
        "initial",
        validator=one_of(*SNAPSHOT_MODES, *DEPRECATED_SNAPSHOT_MODES),
        group=_CONNECTOR,
        recommended_values=SNAPSHOT_MODES,
        documentation="initial: snapshot once, then stream; initial_only: snapshot, then stop; no_data "
        "(never): stream only; when_needed: snapshot again when the binlog position is gone; recovery: "
        "rebuild a lost schema history from the tables' schemas now, then stream on from the committed "
        "position (right only if no DDL ran since). Debezium 2.x's schema_only and schema_only_recovery "
        "are read as no_data and recovery (deprecated).",
    )
    .define(
        LOCKING_MODE,
        ConfigType.STRING,
        "minimal",
        validator=one_of(*LOCKING_MODES),
        group=_CONNECTOR,
        recommended_values=LOCKING_MODES,
        documentation="minimal: a global read lock only while the binlog position and the tables' schemas are read; "
        "none: no lock.",
    )
    .define(
        HISTORY_SERVERS,
        ConfigType.STRING,
        "",
        importance=Importance.HIGH,
        group=_CONNECTOR,
        documentation="The Kafka cluster of the schema history topic: the worker's, where the worker creates "
        "that topic before the first record. Absent, empty or `embedded` (unlike Debezium, which requires it): "
        "the worker's bootstrap.servers, the embedded broker's address included.",
    )
    .define(
        HISTORY_TOPIC,
        ConfigType.STRING,
        validator=required_text,
        importance=Importance.HIGH,
        group=_CONNECTOR,
        documentation="The schema history topic: one partition, retention.ms=-1, cleanup.policy=delete.",
    )
    .define(
        SKIP_UNPARSEABLE_DDL,
        ConfigType.BOOLEAN,
        False,
        group=_CONNECTOR,
        documentation="A DDL statement of a captured database that the connector cannot parse: false fails the "
        "task naming it and its binlog position; true logs a warning and skips it (the schema it held is "
        "kept, which may no longer be the table's).",
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
        documentation="Every so often (0: never) a heartbeat record to <topic.heartbeat.prefix>.<topic.prefix> "
        "carrying the binlog position.",
    )
    .define(
        HEARTBEAT_PREFIX,
        ConfigType.STRING,
        "__debezium-heartbeat",
        validator=topic_prefix,
        group=_CONNECTOR,
        documentation="The heartbeat topic's prefix.",
    )
    .define(
        SKIPPED_OPERATIONS,
        ConfigType.LIST,
        "t",
        validator=operations,
        group=_CONNECTOR,
        documentation="Operations whose change events are not sent: c, u, d, t, or none.",
    )
    .define(
        MESSAGE_KEY_COLUMNS,
        ConfigType.STRING,
        "",
        validator=message_key_columns,
        group=_CONNECTOR,
        documentation="<database.table regex>:<column>[,<column>...] entries, ';'-separated: the key "
        "columns of the tables they match, in place of the primary key.",
    )
    .define(
        DECIMAL_MODE,
        ConfigType.STRING,
        "precise",
        validator=one_of(*DECIMAL_MODES),
        group=_TYPES,
        recommended_values=DECIMAL_MODES,
        documentation="DECIMAL as Connect's Decimal, a double or a string.",
    )
    .define(
        TIME_MODE,
        ConfigType.STRING,
        "adaptive_time_microseconds",
        validator=one_of(*TIME_MODES),
        group=_TYPES,
        recommended_values=TIME_MODES,
        documentation="Temporal types as io.debezium.time.* values or Connect's logical types.",
    )
    .define(
        BIGINT_MODE,
        ConfigType.STRING,
        "long",
        validator=one_of(*BIGINT_MODES),
        group=_TYPES,
        recommended_values=BIGINT_MODES,
        documentation="BIGINT UNSIGNED as a long (wrapping) or a Decimal.",
    )
    .define(
        BINARY_MODE,
        ConfigType.STRING,
        "bytes",
        validator=one_of(*BINARY_MODES),
        group=_TYPES,
        recommended_values=BINARY_MODES,
        documentation="Binary columns as bytes or encoded text.",
    )
)
