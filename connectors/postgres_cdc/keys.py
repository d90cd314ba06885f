"""The PostgreSQL CDC connector's keys, Debezium's names, so a Debezium connector file runs unchanged: the
keys every CDC connector shares (debezium/capture_keys.py) and PostgreSQL's own, their definitions and
checks (`CONFIG_DEF`). The Debezium keys it does not implement are in unimplemented_keys.py; settings.py
parses these once into `CdcSettings`."""

from __future__ import annotations

import re
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, in_range

from ..debezium.capture_keys import CONNECTOR as _CONNECTOR
from ..debezium.capture_keys import DATABASE as _DATABASE
from ..debezium.capture_keys import TYPES as _TYPES
from ..debezium.capture_keys import capture_keys
from ..debezium.keys import required_text

DBNAME, SSLMODE = "database.dbname", "database.sslmode"
PLUGIN_NAME, SLOT_NAME = "plugin.name", "slot.name"
PUBLICATION_NAME, PUBLICATION_AUTOCREATE = "publication.name", "publication.autocreate.mode"
SCHEMA_INCLUDE, SCHEMA_EXCLUDE = "schema.include.list", "schema.exclude.list"
SNAPSHOT_MODE = "snapshot.mode"
TIME_MODE = "time.precision.mode"
SLOT_DROP = "slot.drop.on.stop"
SLOT_GAP_ACKNOWLEDGED = "slot.gap.acknowledged.lsn"
UNAVAILABLE_PLACEHOLDER = "unavailable.value.placeholder"
INTERVAL_MODE, HSTORE_MODE, MONEY_DIGITS = "interval.handling.mode", "hstore.handling.mode", "money.fraction.digits"

SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")
SNAPSHOT_MODES = ("initial", "no_data", "never", "initial_only", "always")
AUTOCREATE_MODES = ("all_tables", "filtered", "disabled")
TIME_MODES = ("adaptive", "adaptive_time_microseconds", "connect")
INTERVAL_MODES = ("numeric", "string")
HSTORE_MODES = ("json", "map")


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


CONFIG_DEF = capture_keys(
    server="PostgreSQL",
    namespace="schema",
    default_port=5432,
    user_needs="the REPLICATION privilege (or superuser) and SELECT on the tables",
).merge(
    ConfigDef()
    .define(
        DBNAME,
        ConfigType.STRING,
        validator=required_text,
        importance=Importance.HIGH,
        group=_DATABASE,
        documentation="The database whose changes are captured.",
    )
    .define_choice(
        SSLMODE,
        "prefer",
        SSL_MODES,
        group=_DATABASE,
        documentation="libpq's sslmode for both connections.",
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
    .define_choice(
        PUBLICATION_AUTOCREATE,
        "all_tables",
        AUTOCREATE_MODES,
        group=_CONNECTOR,
        documentation="all_tables: create the publication FOR ALL TABLES (needs superuser); filtered: FOR "
        "the included tables; disabled: the publication must exist.",
    )
    .define_choice(
        SNAPSHOT_MODE,
        "initial",
        SNAPSHOT_MODES,
        group=_CONNECTOR,
        documentation="initial: snapshot once, then stream; no_data (never): stream only; initial_only: "
        "snapshot, then stop streaming; always: snapshot on every start.",
    )
    .define_choice(
        TIME_MODE,
        "adaptive",
        TIME_MODES,
        group=_TYPES,
        documentation="adaptive: io.debezium.time.* by the column's precision; "
        "adaptive_time_microseconds: time always MicroTime; connect: Connect's Date, Time, Timestamp.",
    )
    .define_choice(
        INTERVAL_MODE,
        "numeric",
        INTERVAL_MODES,
        group=_TYPES,
        documentation="interval columns: numeric (int64 io.debezium.time.MicroDuration, microseconds with a month "
        "taken as 365.25 / 12 days) or string (io.debezium.time.Interval, ISO-8601: P1Y2M3DT4H5M6.78S).",
    )
    .define_choice(
        HSTORE_MODE,
        "json",
        HSTORE_MODES,
        group=_TYPES,
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
)
