"""The MySQL / MariaDB CDC connector's keys, Debezium's names, so a Debezium MySQL connector file runs
unchanged: the keys every CDC connector shares (debezium/capture_keys.py) and MySQL's own, their
definitions and checks (`CONFIG_DEF`), each bad value refused at validate naming the key and what is
allowed."""

from __future__ import annotations

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, in_range

from ..debezium.capture_keys import CONNECTOR as _CONNECTOR
from ..debezium.capture_keys import DATABASE as _DATABASE
from ..debezium.capture_keys import TYPES as _TYPES
from ..debezium.capture_keys import capture_keys
from ..debezium.keys import required_text

SERVER_ID = "database.server.id"
DATABASE_INCLUDE, DATABASE_EXCLUDE = "database.include.list", "database.exclude.list"
SNAPSHOT_MODE, LOCKING_MODE = "snapshot.mode", "snapshot.locking.mode"
HISTORY_SERVERS = "schema.history.internal.kafka.bootstrap.servers"
HISTORY_TOPIC = "schema.history.internal.kafka.topic"
SKIP_UNPARSEABLE_DDL = "schema.history.internal.skip.unparseable.ddl"
SCHEMA_CHANGES = "include.schema.changes"
TIME_MODE, BIGINT_MODE = "time.precision.mode", "bigint.unsigned.handling.mode"

SNAPSHOT_MODES = ("initial", "initial_only", "no_data", "never", "when_needed", "recovery")
DEPRECATED_SNAPSHOT_MODES = {"schema_only": "no_data", "schema_only_recovery": "recovery"}  # Debezium 2.x's names
LOCKING_MODES = ("minimal", "none")
TIME_MODES = ("adaptive_time_microseconds", "connect")
BIGINT_MODES = ("long", "precise")


CONFIG_DEF = capture_keys(
    server="MySQL or MariaDB",
    namespace="database",
    default_port=3306,
    user_needs="SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE and REPLICATION CLIENT (MariaDB: BINLOG MONITOR)",
).merge(
    ConfigDef()
    .define(
        SERVER_ID,
        ConfigType.LONG,
        validator=in_range(1, 4_294_967_295),
        importance=Importance.HIGH,
        group=_DATABASE,
        documentation="The connector's own replica id, unique among the server's replicas "
        "(not the database's server_id, which source.server_id carries).",
    )
    .define_choice(
        SNAPSHOT_MODE,
        "initial",
        SNAPSHOT_MODES,
        also=DEPRECATED_SNAPSHOT_MODES,
        group=_CONNECTOR,
        documentation="initial: snapshot once, then stream; initial_only: snapshot, then stop; no_data "
        "(never): stream only; when_needed: snapshot again when the binlog position is gone; recovery: "
        "rebuild a lost schema history from the tables' schemas now, then stream on from the committed "
        "position (right only if no DDL ran since). Debezium 2.x's schema_only and schema_only_recovery "
        "are read as no_data and recovery (deprecated).",
    )
    .define_choice(
        LOCKING_MODE,
        "minimal",
        LOCKING_MODES,
        group=_CONNECTOR,
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
    .define_choice(
        TIME_MODE,
        "adaptive_time_microseconds",
        TIME_MODES,
        group=_TYPES,
        documentation="Temporal types as io.debezium.time.* values or Connect's logical types.",
    )
    .define_choice(
        BIGINT_MODE,
        "long",
        BIGINT_MODES,
        group=_TYPES,
        documentation="BIGINT UNSIGNED as a long (wrapping) or a Decimal.",
    )
)
