"""One table (or the `query`) of a task: its shape, where it was read up to, and the query in progress.

Each run of the mode's query is one statement in one transaction, read in `batch.max.rows` slices over
consecutive polls through a server-side cursor (`stream_results`), so a run is one consistent read: the
timestamp window's upper bound (the database's own clock minus `timestamp.delay.interval.ms`) and the
increment are judged against the same snapshot, and no row between them is skipped. When a run is
exhausted the table waits `poll.interval.ms` for the next one.

The in-memory offset advances only with rows handed out, so when the connection is lost mid-run the next
run (after the worker's backoff) starts right after the last row sent: nothing is skipped, nothing sent
twice.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from connectworker.api.errors import ConnectError, RetriableError
from connectworker.api.record import SourceRecordBatch
from connectworker.api.schema import Schema

from .columns import RowShape, db_zone, plan_column, zone_of
from .database import first_line
from .offsets import TableOffset, instant_of_epoch_ms, query_partition, table_partition
from .settings import INCREMENTING_COLUMN, TIMESTAMP_COLUMNS, SqlSourceSettings

if TYPE_CHECKING:
    from sqlalchemy import Connection, CursorResult, Engine, Select
    from sqlalchemy.sql import ColumnElement, FromClause

log = logging.getLogger(__name__)

_QUERY_VIEW = "connectworker_sql_source_query"


class TableQuerier:
    def __init__(
        self,
        engine: Engine,
        settings: SqlSourceSettings,
        *,
        schema: str | None,
        table: str | None,
        committed: dict[str, Any] | None,
    ) -> None:
        """`table` None means the settings' `query`. `committed` is the offset a previous run committed."""
        self._engine = engine
        self._settings = settings
        self._zone = db_zone(settings.db_timezone)
        self._aware = zone_of(self._zone)
        self.name = f"{schema}.{table}" if schema and table else table or "query"
        self.topic = settings.topic_prefix + (table if table is not None else "")
        self.partition = table_partition(schema, table) if table is not None else query_partition()
        self._offset = TableOffset.from_connect(committed)
        with engine.connect() as connection:
            source = self._reflect(connection, schema, table)
        self._source = source
        self.keyed = bool(self._key_columns)
        self.next_run = 0.0  # monotonic time of the next query run
        self._connection: Connection | None = None
        self._result: CursorResult[Any] | None = None

    # -- the table's shape ---------------------------------------------------------------------------
    def _reflect(self, connection: Connection, schema: str | None, table: str | None) -> FromClause:
        from sqlalchemy import MetaData, Table, column, text
        from sqlalchemy.exc import NoSuchTableError

        if table is None:
            source_columns, key = self._query_columns(connection), []
            assert self._settings.query is not None
            source: FromClause = (
                text(self._settings.query)
                .columns(*(column(c["name"], c["type"]) for c in source_columns))
                .subquery("q")
            )
            value_name = "ConnectDefault"
        else:
            try:
                reflected = Table(table, MetaData(), schema=schema, autoload_with=connection)
            except NoSuchTableError:
                raise ConnectError(f"Table {self.name} does not exist (any more) in the database") from None
            source_columns = [
                {"name": c.name, "type": c.type, "nullable": c.nullable and not c.primary_key}
                for c in reflected.columns
            ]  # SQLite reports its INTEGER PRIMARY KEY nullable
            key = [c.name for c in reflected.primary_key.columns]
            source, value_name = reflected, table
        dialect = connection.dialect.name
        plans = {
            c["name"]: plan_column(
                self.name, c, dialect=dialect, numeric_mapping=self._settings.numeric_mapping, aware=self._aware
            )
            for c in source_columns
        }
        self._check_mode_columns(source_columns)
        self._shape = RowShape(value_name, list(plans.values()))
        self._key_columns = key
        self._key_shape = RowShape(f"{value_name}.Key", [plans[k] for k in key]) if key else None
        self._key_indexes = [self._shape.names.index(k) for k in key]
        self._timestamp_naive = any(
            not getattr(c["type"], "timezone", False) for c in source_columns if c["name"] in self._ts_columns
        )
        names = self._shape.names
        inc = self._settings.incrementing_column
        self._inc_at = names.index(inc) if self._settings.incrementing and inc else None
        self._ts_at = [names.index(name) for name in self._ts_columns]
        return source

    @property
    def _ts_columns(self) -> tuple[str, ...]:
        return self._settings.timestamp_columns if self._settings.timestamped else ()

    def _query_columns(self, connection: Connection) -> list[dict[str, Any]]:
        """The columns of `query`, typed by the database: it is made a temporary view and reflected."""
        from sqlalchemy import inspect, text
        from sqlalchemy.exc import DBAPIError

        assert self._settings.query is not None
        sqlite = connection.dialect.name == "sqlite"
        try:
            with connection.begin():
                connection.execute(text(f"CREATE TEMPORARY VIEW {_QUERY_VIEW} AS {self._settings.query}"))
                columns = inspect(connection).get_columns(_QUERY_VIEW, schema="temp" if sqlite else None)
                connection.execute(text(f"DROP VIEW {_QUERY_VIEW}"))
        except DBAPIError as exc:
            raise ConnectError(f"The query of the connector's query key cannot be read: {first_line(exc)}") from None
        return [{"name": c["name"], "type": c["type"], "nullable": True} for c in columns]

    def _check_mode_columns(self, columns: Sequence[dict[str, Any]]) -> None:
        by_name = {c["name"]: c for c in columns}
        wanted = [(INCREMENTING_COLUMN, self._settings.incrementing_column)] if self._settings.incrementing else []
        wanted += [(TIMESTAMP_COLUMNS, name) for name in self._ts_columns]
        for key, name in wanted:
            assert name is not None
            if name not in by_name:
                raise ConnectError(
                    f"{key}: {name!r} is not a column of {self.name} (its columns: {', '.join(by_name)})"
                )
            # a query's columns have no NOT NULL to check (a view reports every column nullable)
            if self._settings.validate_non_null and by_name[name].get("nullable") and "table" in self.partition:
                raise ConnectError(
                    f"{key}: column {name!r} of {self.name} may hold NULL, and a row with NULL "
                    f"there would never be read; make it NOT NULL or set validate.non.null=false"
                )

    # -- reading -------------------------------------------------------------------------------------
    def poll(self) -> SourceRecordBatch | None:
        """The next slice of the current run (starting one if none is open), or None when the run is over.
        Raises RetriableError when the database cannot be reached or the connection was lost."""
        from sqlalchemy.exc import DBAPIError

        try:
            if self._result is None:
                self._start_run()
            assert self._result is not None
            rows = self._result.fetchmany(self._settings.batch_max_rows)
        except DBAPIError as exc:
            self.close()
            self.next_run = 0.0
            raise RetriableError(
                f"Reading {self.name} failed, the query is run again from the last row sent: {first_line(exc)}"
            ) from exc
        if len(rows) < self._settings.batch_max_rows:
            self.close()
            self.next_run = time.monotonic() + self._settings.poll_interval_s
        return self._records(rows) if rows else None

    def _start_run(self) -> None:
        connection = self._engine.connect()
        try:
            statement = self._statement(connection)
            self._result = connection.execution_options(
                stream_results=True, max_row_buffer=self._settings.batch_max_rows
            ).execute(statement)
        except BaseException:
            connection.close()
            raise
        self._connection = connection

    def _statement(self, connection: Connection) -> Select[Any]:
        from sqlalchemy import and_, func, or_, select

        source = self._source
        query = select(source)
        inc_name = self._settings.incrementing_column
        inc = source.c[inc_name] if self._settings.incrementing and inc_name else None
        if self._ts_columns:
            ts_cols = [source.c[name] for name in self._ts_columns]
            ts: ColumnElement[Any] = ts_cols[0] if len(ts_cols) == 1 else func.coalesce(*ts_cols)
            end = self._param(self._database_now(connection) - timedelta(seconds=self._settings.timestamp_delay_s))
            begin = self._param(self._begin())
            if inc is not None and self._offset.incrementing is not None:
                query = query.where(ts < end, or_(and_(ts == begin, inc > self._offset.incrementing), ts > begin))
            else:
                query = query.where(ts > begin, ts < end)
            return query.order_by(ts, inc) if inc is not None else query.order_by(ts)
        if inc is not None:
            if self._offset.incrementing is not None:
                query = query.where(inc > self._offset.incrementing)
            return query.order_by(inc)
        return query

    def _begin(self) -> datetime:
        if self._offset.timestamp is not None:
            return self._offset.timestamp
        initial = self._settings.timestamp_initial_ms
        if initial is None:
            return datetime(1970, 1, 1, tzinfo=UTC)
        return datetime.now(UTC) if initial == -1 else instant_of_epoch_ms(initial)

    def _database_now(self, connection: Connection) -> datetime:
        """The database's clock (so the worker's clock cannot skew the window), as an aware instant."""
        from sqlalchemy import func, select

        now = connection.execute(select(func.current_timestamp())).scalar_one()
        if isinstance(now, str):
            now = datetime.fromisoformat(now)
        return now if now.tzinfo is not None else now.replace(tzinfo=UTC)  # SQLite's clock is UTC

    def _param(self, instant: datetime) -> datetime:
        """`instant` as the timestamp columns hold it: naive columns in `db.timezone`."""
        if not self._timestamp_naive:
            return instant
        return instant.astimezone(self._zone).replace(tzinfo=None)

    def _records(self, rows: Sequence[Any]) -> SourceRecordBatch:
        shape, values = self._shape, []
        offsets: list[dict[str, Any] | None] = []
        inc_at, ts_at = self._inc_at, self._ts_at
        offset = self._offset
        for row in rows:
            values.append(shape.value(row))
            if inc_at is not None or ts_at:
                instant = next((row[i] for i in ts_at if row[i] is not None), None)
                offset = TableOffset(
                    int(row[inc_at]) if inc_at is not None else None,
                    self._aware(instant) if isinstance(instant, datetime) else offset.timestamp,
                )
                offsets.append(offset.to_connect())
            else:
                offsets.append(None)
        self._offset = offset
        keys: list[Any] = [None] * len(rows)
        key_schema: Schema | None = None
        if self._key_shape is not None:
            key_shape, at = self._key_shape, self._key_indexes
            keys = [key_shape.value([row[i] for i in at]) for row in rows]
            key_schema = key_shape.schema
        return SourceRecordBatch(
            self.partition,
            offsets,
            [self.topic] * len(rows),
            keys,
            values,
            key_schema=key_schema,
            value_schema=shape.schema,
        )

    def close(self) -> None:
        """End the run in progress (its transaction and connection), if any."""
        result, connection, self._result, self._connection = self._result, self._connection, None, None
        from sqlalchemy.exc import DBAPIError

        for closing in (result, connection):
            if closing is not None:
                try:
                    closing.close()
                except DBAPIError as exc:  # a lost connection cannot be closed cleanly; it is dropped
                    log.debug("Closing the query on %s: %s", self.name, first_line(exc))
