"""The PostgreSQL CDC connector's settings: its keys (keys.py) parsed once into `CdcSettings`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connectworker.api.errors import ConfigError

from ..debezium.keys import parse_message_key_columns, skipped_operations
from .columns import PostgresTypeOptions
from .keys import (
    BINARY_MODE,
    COLUMN_EXCLUDE,
    COLUMN_INCLUDE,
    COLUMN_PROPAGATE,
    COMPACT_KEYED,
    CONFIG_DEF,
    DATATYPE_PROPAGATE,
    DBNAME,
    DECIMAL_MODE,
    HEARTBEAT_MS,
    HEARTBEAT_PREFIX,
    HOSTNAME,
    HSTORE_MODE,
    INTERVAL_MODE,
    MAX_BATCH,
    MESSAGE_KEY_COLUMNS,
    MONEY_DIGITS,
    PASSWORD,
    POLL_MS,
    PORT,
    PUBLICATION_AUTOCREATE,
    PUBLICATION_NAME,
    SCHEMA_EXCLUDE,
    SCHEMA_INCLUDE,
    SKIPPED_OPERATIONS,
    SLOT_DROP,
    SLOT_GAP_ACKNOWLEDGED,
    SLOT_NAME,
    SNAPSHOT_MODE,
    SSLMODE,
    TABLE_EXCLUDE,
    TABLE_INCLUDE,
    TIME_MODE,
    TOMBSTONES,
    TOPIC_PREFIX,
    UNAVAILABLE_PLACEHOLDER,
    USER,
    placeholder_bytes,
)


@dataclass(frozen=True)
class CdcSettings:
    host: str
    port: int
    user: str
    password: str | None
    dbname: str
    sslmode: str
    topic_prefix: str
    slot: str
    publication: str
    publication_autocreate: str
    schema_include: tuple[re.Pattern[str], ...]
    schema_exclude: tuple[re.Pattern[str], ...]
    table_include: tuple[re.Pattern[str], ...]
    table_exclude: tuple[re.Pattern[str], ...]
    column_include: tuple[re.Pattern[str], ...]
    column_exclude: tuple[re.Pattern[str], ...]
    snapshot_mode: str
    tombstones: bool
    types: PostgresTypeOptions
    heartbeat_s: float
    heartbeat_topic: str
    slot_drop_on_stop: bool
    max_batch: int
    poll_s: float
    compact_keyed: bool
    skipped: frozenset[str]  # Debezium `op` codes whose events are not sent (skipped.operations)
    message_keys: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = ()  # message.key.columns
    propagate_columns: tuple[re.Pattern[str], ...] = ()  # column.propagate.source.type
    propagate_datatypes: tuple[re.Pattern[str], ...] = ()  # datatype.propagate.source.type
    slot_gap_acknowledged: str = ""  # slot.gap.acknowledged.lsn, as written (0/1923320)

    def captures(self, schema: str, table: str) -> bool:
        """Whether a table's changes are captured (Debezium: anchored matches on schema.table)."""
        if self.schema_include and not any(p.fullmatch(schema) for p in self.schema_include):
            return False
        if any(p.fullmatch(schema) for p in self.schema_exclude):
            return False
        name = f"{schema}.{table}"
        if self.table_include:
            return any(p.fullmatch(name) for p in self.table_include)
        return not any(p.fullmatch(name) for p in self.table_exclude)

    def keeps_column(self, schema: str, table: str, column: str) -> bool:
        name = f"{schema}.{table}.{column}"
        if self.column_include:
            return any(p.fullmatch(name) for p in self.column_include)
        return not any(p.fullmatch(name) for p in self.column_exclude)

    def message_key(self, schema: str, table: str) -> tuple[str, ...] | None:
        """The key columns message.key.columns sets for a table, or None (its primary key, or unique index)."""
        name = f"{schema}.{table}"
        return next((columns for pattern, columns in self.message_keys if pattern.fullmatch(name)), None)

    def propagates_type(self, schema: str, table: str, column: str, type_name: str) -> bool:
        """Whether a column's schema carries its source type (Debezium: case-insensitive whole matches)."""
        return any(p.fullmatch(f"{schema}.{table}.{column}") for p in self.propagate_columns) or any(
            p.fullmatch(f"{schema}.{table}.{type_name}") for p in self.propagate_datatypes
        )

    def topic(self, schema: str, table: str) -> str:
        return f"{self.topic_prefix}.{schema}.{table}"


