"""The PostgreSQL CDC connector's keys, Debezium's names, so a Debezium connector file runs unchanged:
their definitions and checks (`CONFIG_DEF`). The Debezium keys it does not implement are in
unimplemented_keys.py; settings.py parses these once into `CdcSettings`."""

from __future__ import annotations

import re
from typing import Any

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
DBNAME, SSLMODE = "database.dbname", "database.sslmode"
TOPIC_PREFIX, PLUGIN_NAME, SLOT_NAME = "topic.prefix", "plugin.name", "slot.name"
PUBLICATION_NAME, PUBLICATION_AUTOCREATE = "publication.name", "publication.autocreate.mode"
TABLE_INCLUDE, TABLE_EXCLUDE = "table.include.list", "table.exclude.list"
COLUMN_INCLUDE, COLUMN_EXCLUDE = "column.include.list", "column.exclude.list"
SCHEMA_INCLUDE, SCHEMA_EXCLUDE = "schema.include.list", "schema.exclude.list"
MESSAGE_KEY_COLUMNS = "message.key.columns"
COLUMN_PROPAGATE, DATATYPE_PROPAGATE = "column.propagate.source.type", "datatype.propagate.source.type"
SNAPSHOT_MODE, TOMBSTONES = "snapshot.mode", "tombstones.on.delete"
DECIMAL_MODE, TIME_MODE, BINARY_MODE = "decimal.handling.mode", "time.precision.mode", "binary.handling.mode"
HEARTBEAT_MS, HEARTBEAT_PREFIX = "heartbeat.interval.ms", "topic.heartbeat.prefix"
SLOT_DROP, MAX_BATCH, POLL_MS = "slot.drop.on.stop", "max.batch.size", "poll.interval.ms"
SLOT_GAP_ACKNOWLEDGED = "slot.gap.acknowledged.lsn"
COMPACT_KEYED = "compact.keyed.table.topics"
SKIPPED_OPERATIONS = "skipped.operations"
UNAVAILABLE_PLACEHOLDER = "unavailable.value.placeholder"
INTERVAL_MODE, HSTORE_MODE, MONEY_DIGITS = "interval.handling.mode", "hstore.handling.mode", "money.fraction.digits"

SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
SNAPSHOT_MODES = ("initial", "no_data", "never", "initial_only", "always")
AUTOCREATE_MODES = ("all_tables", "filtered", "disabled")
TIME_MODES = ("adaptive", "adaptive_time_microseconds", "connect")
INTERVAL_MODES = ("numeric", "string")
HSTORE_MODES = ("json", "map")

_DATABASE, _CONNECTOR, _TYPES = "Database", "Connector", "Types"


def placeholder_bytes(value: str) -> bytes:
    """unavailable.value.placeholder as bytes: its UTF-8 encoding, or the hex digits after 'hex:'."""
    if value.startswith("hex:"):
        try:
            return bytes.fromhex(value[4:])
        except ValueError:
            raise ValueError(f"'hex:' must be followed by an even number of hex digits, got {value[4:]!r}") from None
    return value.encode()


def _placeholder(value: str) -> None:
    placeholder_bytes(value)


def _plugin(key: str, value: Any) -> None:
    if value != "pgoutput":
        raise ValueError(
            f"only pgoutput (PostgreSQL's built-in output plugin) is supported, got {value!r}; "
            f"decoderbufs and wal2json are not"
        )


def _lsn(key: str, value: Any) -> None:
    if value and not re.fullmatch(r"[0-9A-Fa-f]{1,8}/[0-9A-Fa-f]{1,8}", str(value)):
        raise ValueError(f"must be a PostgreSQL LSN as it prints them (0/1923320), or empty; got {value!r}")


def _identifier(key: str, value: Any) -> None:
    if not re.fullmatch(r"[a-z0-9_]{1,63}", str(value or "")):
        raise ValueError(
            "must be 1 to 63 lower-case letters, digits or underscores (a PostgreSQL slot or publication name)"
        )


