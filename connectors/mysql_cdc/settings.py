"""The MySQL / MariaDB CDC connector's settings: its keys (keys.py) parsed once into `MySqlSettings`, and
the Debezium MySQL keys it does not implement refused by name (a file relying on them would otherwise run
with a different meaning)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connectworker.api.errors import ConfigError

from ..debezium.keys import parse_message_key_columns, skipped_operations
from . import keys as k
from .types import MySqlTypeOptions

RETRY_TIMEOUT = "errors.retry.timeout"

UNSUPPORTED_KEYS = (
    # (exact key, or a prefix ending in '.'; why it is refused)
    ("database.ssl.mode", "TLS to the database is not implemented; remove it (or set it to disabled)"),
    ("database.initial.statements", "statements run on connect are not implemented"),
    ("gtid.source.includes", "GTID source filters are not implemented"),
    ("gtid.source.excludes", "GTID source filters are not implemented"),
    ("snapshot.select.statement.overrides", "snapshot SELECT overrides are not implemented"),
    ("snapshot.include.collection.list", "a snapshot of a subset of the captured tables is not implemented"),
    ("column.include.list", "column.exclude.list is the implemented column filter"),
    ("column.mask.", "column masking is not implemented"),
    ("column.truncate.", "column truncation is not implemented"),
    ("converters", "custom converters are not implemented"),
    ("signal.", "signals (incremental snapshots) are not implemented"),
    ("incremental.snapshot.", "incremental snapshots are not implemented"),
    ("topic.naming.strategy", "topics are always <topic.prefix>.<database>.<table>"),
)


def unsupported_key_problems(props: Mapping[str, str]) -> dict[str, str]:
    problems = {}
    for key in props:
        for name, why in UNSUPPORTED_KEYS:
            if key == name or (name.endswith(".") and key.startswith(name)):
                if key == "database.ssl.mode" and props[key].strip().lower() == "disabled":
                    continue
                problems[key] = f"Debezium's {key} is not supported by this connector: {why}"
    return problems


@dataclass(frozen=True)
class MySqlSettings:
    host: str
    port: int
    user: str
    password: str | None
    replica_id: int  # database.server.id: the connector's own id among the server's replicas
    topic_prefix: str
    database_include: tuple[re.Pattern[str], ...]
    database_exclude: tuple[re.Pattern[str], ...]
    table_include: tuple[re.Pattern[str], ...]
    table_exclude: tuple[re.Pattern[str], ...]
    column_exclude: tuple[re.Pattern[str], ...]
    snapshot_mode: str
    locking_mode: str
    history_servers: str
    history_topic: str
    schema_changes: bool
    tombstones: bool
    heartbeat_s: float
    heartbeat_prefix: str
    skipped: frozenset[str]
    message_keys: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]
    types: MySqlTypeOptions
    skip_unparseable_ddl: bool = False
    connector_name: str = "mysql"  # source.connector: Debezium's module of the connector class (mysql, mariadb)
    retry_timeout_ms: int | None = None
    """errors.retry.timeout when set (-1: forever): how long a lost server is retried before the task fails;
    None (unset): forever, as Kafka retries a poll() and Debezium (errors.max.retries=-1) a lost connection."""

    def captures_database(self, database: str) -> bool:
        """Whether a database is captured: the connector holds the schemas of its tables and parses its DDL."""
        if self.database_include and not any(p.fullmatch(database) for p in self.database_include):
            return False
        return not any(p.fullmatch(database) for p in self.database_exclude)

    def captures(self, database: str, table: str) -> bool:
        """Whether a table's changes are captured (Debezium: anchored, case-insensitive matches)."""
        if not self.captures_database(database):
            return False
        name = f"{database}.{table}"
        if self.table_include:
            return any(p.fullmatch(name) for p in self.table_include)
        return not any(p.fullmatch(name) for p in self.table_exclude)

    def keeps_column(self, database: str, table: str, column: str) -> bool:
        return not any(p.fullmatch(f"{database}.{table}.{column}") for p in self.column_exclude)

    def message_key(self, database: str, table: str) -> tuple[str, ...] | None:
        """The key columns message.key.columns sets for a table (its first whole match of database.table),
        or None: its primary key."""
        name = f"{database}.{table}"
        return next((columns for pattern, columns in self.message_keys if pattern.fullmatch(name)), None)

    def topic(self, database: str, table: str) -> str:
        return f"{self.topic_prefix}.{database}.{table}"

    @property
    def heartbeat_topic(self) -> str:
        return f"{self.heartbeat_prefix}.{self.topic_prefix}"