def problems_across_keys(values: Mapping[str, Any]) -> dict[str, str]:
    problems = {}
    if values.get(TABLE_INCLUDE) and values.get(TABLE_EXCLUDE):
        problems[TABLE_EXCLUDE] = f"set {TABLE_INCLUDE} or {TABLE_EXCLUDE}, not both"
    if values.get(SCHEMA_INCLUDE) and values.get(SCHEMA_EXCLUDE):
        problems[SCHEMA_EXCLUDE] = f"set {SCHEMA_INCLUDE} or {SCHEMA_EXCLUDE}, not both"
    if values.get(COLUMN_INCLUDE) and values.get(COLUMN_EXCLUDE):
        problems[COLUMN_EXCLUDE] = f"set {COLUMN_INCLUDE} or {COLUMN_EXCLUDE}, not both"
    return problems


def parse_settings(props: Mapping[str, str], *, source: str = "PostgresConnector") -> CdcSettings:
    """The typed settings of `props`; raises ConfigError naming every bad key."""
    values = CONFIG_DEF.parse(props, source=source)
    problems = problems_across_keys(values)
    if problems:
        raise ConfigError(problems, source=source)

    def patterns(key: str) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p) for p in values[key] if p)

    return CdcSettings(
        host=values[HOSTNAME],
        port=values[PORT],
        user=values[USER],
        password=values[PASSWORD],
        dbname=values[DBNAME],
        sslmode=values[SSLMODE],
        topic_prefix=values[TOPIC_PREFIX],
        slot=values[SLOT_NAME],
        publication=values[PUBLICATION_NAME],
        publication_autocreate=values[PUBLICATION_AUTOCREATE].lower(),
        schema_include=patterns(SCHEMA_INCLUDE),
        schema_exclude=patterns(SCHEMA_EXCLUDE),
        table_include=patterns(TABLE_INCLUDE),
        table_exclude=patterns(TABLE_EXCLUDE),
        column_include=patterns(COLUMN_INCLUDE),
        column_exclude=patterns(COLUMN_EXCLUDE),
        snapshot_mode=values[SNAPSHOT_MODE].lower(),
        tombstones=values[TOMBSTONES],
        types=PostgresTypeOptions(
            values[DECIMAL_MODE].lower(),
            values[TIME_MODE].lower(),
            values[BINARY_MODE].lower(),
            placeholder_bytes(values[UNAVAILABLE_PLACEHOLDER]),
            interval_handling=values[INTERVAL_MODE].lower(),
            hstore_handling=values[HSTORE_MODE].lower(),
            money_fraction_digits=values[MONEY_DIGITS],
        ),
        heartbeat_s=values[HEARTBEAT_MS] / 1000,
        heartbeat_topic=f"{values[HEARTBEAT_PREFIX]}.{values[TOPIC_PREFIX]}",
        slot_drop_on_stop=values[SLOT_DROP],
        max_batch=values[MAX_BATCH],
        poll_s=values[POLL_MS] / 1000,
        compact_keyed=values[COMPACT_KEYED],
        message_keys=parse_message_key_columns(values[MESSAGE_KEY_COLUMNS]),
        propagate_columns=tuple(re.compile(p, re.IGNORECASE) for p in values[COLUMN_PROPAGATE] if p),
        propagate_datatypes=tuple(re.compile(p, re.IGNORECASE) for p in values[DATATYPE_PROPAGATE] if p),
        skipped=skipped_operations(values[SKIPPED_OPERATIONS]),
        slot_gap_acknowledged=values[SLOT_GAP_ACKNOWLEDGED].upper(),
    )