CONFIG_DEF = (
    ConfigDef()
    .define(
        HOSTNAME,
        ConfigType.STRING,
        validator=required_text,
        importance=Importance.HIGH,
        group=_DATABASE,
        documentation="The PostgreSQL server's host name or address.",
    )
    .define(
        PORT,
        ConfigType.INT,
        5432,
        validator=in_range(1, 65535),
        group=_DATABASE,
        documentation="The PostgreSQL server's port.",
    )
    .define(
        USER,
        ConfigType.STRING,
        validator=required_text,
        importance=Importance.HIGH,
        group=_DATABASE,
        documentation="The user: needs the REPLICATION privilege (or superuser) and SELECT on the tables.",
    )
    .define(
        PASSWORD,
        ConfigType.PASSWORD,
        None,
        group=_DATABASE,
        documentation="The user's password (a secret: hidden wherever configs are shown).",
    )
    .define(
        DBNAME,
        ConfigType.STRING,
        validator=required_text,
        importance=Importance.HIGH,
        group=_DATABASE,
        documentation="The database whose changes are captured.",
    )
    .define(
        SSLMODE,
        ConfigType.STRING,
        "prefer",
        validator=one_of(*SSL_MODES),
        group=_DATABASE,
        recommended_values=SSL_MODES,
        documentation="libpq's sslmode for both connections.",
    )
    .define(
        TOPIC_PREFIX,
        ConfigType.STRING,
        validator=topic_prefix,
        importance=Importance.HIGH,
        group=_CONNECTOR,
        documentation="The first part of every topic name: <topic.prefix>.<schema>.<table>; also the "
        "source partition and source.name.",
    )
    .define(
        PLUGIN_NAME,
        ConfigType.STRING,
        "pgoutput",
        validator=_plugin,
        group=_CONNECTOR,
        documentation="The logical decoding output plugin: pgoutput only.",
    )
    .define(
        SLOT_NAME,
        ConfigType.STRING,
        "debezium",
        validator=_identifier,
        group=_CONNECTOR,
        documentation="The logical replication slot, created on first start.",
    )
    .define(
        PUBLICATION_NAME,
        ConfigType.STRING,
        "dbz_publication",
        validator=_identifier,
        group=_CONNECTOR,
        documentation="The publication pgoutput streams.",
    )
    .define(
        PUBLICATION_AUTOCREATE,
        ConfigType.STRING,
        "all_tables",
        validator=one_of(*AUTOCREATE_MODES),
        group=_CONNECTOR,
        recommended_values=AUTOCREATE_MODES,
        documentation="all_tables: create the publication FOR ALL TABLES (needs superuser); filtered: FOR "
        "the included tables; disabled: the publication must exist.",
    )
    .define(
        SCHEMA_INCLUDE,
        ConfigType.LIST,
        "",
        validator=regex_list,
        group=_CONNECTOR,
        documentation="Regular expressions matched against whole schema names; empty: every schema. The table "
        "lists then apply within the captured schemas.",
    )
    .define(
        SCHEMA_EXCLUDE,
        ConfigType.LIST,
        "",
        validator=regex_list,
        group=_CONNECTOR,
        documentation="Regular expressions matched against whole schema names: their tables are not captured.",
    )
    .define(
        COLUMN_PROPAGATE,
        ConfigType.LIST,
        "",
        validator=regex_list,
        group=_TYPES,
        documentation="Regular expressions matched (ignoring case) against whole schema.table.column names: "
        "those columns' schemas carry their PostgreSQL type in Debezium's __debezium.source.column.type, "
        ".length, .scale and .name parameters.",
    )
    .define(
        DATATYPE_PROPAGATE,
        ConfigType.LIST,
        "",
        validator=regex_list,
        group=_TYPES,
        documentation="The same, for the columns whose schema.table.TYPE matches (ignoring case; the type as "
        "PostgreSQL names it: .+\\.NUMERIC, .+\\.VARCHAR).",
    )
    .define(
        MESSAGE_KEY_COLUMNS,
        ConfigType.STRING,
        "",
        validator=message_key_columns,
        group=_CONNECTOR,
        documentation="Keys other than the primary key, as Debezium's: <schema.table regex>:<column>[,<column>...], "
        "several separated by ';' (e.g. 'public.orders:customer_id,order_no;(.*).audit:id'). A table matching "
        "a regular expression (the first that does) is keyed by those columns, in that order.",
    )
    .define(
        TABLE_INCLUDE,
        ConfigType.LIST,
        "",
        validator=regex_list,
        group=_CONNECTOR,
        documentation="Regular expressions matched against whole schema.table names; empty: every table.",
    )
    .define(
        TABLE_EXCLUDE,
        ConfigType.LIST,
        "",
        validator=regex_list,
        group=_CONNECTOR,
        documentation="Regular expressions of schema.table names left out.",
    )
    .define(
        COLUMN_INCLUDE,
        ConfigType.LIST,
        "",
        validator=regex_list,
        group=_CONNECTOR,
        documentation="Regular expressions matched against schema.table.column; empty: every column.",
    )
    .define(
        COLUMN_EXCLUDE,
        ConfigType.LIST,
        "",
        validator=regex_list,
        group=_CONNECTOR,
        documentation="Regular expressions of schema.table.column names left out.",
    )
    .define(
        SNAPSHOT_MODE,
        ConfigType.STRING,
        "initial",
        validator=one_of(*SNAPSHOT_MODES),
        group=_CONNECTOR,
        recommended_values=SNAPSHOT_MODES,
        documentation="initial: snapshot once, then stream; no_data (never): stream only; initial_only: "
        "snapshot, then stop streaming; always: snapshot on every start.",
    )
    .define(
        SKIPPED_OPERATIONS,
        ConfigType.LIST,
        "t",
        validator=operations,
        group=_CONNECTOR,
        documentation="Operations whose change events are not sent, as Debezium's: a list of c (insert), u "
        "(update), d (delete), t (truncate), or none. Default t: a TRUNCATE is sent only when this leaves it out.",
    )
    .define(
        TOMBSTONES,
        ConfigType.BOOLEAN,
        True,
        group=_CONNECTOR,
        documentation="Follow each delete with a tombstone (same key, null value) for compaction.",
    )
    .define(
        DECIMAL_MODE,
        ConfigType.STRING,
        "precise",
        validator=one_of(*DECIMAL_MODES),
        group=_TYPES,
        recommended_values=DECIMAL_MODES,
        documentation="numeric columns: precise (Connect's Decimal, or Debezium's VariableScaleDecimal for a "
        "numeric without a scale), double (float64) or string.",
    )
    .define(
        TIME_MODE,
        ConfigType.STRING,
        "adaptive",
        validator=one_of(*TIME_MODES),
        group=_TYPES,
        recommended_values=TIME_MODES,
        documentation="adaptive: io.debezium.time.* by the column's precision; "
        "adaptive_time_microseconds: time always MicroTime; connect: Connect's Date, Time, Timestamp.",
    )
    .define(
        BINARY_MODE,
        ConfigType.STRING,
        "bytes",
        validator=one_of(*BINARY_MODES),
        group=_TYPES,
        recommended_values=BINARY_MODES,
        documentation="bytea columns: bytes, or base64, base64-url-safe, hex strings.",
    )
    .define(
        INTERVAL_MODE,
        ConfigType.STRING,
        "numeric",
        validator=one_of(*INTERVAL_MODES),
        group=_TYPES,
        recommended_values=INTERVAL_MODES,
        documentation="interval columns: numeric (int64 io.debezium.time.MicroDuration, microseconds with a month "
        "taken as 365.25 / 12 days) or string (io.debezium.time.Interval, ISO-8601: P1Y2M3DT4H5M6.78S).",
    )
    .define(
        HSTORE_MODE,
        ConfigType.STRING,
        "json",
        validator=one_of(*HSTORE_MODES),
        group=_TYPES,
        recommended_values=HSTORE_MODES,
        documentation='hstore columns: json (an io.debezium.data.Json string, {"key":"value"}) or map (a '
        "Connect map of strings to optional strings).",
    )
    .define(
        MONEY_DIGITS,
        ConfigType.INT,
        2,
        validator=in_range(0, 32767),
        group=_TYPES,
        documentation="The scale of money columns' Decimal with decimal.handling.mode=precise (values are "
        "rounded half up to it).",
    )
    .define(
        UNAVAILABLE_PLACEHOLDER,
        ConfigType.STRING,
        "__debezium_unavailable_value",
        validator=lambda key, value: _placeholder(value),
        group=_TYPES,
        documentation="What an update carries for an unchanged TOASTed value that PostgreSQL did not send (a "
        "table without REPLICA IDENTITY FULL): this text in a text or json column, its UTF-8 bytes in a bytea "
        "column, a list of it in an array; 'hex:' followed by hex digits gives the bytes directly.",
    )
    .define(
        HEARTBEAT_MS,
        ConfigType.INT,
        0,
        validator=at_least(0),
        group=_CONNECTOR,
        documentation="Every so often (0: never) a record to <topic.heartbeat.prefix>.<topic.prefix> "
        "carrying the current LSN, so the slot advances when no captured table changes.",
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
        SLOT_DROP,
        ConfigType.BOOLEAN,
        False,
        group=_CONNECTOR,
        documentation="Drop the slot when the task stops (the next start snapshots again as snapshot.mode says; "
        "changes in between are not streamed).",
    )
    .define(
        SLOT_GAP_ACKNOWLEDGED,
        ConfigType.STRING,
        "",
        validator=_lsn,
        group=_CONNECTOR,
        documentation="Not Debezium's. A task whose committed offset lies behind the position its slot has "
        "confirmed (the slot was re-created, or advanced by another client) fails at its start, naming both "
        "LSNs: the changes in between are gone from the slot. Set this to the slot's LSN that failure names "
        "to stream on from the slot, accepting that loss; only that LSN is accepted, so a later gap fails again.",
    )
    .define(
        MAX_BATCH,
        ConfigType.INT,
        2048,
        validator=at_least(1),
        group=_CONNECTOR,
        documentation="The most records one poll returns.",
    )
    .define(
        POLL_MS,
        ConfigType.INT,
        500,
        validator=at_least(1),
        group=_CONNECTOR,
        documentation="How long a poll waits for changes when there are none.",
    )
    .define(
        COMPACT_KEYED,
        ConfigType.BOOLEAN,
        False,
        group=_CONNECTOR,
        documentation="Not Debezium's: create the topic of a table with a primary key compacted "
        "(cleanup.policy=compact), as KIP-158's settings_for_new_topic allows.",
    )
)
