"""The SQL table source's keys: Confluent's JDBC source keys, so an existing connector file runs.

Parsed once into `SqlSourceSettings`; cross-key rules (a mode needs its columns, `query` excludes the
table lists, the include and exclude lists exclude each other) are checked here too, so a bad file is
refused at validation naming the key, before anything connects.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, at_least, one_of
from connectworker.api.errors import ConfigError

CONNECTION_URL = "connection.url"
CONNECTION_USER = "connection.user"
CONNECTION_PASSWORD = "connection.password"
CONNECTION_ATTEMPTS = "connection.attempts"
CONNECTION_BACKOFF_MS = "connection.backoff.ms"
MODE = "mode"
INCREMENTING_COLUMN = "incrementing.column.name"
TIMESTAMP_COLUMNS = "timestamp.column.name"
TIMESTAMP_DELAY_MS = "timestamp.delay.interval.ms"
TIMESTAMP_INITIAL = "timestamp.initial"
VALIDATE_NON_NULL = "validate.non.null"
TABLE_WHITELIST, TABLE_BLACKLIST = "table.whitelist", "table.blacklist"
TABLE_INCLUDE, TABLE_EXCLUDE = "table.include.list", "table.exclude.list"
SCHEMA_PATTERN = "schema.pattern"
TABLE_TYPES = "table.types"
QUERY = "query"
TOPIC_PREFIX = "topic.prefix"
POLL_INTERVAL_MS = "poll.interval.ms"
BATCH_MAX_ROWS = "batch.max.rows"
TABLE_POLL_INTERVAL_MS = "table.poll.interval.ms"
NUMERIC_MAPPING = "numeric.mapping"
DB_TIMEZONE = "db.timezone"
COMPACT_KEYED_TABLE_TOPICS = "compact.keyed.table.topics"
TABLES = "tables"  # the task config: the tables one task reads (a JSON list), set by the connector

MODES = ("bulk", "incrementing", "timestamp", "timestamp+incrementing")
NUMERIC_MAPPINGS = ("none", "best_fit", "best_fit_eager_double", "precision_only")

_CONNECTION, _MODE, _TABLES, _CONNECTOR = "Database", "Mode", "Tables", "Connector"


def _time_zone(key: str, value: Any) -> None:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        ZoneInfo(str(value))
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError("not a time zone name of the IANA database (e.g. UTC, Europe/Paris)") from None


CONFIG_DEF = (
    ConfigDef()
    .define(
        CONNECTION_URL,
        ConfigType.STRING,
        validator=lambda k, v: _non_blank(v),
        importance=Importance.HIGH,
        group=_CONNECTION,
        documentation="The database: a JDBC URL (jdbc:postgresql://host:5432/db, "
        "jdbc:sqlite:/path/file.db) or an SQLAlchemy URL (postgresql+psycopg://host/db, sqlite:///file.db).",
    )
    .define(
        CONNECTION_USER,
        ConfigType.STRING,
        None,
        group=_CONNECTION,
        documentation="The database user (wins over a user in the URL).",
    )
    .define(
        CONNECTION_PASSWORD,
        ConfigType.PASSWORD,
        None,
        group=_CONNECTION,
        documentation="The user's password (a secret: hidden wherever configs are shown).",
    )
    .define(
        CONNECTION_ATTEMPTS,
        ConfigType.INT,
        3,
        validator=at_least(1),
        group=_CONNECTION,
        documentation="How many times to try to connect when the connector starts.",
    )
    .define(
        CONNECTION_BACKOFF_MS,
        ConfigType.LONG,
        10_000,
        validator=at_least(0),
        group=_CONNECTION,
        documentation="How long to wait between those attempts.",
    )
    .define(
        MODE,
        ConfigType.STRING,
        validator=one_of(*MODES),
        importance=Importance.HIGH,
        group=_MODE,
        recommended_values=MODES,
        documentation="How each poll finds new rows: bulk (the whole table every poll), incrementing "
        "(a strictly increasing column), timestamp (a last-modified column), or timestamp+incrementing "
        "(both: new and updated rows, none missed).",
    )
    .define(
        INCREMENTING_COLUMN,
        ConfigType.STRING,
        "",
        group=_MODE,
        documentation="The strictly increasing column of the incrementing modes (e.g. an identity id).",
    )
    .define(
        TIMESTAMP_COLUMNS,
        ConfigType.LIST,
        "",
        group=_MODE,
        documentation="The last-modified column(s) of the timestamp modes; with several, the first "
        "that is not null counts (COALESCE).",
    )
    .define(
        TIMESTAMP_DELAY_MS,
        ConfigType.LONG,
        0,
        validator=at_least(0),
        group=_MODE,
        documentation="How long after its timestamp a row is read, so that transactions that "
        "committed late with an earlier timestamp are not missed.",
    )
    .define(
        TIMESTAMP_INITIAL,
        ConfigType.LONG,
        None,
        group=_MODE,
        documentation="Where the timestamp modes start when nothing was committed: epoch "
        "milliseconds, or -1 for now; unset reads from the beginning.",
    )
    .define(
        VALIDATE_NON_NULL,
        ConfigType.BOOLEAN,
        True,
        group=_MODE,
        documentation="Refuse incrementing and timestamp columns that may hold NULL (rows with a "
        "NULL there would never be read).",
    )
    .define(
        TABLE_WHITELIST,
        ConfigType.LIST,
        "",
        group=_TABLES,
        documentation="The tables to read (names, or schema.name); empty: every table. "
        "Older spelling of table.include.list.",
    )
    .define(
        TABLE_BLACKLIST,
        ConfigType.LIST,
        "",
        group=_TABLES,
        documentation="Tables not to read. Older spelling of table.exclude.list.",
    )
    .define(
        TABLE_INCLUDE,
        ConfigType.LIST,
        "",
        group=_TABLES,
        documentation="The tables to read: names, schema.name, or regular expressions matching either.",
    )
    .define(
        TABLE_EXCLUDE,
        ConfigType.LIST,
        "",
        group=_TABLES,
        documentation="Tables not to read: names, schema.name, or regular expressions.",
    )
    .define(
        SCHEMA_PATTERN,
        ConfigType.STRING,
        None,
        group=_TABLES,
        documentation="The database schema whose tables are read; unset: the connection's default "
        "schema (public on PostgreSQL, main on SQLite).",
    )
    .define(
        TABLE_TYPES,
        ConfigType.LIST,
        "TABLE",
        group=_TABLES,
        validator=lambda k, v: _table_types(v),
        documentation="Which relations count as tables: TABLE, VIEW, or both.",
    )
    .define(
        QUERY,
        ConfigType.STRING,
        "",
        group=_TABLES,
        documentation="Read the rows of this SELECT instead of tables (one task, topic = topic.prefix). "
        "The mode's condition is applied around it, so it may have its own WHERE.",
    )
    .define(
        TOPIC_PREFIX,
        ConfigType.STRING,
        validator=lambda k, v: _topic_prefix(v),
        importance=Importance.HIGH,
        group=_CONNECTOR,
        documentation="Each table's topic is this prefix followed by the table's name; "
        "with query, the whole topic name.",
    )
    .define(
        POLL_INTERVAL_MS,
        ConfigType.INT,
        5000,
        validator=at_least(1),
        group=_CONNECTOR,
        documentation="How often each table is queried for new rows.",
    )
    .define(
        BATCH_MAX_ROWS,
        ConfigType.INT,
        100,
        validator=at_least(1),
        group=_CONNECTOR,
        documentation="The most rows one poll returns.",
    )
    .define(
        TABLE_POLL_INTERVAL_MS,
        ConfigType.LONG,
        60_000,
        validator=at_least(1),
        group=_CONNECTOR,
        documentation="How often the connector looks for tables created or dropped.",
    )
    .define(
        NUMERIC_MAPPING,
        ConfigType.STRING,
        "none",
        validator=one_of(*NUMERIC_MAPPINGS),
        group=_CONNECTOR,
        recommended_values=NUMERIC_MAPPINGS,
        documentation="How NUMERIC/DECIMAL columns are typed: best_fit (an integer type for scale 0, "
        "float64 for precision under 19), best_fit_eager_double (float64 for any scale), precision_only "
        "(integers only), none. A numeric no mapping fits is sent as its exact decimal text (string).",
    )
    .define(
        DB_TIMEZONE,
        ConfigType.STRING,
        "UTC",
        validator=_time_zone,
        group=_CONNECTOR,
        documentation="The time zone of timestamp columns without one.",
    )
    .define(
        COMPACT_KEYED_TABLE_TOPICS,
        ConfigType.BOOLEAN,
        False,
        group=_CONNECTOR,
        documentation="Create the topic of a table with a primary key compacted (cleanup.policy=compact): "
        "its records are keyed by the primary key, so the topic keeps each row's latest version.",
    )
)


def _non_blank(value: Any) -> None:
    if value is None or not str(value).strip():
        raise ValueError("must not be empty")


def _table_types(value: Any) -> None:
    bad = [t for t in value or [] if t.upper() not in ("TABLE", "VIEW")]
    if bad or not value:
        raise ValueError("allowed table types are TABLE and VIEW")


def _topic_prefix(value: Any) -> None:
    if value is None:
        raise ValueError("must be set")
    if not re.fullmatch(r"[a-zA-Z0-9._-]*", str(value)):
        raise ValueError("a topic name may only hold ASCII letters, digits, '.', '_' and '-'")


@dataclass(frozen=True)
class SqlSourceSettings:
    connection_url: str
    user: str | None
    password: str | None
    connection_attempts: int
    connection_backoff_s: float
    mode: str
    incrementing_column: str | None
    timestamp_columns: tuple[str, ...]
    timestamp_delay_s: float
    timestamp_initial_ms: int | None
    validate_non_null: bool
    include: tuple[str, ...]
    exclude: tuple[str, ...]
    schema: str | None
    table_types: tuple[str, ...]
    query: str | None
    topic_prefix: str
    poll_interval_s: float
    batch_max_rows: int
    table_poll_interval_s: float
    numeric_mapping: str
    db_timezone: str
    compact_keyed_table_topics: bool

    @property
    def incrementing(self) -> bool:
        return "incrementing" in self.mode

    @property
    def timestamped(self) -> bool:
        return self.mode.startswith("timestamp")


def problems_across_keys(values: Mapping[str, Any]) -> dict[str, str]:
    """The problems a single key's validator cannot see, keyed by the key to blame."""
    problems: dict[str, str] = {}
    mode = values.get(MODE)
    if mode in ("incrementing", "timestamp+incrementing") and not values.get(INCREMENTING_COLUMN):
        problems[INCREMENTING_COLUMN] = f"mode={mode} needs the name of the strictly increasing column"
    if mode in ("timestamp", "timestamp+incrementing") and not values.get(TIMESTAMP_COLUMNS):
        problems[TIMESTAMP_COLUMNS] = f"mode={mode} needs at least one timestamp column"
    if values.get(TABLE_INCLUDE) and values.get(TABLE_WHITELIST):
        problems[TABLE_INCLUDE] = f"set {TABLE_INCLUDE} or its older spelling {TABLE_WHITELIST}, not both"
    if values.get(TABLE_EXCLUDE) and values.get(TABLE_BLACKLIST):
        problems[TABLE_EXCLUDE] = f"set {TABLE_EXCLUDE} or its older spelling {TABLE_BLACKLIST}, not both"
    if (values.get(TABLE_INCLUDE) or values.get(TABLE_WHITELIST)) and (
        values.get(TABLE_EXCLUDE) or values.get(TABLE_BLACKLIST)
    ):
        problems.setdefault(TABLE_EXCLUDE, "a table include list and an exclude list exclude each other: set one")
    if values.get(QUERY) and any(
        values.get(k) for k in (TABLE_INCLUDE, TABLE_WHITELIST, TABLE_EXCLUDE, TABLE_BLACKLIST)
    ):
        problems[QUERY] = "query reads one SELECT: leave the table include and exclude lists empty"
    for key in (TABLE_INCLUDE, TABLE_EXCLUDE):
        for pattern in values.get(key) or []:
            try:
                re.compile(pattern)
            except re.error as exc:
                problems[key] = f"{pattern!r} is not a valid regular expression: {exc}"
    return problems