def problems_across_keys(values: Mapping[str, Any]) -> dict[str, str]:
    problems = {}
    if values.get(k.TABLE_INCLUDE) and values.get(k.TABLE_EXCLUDE):
        problems[k.TABLE_EXCLUDE] = f"set {k.TABLE_INCLUDE} or {k.TABLE_EXCLUDE}, not both"
    if values.get(k.DATABASE_INCLUDE) and values.get(k.DATABASE_EXCLUDE):
        problems[k.DATABASE_EXCLUDE] = f"set {k.DATABASE_INCLUDE} or {k.DATABASE_EXCLUDE}, not both"
    return problems


def parse_settings(props: Mapping[str, str], *, source: str = "MySqlConnector") -> MySqlSettings:
    """The typed settings of `props`; raises ConfigError naming every bad or unsupported key."""
    values = k.CONFIG_DEF.parse(props, source=source)
    problems = {**problems_across_keys(values), **unsupported_key_problems(props)}
    if problems:
        raise ConfigError(problems, source=source)

    def patterns(key: str) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p, re.IGNORECASE) for p in values[key] if p)

    return MySqlSettings(
        host=values[k.HOSTNAME],
        port=values[k.PORT],
        user=values[k.USER],
        password=values[k.PASSWORD],
        replica_id=values[k.SERVER_ID],
        topic_prefix=values[k.TOPIC_PREFIX],
        database_include=patterns(k.DATABASE_INCLUDE),
        database_exclude=patterns(k.DATABASE_EXCLUDE),
        table_include=patterns(k.TABLE_INCLUDE),
        table_exclude=patterns(k.TABLE_EXCLUDE),
        column_exclude=patterns(k.COLUMN_EXCLUDE),
        snapshot_mode=snapshot_mode(values[k.SNAPSHOT_MODE]),
        locking_mode=values[k.LOCKING_MODE].lower(),
        history_servers=values[k.HISTORY_SERVERS],
        history_topic=values[k.HISTORY_TOPIC],
        schema_changes=values[k.SCHEMA_CHANGES],
        tombstones=values[k.TOMBSTONES],
        heartbeat_s=values[k.HEARTBEAT_MS] / 1000,
        heartbeat_prefix=values[k.HEARTBEAT_PREFIX],
        skipped=skipped_operations(values[k.SKIPPED_OPERATIONS]),
        message_keys=parse_message_key_columns(values[k.MESSAGE_KEY_COLUMNS]),
        types=MySqlTypeOptions(
            decimal_handling=values[k.DECIMAL_MODE].lower(),
            time_precision=values[k.TIME_MODE].lower(),
            binary_handling=values[k.BINARY_MODE].lower(),
            bigint_unsigned=values[k.BIGINT_MODE].lower(),
        ),
        skip_unparseable_ddl=values[k.SKIP_UNPARSEABLE_DDL],
        connector_name=connector_name(props),
        retry_timeout_ms=_retry_timeout(props),
    )


MARIADB_CONNECTOR = "io.debezium.connector.mariadb.MariaDbConnector"


def connector_name(props: Mapping[str, str]) -> str:
    """Debezium's name of the connector the class stands for (its `source.connector`): `mariadb` for its
    MariaDB connector class, `mysql` for its MySQL one and this connector's own names, whatever the server."""
    return "mariadb" if (props.get("connector.class") or "").strip() == MARIADB_CONNECTOR else "mysql"


def snapshot_mode(value: str) -> str:
    """snapshot.mode, Debezium 2.x's deprecated names read as their successors."""
    mode = value.strip().lower()
    return k.DEPRECATED_SNAPSHOT_MODES.get(mode, mode)


def deprecated_snapshot_mode(props: Mapping[str, str]) -> str | None:
    """Debezium's deprecation of a snapshot.mode of its 2.x names, for a warning; None for the others."""
    mode = (props.get(k.SNAPSHOT_MODE) or "").strip().lower()
    successor = k.DEPRECATED_SNAPSHOT_MODES.get(mode)
    if successor is None:
        return None
    return (
        f"{k.SNAPSHOT_MODE}={mode} is deprecated (Debezium: to be removed in Debezium 3.0, replaced by "
        f"{successor}): it runs as {k.SNAPSHOT_MODE}={successor}"
    )


def _retry_timeout(props: Mapping[str, str]) -> int | None:
    """The connector's errors.retry.timeout (the worker validates it: an integer, -1 or more)."""
    text = (props.get(RETRY_TIMEOUT) or "").strip()
    try:
        return int(text) if text else None
    except ValueError:
        return None
