"""mysql-replication's `BinLogStreamReader` in a thread of its own, handing on one event at a time.

The reader blocks on the replication socket while the server has nothing to send, and a read timeout
would make it reconnect (it retries a lost connection by itself): so it runs in a thread, and `next`
waits for its next event at most `timeout` seconds, letting a poll return while the binlog is idle.
The thread fetches an event only once the previous one was handled (`next` was called again): a table
map event is primed with the held schema (binlog.prime_columns), and a row event's rows are decoded
(lazily, on the polling thread), before the reader reads on, so the held schema is always the one of
the event at hand.

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
from typing import Any

from connectworker.api.errors import ConnectError

from .settings import MySqlSettings

log = logging.getLogger(__name__)


class ReaderClosed(ConnectError):
    """The reader was stopped."""


class BinlogReader:
    def __init__(self, settings: MySqlSettings, file: str, pos: int) -> None:
        self._settings, self._file, self._pos = settings, file, pos
        self._events: queue.Queue[tuple[str, int, Any] | BaseException] = queue.Queue(maxsize=1)
        self._go = threading.Event()
        self._closed = threading.Event()
        self._outstanding = False  # an event was handed on and the thread waits to fetch the next
        self._reader: Any = None
        self._thread = threading.Thread(target=self._run, name=f"mysql-binlog-{settings.topic_prefix}", daemon=True)
        self._thread.start()

    def _connect(self, **kwargs: Any) -> Any:
        if self._closed.is_set():
            raise ReaderClosed("the binlog reader is closed")
        import pymysql

        return pymysql.connect(**kwargs)

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
                self._events.put((file, pos, event))
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
        self._outstanding = True
        return item

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