def parse_settings(props: Mapping[str, str], *, source: str = "SqlSource") -> SqlSourceSettings:
    """The typed settings of `props`; raises ConfigError naming every bad key."""
    values = CONFIG_DEF.parse(props, source=source)
    problems = problems_across_keys(values)
    if problems:
        raise ConfigError(problems, source=source)
    return SqlSourceSettings(
        connection_url=values[CONNECTION_URL].strip(),
        user=values[CONNECTION_USER],
        password=values[CONNECTION_PASSWORD],
        connection_attempts=values[CONNECTION_ATTEMPTS],
        connection_backoff_s=values[CONNECTION_BACKOFF_MS] / 1000,
        mode=values[MODE],
        incrementing_column=values[INCREMENTING_COLUMN] or None,
        timestamp_columns=tuple(values[TIMESTAMP_COLUMNS]),
        timestamp_delay_s=values[TIMESTAMP_DELAY_MS] / 1000,
        timestamp_initial_ms=values[TIMESTAMP_INITIAL],
        validate_non_null=values[VALIDATE_NON_NULL],
        include=tuple(values[TABLE_INCLUDE] or values[TABLE_WHITELIST]),
        exclude=tuple(values[TABLE_EXCLUDE] or values[TABLE_BLACKLIST]),
        schema=values[SCHEMA_PATTERN] or None,
        table_types=tuple(t.upper() for t in values[TABLE_TYPES]),
        query=values[QUERY] or None,
        topic_prefix=values[TOPIC_PREFIX],
        poll_interval_s=values[POLL_INTERVAL_MS] / 1000,
        batch_max_rows=values[BATCH_MAX_ROWS],
        table_poll_interval_s=values[TABLE_POLL_INTERVAL_MS] / 1000,
        numeric_mapping=values[NUMERIC_MAPPING],
        db_timezone=values[DB_TIMEZONE],
        compact_keyed_table_topics=values[COMPACT_KEYED_TABLE_TOPICS],
    )
