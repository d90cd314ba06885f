"""`SqlSourceTask`: reads its tables' new rows, one table per poll, the table due first.

Each table has a `TableQuerier` (its shape, its offset, its query run in progress). A poll serves the
table whose next run is due soonest: a slice of its open run, or a new run once `poll.interval.ms` has
passed since the last one ended. With nothing due, a poll waits (at most half a second, so a stop is
noticed) and returns nothing.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING

import connectworker
from connectworker.api.errors import ConnectError
from connectworker.api.record import SourceRecordBatch
from connectworker.api.task import SourceTask
from connectworker.api.topic_settings import CleanupPolicy, TopicSettings

from .database import connect_with_retries, create_engine, first_line
from .offsets import query_partition, table_partition
from .querier import TableQuerier
from .settings import parse_settings
from .tables import task_tables

if TYPE_CHECKING:
    from sqlalchemy import Engine

log = logging.getLogger(__name__)

_MAX_WAIT_S = 0.5


class SqlSourceTask(SourceTask):
    def __init__(self) -> None:
        self._queriers: list[TableQuerier] = []
        self._keyed_topics: set[str] = set()
        self._compact_keyed = False
        self._stopping = threading.Event()
        self._lock = threading.Lock()  # poll() and stop() take turns with the open queries
        self._engine: Engine | None = None

    def version(self) -> str:
        return connectworker.__version__

    def start(self, props: Mapping[str, str]) -> None:
        from sqlalchemy.exc import DBAPIError

        settings = parse_settings(props)
        engine = create_engine(settings)
        self._engine = engine
        connect_with_retries(engine, settings)
        self._compact_keyed = settings.compact_keyed_table_topics
        reader = self.context.offset_storage_reader
        try:
            if settings.query is not None:
                self._queriers = [
                    TableQuerier(engine, settings, schema=None, table=None, committed=reader.offset(query_partition()))
                ]
            else:
                self._queriers = [
                    TableQuerier(
                        engine,
                        settings,
                        schema=schema,
                        table=table,
                        committed=reader.offset(table_partition(schema, table)),
                    )
                    for schema, table in task_tables(props)
                ]
        except DBAPIError as exc:
            engine.dispose()
            raise ConnectError(f"Cannot read the tables' columns: {first_line(exc)}") from None
        except BaseException:
            engine.dispose()
            raise
        self._keyed_topics = {q.topic for q in self._queriers if q.keyed}
        log.info("SQL source task reads %s", ", ".join(q.name for q in self._queriers) or "no table")

    def dry_start(self, props: Mapping[str, str]) -> None:
        """As `start`: it reads the tables' columns and keys (for compact.keyed.table.topics) and the committed
        offsets, and writes nothing; no query runs until `poll`."""
        self.start(props)

    def poll(self) -> SourceRecordBatch | None:
        with self._lock:
            if self._stopping.is_set() or not self._queriers:
                due = None
            else:
                due = min(self._queriers, key=lambda q: q.next_run)
                if due.next_run <= time.monotonic():
                    return due.poll()
        wait = _MAX_WAIT_S if due is None else min(_MAX_WAIT_S, due.next_run - time.monotonic())
        self._stopping.wait(max(0.0, wait))
        return None

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            for querier in self._queriers:
                querier.close()
            engine, self._engine = self._engine, None
            if engine is not None:
                engine.dispose()

    def settings_for_new_topic(self, settings: TopicSettings) -> TopicSettings | None:
        """With compact.keyed.table.topics, a keyed table's topic is compacted: its records are keyed by
        the primary key, so compaction keeps each row's newest version."""
        if self._compact_keyed and settings.name in self._keyed_topics:
            return settings.with_cleanup_policy(CleanupPolicy.COMPACT)
        return settings
