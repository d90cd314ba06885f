"""mysql-replication's `BinLogStreamReader` in a thread of its own, reading ahead of the polling thread.

The reader blocks on the replication socket while the server has nothing to send, and a read timeout
would make it reconnect (it retries a lost connection by itself): so it runs in a thread, and `next`
waits for its next event at most `timeout` seconds, letting a poll return while the binlog is idle.

The thread reads up to READ_AHEAD events ahead, so the socket and the packets' parsing overlap the polling
thread's work. What bounds it is the schema: row values are decoded with the columns of their table map
event, which must carry the schema the connector holds at that position (binlog.prime_columns). So the
thread primes each table map as it reads it (`prime`, the stream's, from the held schema), decodes a
captured table's row event right after it (row_decoder.py; the columns are looked up when it decodes, and
the next table map event of the table replaces them), and stops reading ahead at an event that may change
what is held, until the polling thread has handled it: a DDL statement, or a table map `prime` could not
prime (a table with no held schema, which the stream reads from the catalog on the polling thread). The
rows of tables not captured are never decoded (without their schema, BLOB bytes would fail to decode).

Every event comes with the binlog position it started at (the reader's position before fetching it).
Stopping refuses the reader's reconnect (its connection factory raises once closed) and shuts its
socket, so the thread ends instead of reconnecting with the connector's replica id, which would
disconnect a restarted task's reader of the same id.
"""

from __future__ import annotations

import logging
import queue
import socket
import threading
from collections.abc import Callable
from typing import Any

from connectworker.api.errors import ConnectError

from .database import open_connection
from .ddl import is_transaction_control
from .row_decoder import decode_rows
from .settings import MySqlSettings

log = logging.getLogger(__name__)

READ_AHEAD = 256  # events read and parsed ahead of the polling thread (each at most a row event's size)


class _HeldSchemasFilter(logging.Filter):
    """Drops mysql-replication's warning, at every start, that the server should set
    `binlog_row_metadata=FULL`: this connector holds each table's schema itself (from its schema history),
    so that setting is not needed, and the warning would send an operator changing the server for nothing."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "BINLOG_ROW_METADATA = FULL" not in record.getMessage()


logging.getLogger("pymysqlreplication.binlogstream").addFilter(_HeldSchemasFilter())


class ReaderClosed(ConnectError):
    """The reader was stopped."""


class BinlogReader:
    def __init__(
        self,
        settings: MySqlSettings,
        file: str,
        pos: int,
        prime: Callable[[Any], bool],
        captures: Callable[[str, str], bool],
    ) -> None:
        """`prime(table_map_event)`: prime its columns with the held schema (True), or leave it to the
        polling thread (False: the reader then waits until that event was handled). `captures(database,
        table)`: whether a table's rows are captured (and so decoded)."""
        self._settings, self._file, self._pos, self._prime = settings, file, pos, prime
        self._captures = captures
        self._events: queue.Queue[tuple[str, int, Any, bool] | BaseException] = queue.Queue(maxsize=READ_AHEAD)
        self._go = threading.Event()
        self._closed = threading.Event()
        self._outstanding = False  # an event was handed on and the thread waits to fetch the next
        self._reader: Any = None
        self._thread = threading.Thread(target=self._run, name=f"mysql-binlog-{settings.topic_prefix}", daemon=True)
        self._thread.start()

    def _connect(self, **kwargs: Any) -> Any:
        if self._closed.is_set():
            raise ReaderClosed("the binlog reader is closed")
        return open_connection(**kwargs)

    def _run(self) -> None:
        from pymysqlreplication import BinLogStreamReader
        from pymysqlreplication.event import (
            GtidEvent,
            MariadbGtidEvent,
            QueryEvent,
            RotateEvent,
            XidEvent,
        )
        from pymysqlreplication.row_event import DeleteRowsEvent, TableMapEvent, UpdateRowsEvent, WriteRowsEvent

        settings = self._settings
        try:
            self._reader = reader = BinLogStreamReader(
                connection_settings={
                    "host": settings.host,
                    "port": settings.port,
                    "user": settings.user,
                    "passwd": settings.password or "",
                    "connect_timeout": 10,
                },
                server_id=settings.replica_id,
                log_file=self._file,
                log_pos=self._pos,
                resume_stream=True,
                blocking=True,
                # file/pos dumps on MariaDB too: with is_mariadb, mysql-replication ignores them and dumps
                # from the first binlog
                is_mariadb=False,
                only_events=[
                    TableMapEvent,
                    WriteRowsEvent,
                    UpdateRowsEvent,
                    DeleteRowsEvent,
                    QueryEvent,
                    GtidEvent,
                    MariadbGtidEvent,
                    RotateEvent,
                    XidEvent,
                ],
                pymysql_wrapper=self._connect,
                enable_logging=False,
            )
            while not self._closed.is_set():
                file, pos = reader.log_file, reader.log_pos
                event = reader.fetchone()
                if event is None:
                    raise ConnectError("the server ended the binlog stream")
                wait = False
                if isinstance(event, TableMapEvent):
                    wait = not self._prime(event)
                elif isinstance(event, QueryEvent):
                    wait = not _transaction_control(event)
                elif isinstance(event, (WriteRowsEvent, UpdateRowsEvent, DeleteRowsEvent)) and self._captures(
                    str(event.schema), str(event.table)
                ):
                    # decoded now, with the columns of the table map event just read: mysql-replication looks
                    # them up when it decodes, and the next table map event of the table replaces them
                    decode_rows(event)
                self._events.put((file, pos, event, wait))
                if wait:  # until the polling thread handled it: what it changes shapes the events after it
                    self._go.wait()
                    self._go.clear()
        except BaseException as exc:  # handed to the polling thread, which raises it
            if not self._closed.is_set():
                self._events.put(exc)

    def next(self, timeout: float) -> tuple[str, int, Any] | None:
        """The next event with the (file, pos) it starts at; None when none came within `timeout`. Raises
        what ended the reader."""
        if self._outstanding:
            self._outstanding = False
            self._go.set()
        try:
            item = self._events.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None
        if isinstance(item, BaseException):
            raise item
        file, pos, event, waits = item
        self._outstanding = waits
        return file, pos, event

    def close(self) -> None:
        self._closed.set()
        self._go.set()
        reader = self._reader
        stream = getattr(reader, "_stream_connection", None) if reader is not None else None
        sock = getattr(stream, "_sock", None)
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError as exc:  # already closed: the thread ends on its own
                log.debug("Shutting the binlog socket: %s", exc)
        self._thread.join(10)
        if reader is not None:
            try:
                reader.close()
            except Exception as exc:  # a broken connection: nothing more to do with it
                log.debug("Closing the binlog reader: %s", exc)


def _transaction_control(event: Any) -> bool:
    query = event.query if isinstance(event.query, str) else bytes(event.query).decode("utf-8", "replace")
    return is_transaction_control(query)
