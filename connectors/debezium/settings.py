"""The settings every CDC connector shares (Debezium's `RelationalDatabaseConnectorConfig`), parsed once:
what is captured (the namespace, table and column lists, matched as Debezium matches them: whole names,
ignoring case), how a table's records are keyed and shaped, what is sent, and how a task reads and waits.
Each database's settings extend `CaptureSettings` with its own keys (settings.py beside its keys.py)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from connectworker.api.config_def import ConfigDef
from connectworker.api.errors import ConfigError

from . import capture_keys as k
from . import signal_keys as sk
from .capture_keys import capture_key_problems
from .column_mappers import ColumnMappers
from .keys import parse_message_key_columns, skipped_operations
from .signal_keys import enabled_channels
from .unimplemented_keys import UnimplementedKey, refused_keys

Patterns = tuple[re.Pattern[str], ...]


@dataclass(frozen=True)
class SignalSettings:
    """Signals, incremental snapshots and notifications (signal_keys.py)."""

    table: str = ""  # signal.data.collection: "<namespace>.<table>", compared as written (Debezium: case-sensitive)
    channels: frozenset[str] = frozenset({"source"})
    poll_s: float = 5.0
    kafka_topic: str = ""
    kafka_servers: str = ""
    file: str = "file-signals.txt"
    chunk_size: int = 1024
    insert_delete: bool = False
    notification_channels: frozenset[str] = frozenset()
    notification_topic: str = ""


@dataclass(frozen=True, kw_only=True)
class CaptureSettings:
    host: str
    port: int
    user: str
    password: str | None
    topic_prefix: str
    namespace_include: Patterns  # PostgreSQL's schema.include.list, MySQL's database.include.list
    namespace_exclude: Patterns
    table_include: Patterns
    table_exclude: Patterns
    column_include: Patterns
    column_exclude: Patterns
    snapshot_mode: str
    tombstones: bool
    skipped: frozenset[str]  # Debezium `op` codes whose events are not sent (skipped.operations)
    message_keys: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]  # message.key.columns
    heartbeat_s: float
    heartbeat_prefix: str
    max_batch: int
    max_queue: int
    poll_s: float
    compact_keyed: bool
    mappers: ColumnMappers
    retry_timeout_ms: int | None = None
    """errors.retry.timeout when set (-1: forever): how long a lost server is retried before the task fails;
    None (unset): forever, as Kafka retries a poll() and Debezium (errors.max.retries=-1) a lost connection."""
    signals: SignalSettings = SignalSettings()

    def captures_namespace(self, namespace: str) -> bool:
        """Whether a schema (PostgreSQL) or database (MySQL) is captured."""
        if self.namespace_include and not any(p.fullmatch(namespace) for p in self.namespace_include):
            return False
        return not any(p.fullmatch(namespace) for p in self.namespace_exclude)

    def captures(self, namespace: str, table: str) -> bool:
        """Whether a table's changes are captured (Debezium: whole, case-insensitive matches of
        `<namespace>.<table>`, within the captured namespaces). The signal table always is (its rows are not
        snapshotted: `is_signal_table`)."""
        if self.signals.table and self.is_signal_table(namespace, table):
            return True
        if not self.captures_namespace(namespace):
            return False
        name = f"{namespace}.{table}"
        if self.table_include:
            return any(p.fullmatch(name) for p in self.table_include)
        return not any(p.fullmatch(name) for p in self.table_exclude)

    def is_signal_table(self, namespace: str, table: str) -> bool:
        return f"{namespace}.{table}" == self.signals.table

    def keeps_column(self, namespace: str, table: str, column: str) -> bool:
        name = f"{namespace}.{table}.{column}"
        if self.column_include:
            return any(p.fullmatch(name) for p in self.column_include)
        return not any(p.fullmatch(name) for p in self.column_exclude)

    def message_key(self, namespace: str, table: str) -> tuple[str, ...] | None:
        """The key columns message.key.columns sets for a table (its first whole match), or None."""
        name = f"{namespace}.{table}"
        return next((columns for pattern, columns in self.message_keys if pattern.fullmatch(name)), None)

    def topic(self, namespace: str, table: str) -> str:
        return f"{self.topic_prefix}.{namespace}.{table}"

    @property
    def heartbeat_topic(self) -> str:
        return f"{self.heartbeat_prefix}.{self.topic_prefix}"

    @property
    def where(self) -> str:
        """The server, for messages: host:port."""
        return f"{self.host}:{self.port}"


def read_settings(
    config_def: ConfigDef,
    props: Mapping[str, str],
    namespace: str,
    unimplemented: Sequence[UnimplementedKey],
    *,
    source: str,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The typed values of every key of a connector's `config_def` (holding capture_keys(namespace=...)), and
    the `CaptureSettings` fields among them; raises ConfigError naming every bad key: each key's own
    problems, the rules across keys, the column mappers' keys and the Debezium keys refused."""
    values = config_def.parse(props, source=source)
    problems = {
        **capture_key_problems(values, namespace),
        **ColumnMappers.problems(props),
        **refused_keys(props, unimplemented, config_def.keys),
    }
    if problems:
        raise ConfigError(problems, source=source)
    return values, _capture_settings(values, props, namespace)


