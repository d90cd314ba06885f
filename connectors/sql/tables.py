"""Which tables the connector reads, and the thread that notices tables created or dropped.

A table is named by its name or `schema.name`; each entry of the include and exclude lists matches
either, exactly or as a regular expression (`orders_.*`). Tables are looked for in one schema:
`schema.pattern`, else the connection's default schema.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from .database import describe, first_line
from .settings import TABLES, SqlSourceSettings

if TYPE_CHECKING:
    from sqlalchemy import Engine

log = logging.getLogger(__name__)

TableId = tuple[str, str]
"""(schema, table)"""


def _matches(entry: str, schema: str, table: str) -> bool:
    if entry in (table, f"{schema}.{table}"):
        return True
    try:
        return bool(re.fullmatch(entry, table) or re.fullmatch(entry, f"{schema}.{table}"))
    except re.error:  # a table list written as names only (table.whitelist) may hold regex characters
        return False


def list_tables(engine: Engine, settings: SqlSourceSettings) -> list[TableId]:
    """The tables to read, sorted; raises SQLAlchemy's DBAPIError when the database cannot be asked."""
    from sqlalchemy import inspect

    inspector = inspect(engine)
    schema = settings.schema or inspector.default_schema_name or ""
    names: list[str] = []
    if "TABLE" in settings.table_types:
        names += inspector.get_table_names(schema=schema)
    if "VIEW" in settings.table_types:
        names += inspector.get_view_names(schema=schema)
    if settings.include:
        names = [n for n in names if any(_matches(e, schema, n) for e in settings.include)]
    names = [n for n in names if not any(_matches(e, schema, n) for e in settings.exclude)]
    return sorted((schema, name) for name in set(names))


def task_tables(props: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The (schema, table) pairs of a task config (the connector writes them under `tables`, spread)."""
    return [(schema, table) for schema, table in json.loads(props.get(TABLES) or "[]")]


def spread(tables: list[TableId], max_tasks: int) -> list[list[TableId]]:
    """`tables` in at most `max_tasks` groups of nearly equal size, in order (none empty)."""
    count = min(max_tasks, len(tables))
    if count == 0:
        return []
    size, extra = divmod(len(tables), count)
    groups, at = [], 0
    for i in range(count):
        take = size + (1 if i < extra else 0)
        groups.append(tables[at : at + take])
        at += take
    return groups


class TableMonitor:
    """Lists the tables every `table.poll.interval.ms` and calls `changed` when the list changed."""

    def __init__(
        self, engine: Engine, settings: SqlSourceSettings, tables: list[TableId], changed: Callable[[], None]
    ) -> None:
        self._engine = engine
        self._settings = settings
        self._tables = tables
        self._lock = threading.Lock()
        self._changed = changed
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sql-source-table-monitor", daemon=True)
        self._failing = False

    @property
    def tables(self) -> list[TableId]:
        with self._lock:
            return list(self._tables)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(5)

    def _run(self) -> None:
        from sqlalchemy.exc import DBAPIError

        while not self._stop.wait(self._settings.table_poll_interval_s):
            try:
                tables = list_tables(self._engine, self._settings)
            except DBAPIError as exc:  # the tasks report the outage; the list is checked again next time
                if not self._failing:
                    log.warning(
                        "Could not list the tables of %s (checked again in %.1f s): %s",
                        describe(self._engine),
                        self._settings.table_poll_interval_s,
                        first_line(exc),
                    )
                self._failing = True
                continue
            self._failing = False
            with self._lock:
                if tables == self._tables:
                    continue
                added = sorted(set(tables) - set(self._tables))
                dropped = sorted(set(self._tables) - set(tables))
                self._tables = tables
            log.info(
                "Tables changed in %s: %s added, %s dropped; asking for a task reconfiguration",
                describe(self._engine),
                [".".join(t) for t in added] or "none",
                [".".join(t) for t in dropped] or "none",
            )
            self._changed()
