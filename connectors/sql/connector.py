"""`SqlSourceConnector`: reads database tables (or one query) into Kafka, one topic per table.

The Python counterpart of Confluent's JDBC source connector (its keys, its modes, its offsets): see
docs/sql-source.md. The connector lists the tables, spreads them over at most `tasks.max` tasks, and
watches for tables created or dropped (`table.poll.interval.ms`), asking the worker for a task
reconfiguration when the list changes; the tasks do the reading (`task.py`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import connectworker
from connectworker.api.config_def import ConfigDef, ConfigValue, add_problems, checks_hold
from connectworker.api.connector import SourceConnector, offset_refusal
from connectworker.api.errors import ConfigError, ConnectError
from connectworker.api.exactly_once import ExactlyOnceSupport
from connectworker.api.record import as_json, is_offset_count
from connectworker.api.task import SourceTask

from .database import connect_with_retries, create_engine, describe, first_line
from .settings import CONFIG_DEF, CONNECTION_URL, QUERY, TABLES, SqlSourceSettings, parse_settings, problems_across_keys
from .tables import TableMonitor, list_tables, spread

if TYPE_CHECKING:
    from sqlalchemy import Engine


class SqlSourceConnector(SourceConnector):
    def __init__(self) -> None:
        self._settings: SqlSourceSettings | None = None
        self._engine: Engine | None = None
        self._monitor: TableMonitor | None = None

    def version(self) -> str:
        return connectworker.__version__

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> dict[str, ConfigValue]:
        """Each key, the rules across keys, then (when those hold) that the database answers, as
        Confluent's connector checks at validation."""
        values = super().validate(props)
        if not checks_hold(values, problems_across_keys):
            return values
        try:
            settings = parse_settings(props)
            engine = create_engine(settings)
        except ConfigError as exc:
            return add_problems(values, exc)
        try:
            connect_with_retries(engine, _one_attempt(settings))
        except ConnectError as exc:
            values[CONNECTION_URL].errors.append(str(exc))
        finally:
            engine.dispose()
        return values

    def start(self, props: Mapping[str, str]) -> None:
        self._start(props, watch_tables=True)

    def dry_start(self, props: Mapping[str, str]) -> None:
        """Lists the tables once, as `start` does (a read), without the thread that watches them for new ones."""
        self._start(props, watch_tables=False)

    def _start(self, props: Mapping[str, str], *, watch_tables: bool) -> None:
        from sqlalchemy.exc import DBAPIError

        self._settings = settings = parse_settings(props)
        self._engine = engine = create_engine(settings)
        connect_with_retries(engine, settings)
        if settings.query is None:
            try:
                tables = list_tables(engine, settings)
            except DBAPIError as exc:
                raise ConnectError(f"Cannot list the tables of {describe(engine)}: {first_line(exc)}") from None
            self._monitor = TableMonitor(engine, settings, tables, self.context.request_task_reconfiguration)
            if watch_tables:
                self._monitor.start()

    def task_class(self) -> type[SourceTask]:
        from .task import SqlSourceTask

        return SqlSourceTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """One task for `query`; else the tables spread over at most `max_tasks` tasks (no table, no task:
        the first table created starts one)."""
        assert self._settings is not None, "task_configs() before start()"
        if self._settings.query is not None:
            return [{TABLES: "[]"}]
        assert self._monitor is not None
        return [{TABLES: json.dumps([list(t) for t in group])} for group in spread(self._monitor.tables, max_tasks)]

    def stop(self) -> None:
        if self._monitor is not None:
            self._monitor.stop()
            self._monitor = None
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Incrementing and timestamp modes resume exactly from their offsets; bulk re-reads the table."""
        return ExactlyOnceSupport.UNSUPPORTED if props.get("mode") == "bulk" else ExactlyOnceSupport.SUPPORTED

    def unused_offset_reason(
        self, props: Mapping[str, str], partition: Mapping[str, Any], offset: Mapping[str, Any]
    ) -> str | None:
        """A table's offset while the connector reads a query (or the query's while it reads tables), or a
        malformed one. (Whether a table is still among those read takes the database: not said here.)"""
        if refused := offset_refusal(self, props, partition, offset):
            return refused
        reads_query = bool((props.get(QUERY) or "").strip())
        if reads_query and "table" in partition:
            return "the connector reads its query, not tables; no task resumes from a table's offset"
        if not reads_query and "query" in partition:
            return "the connector reads tables, not a query; no task resumes from the query's offset"
        return None

    def alter_offsets(
        self, props: Mapping[str, str], offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> bool:
        """Confluent's JDBC source shapes: a partition names a table (`{"protocol": "1", "table": ...}`) or
        the query (`{"query": "query"}`); an offset is None or holds integers `incrementing`, `timestamp`
        (epoch ms) and `timestamp_nanos`."""
        for partition, offset in offsets:
            if not (set(partition) == {"protocol", "table"} or dict(partition) == {"query": "query"}):
                raise ConnectError(
                    'A partition is {"protocol": "1", "table": "<schema>.<table>"} or {"query": "query"} (got '
                    f"{as_json(partition)})"
                )
            if offset is None:
                continue
            unknown = set(offset) - {"incrementing", "timestamp", "timestamp_nanos"}
            bad = [k for k, v in offset.items() if not is_offset_count(v)]
            if unknown or bad or not offset:
                raise ConnectError(
                    "An offset is null or holds non-negative integers under incrementing, timestamp (epoch "
                    f"milliseconds) and timestamp_nanos (got {as_json(offset)} for {as_json(partition)})"
                )
        return True


def _one_attempt(settings: SqlSourceSettings) -> SqlSourceSettings:
    from dataclasses import replace

    return replace(settings, connection_attempts=1)