def _capture_settings(values: Mapping[str, Any], props: Mapping[str, str], namespace: str) -> dict[str, Any]:

    def patterns(key: str) -> Patterns:
        return tuple(re.compile(p, re.IGNORECASE) for p in values[key] if p)

    return {
        "host": values[k.HOSTNAME],
        "port": values[k.PORT],
        "user": values[k.USER],
        "password": values[k.PASSWORD],
        "topic_prefix": values[k.TOPIC_PREFIX],
        "namespace_include": patterns(f"{namespace}.include.list"),
        "namespace_exclude": patterns(f"{namespace}.exclude.list"),
        "table_include": patterns(k.TABLE_INCLUDE),
        "table_exclude": patterns(k.TABLE_EXCLUDE),
        "column_include": patterns(k.COLUMN_INCLUDE),
        "column_exclude": patterns(k.COLUMN_EXCLUDE),
        "tombstones": values[k.TOMBSTONES],
        "skipped": skipped_operations(values[k.SKIPPED_OPERATIONS]),
        "message_keys": parse_message_key_columns(values[k.MESSAGE_KEY_COLUMNS]),
        "heartbeat_s": values[k.HEARTBEAT_MS] / 1000,
        "heartbeat_prefix": values[k.HEARTBEAT_PREFIX],
        "max_batch": values[k.MAX_BATCH],
        "max_queue": values[k.MAX_QUEUE],
        "poll_s": values[k.POLL_MS] / 1000,
        "compact_keyed": values[k.COMPACT_KEYED],
        "mappers": ColumnMappers.from_props(props),
        "retry_timeout_ms": retry_timeout(props),
        "signals": signal_settings(values, values[k.TOPIC_PREFIX]),
    }


def signal_settings(values: Mapping[str, Any], prefix: str) -> SignalSettings:
    """The signal, incremental snapshot and notification settings of a connector's typed values."""
    return SignalSettings(
        table=values[sk.SIGNAL_TABLE].strip(),
        channels=frozenset(enabled_channels(values[sk.SIGNAL_CHANNELS])),
        poll_s=values[sk.SIGNAL_POLL_MS] / 1000,
        kafka_topic=values[sk.SIGNAL_TOPIC].strip() or f"{prefix}-signal",
        kafka_servers=values[sk.SIGNAL_SERVERS].strip(),
        file=values[sk.SIGNAL_FILE],
        chunk_size=values[sk.CHUNK_SIZE],
        insert_delete=values[sk.WATERMARKING].strip().lower() == "insert_delete",
        notification_channels=frozenset(enabled_channels(values[sk.NOTIFICATION_CHANNELS])),
        notification_topic=values[sk.NOTIFICATION_TOPIC].strip(),
    )


def retry_timeout(props: Mapping[str, str]) -> int | None:
    """The connector's errors.retry.timeout (the worker validates it: an integer, -1 or more)."""
    text = (props.get(k.RETRY_TIMEOUT) or "").strip()
    try:
        return int(text) if text else None
    except ValueError:
        return None
