"""The line between the driver and the connector tasks that run inside Spark tasks.

Each Spark task that runs a connector task connects to this TCP server on the driver and, every
`REPORT_INTERVAL_S` (and at once when something changed), sends one JSON line: the task's state and
trace, its counters, the topics it met, and the log lines worth showing on the driver (topic
creation, lifecycle). The driver answers each line with what the task should do (`run`, `pause`,
`stop`), so a pause reaches a running task within a report interval, and a task whose driver is gone
(the connection drops) stops and commits on its own.

Why not a Kafka status topic (Kafka Connect's `status.storage.topic`)? Commands must reach a task
within a second or two, and the driver must see a task's death: a connection gives both without a
consumer per task, and without a broker round trip for every pause. Each Spark task attempt carries
a random token the driver handed it, so only the driver's own tasks are heard.
"""

from __future__ import annotations

import json
import logging
import secrets
import socketserver
import threading
from typing import Any, Protocol

log = logging.getLogger(__name__)

REPORT_INTERVAL_S = 0.25
MAX_LINE_BYTES = 4 * 1024 * 1024  # a report with a long trace and many log lines stays far below


class ReportSink(Protocol):
    """What the channel hands a task's reports to (the driver's handle of that task)."""

    def on_report(self, report: dict[str, Any]) -> str:
        """Take one report; return the command for the task (`run`, `pause`, `stop`, `forget_topics`)."""
        ...

    def on_disconnect(self) -> None:
        """The Spark task's connection ended (it finished, or its process died)."""
        ...


class TaskChannel:
    def __init__(self, host: str) -> None:
        self.token = secrets.token_hex(16)
        self._sinks: dict[str, ReportSink] = {}
        self._lock = threading.Lock()
        channel = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                channel._serve(self)

        self._server = socketserver.ThreadingTCPServer((host, 0), Handler, bind_and_activate=False)
        self._server.daemon_threads = True
        self._server.allow_reuse_address = True
        self._server.server_bind()
        self._server.server_activate()
        self._thread = threading.Thread(target=self._server.serve_forever, name="spark-task-channel", daemon=True)
        self._thread.start()

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._server.server_address[:2]
        return str(host), int(port)

    def register(self, attempt: str, sink: ReportSink) -> None:
        with self._lock:
            self._sinks[attempt] = sink

    def unregister(self, attempt: str) -> None:
        with self._lock:
            self._sinks.pop(attempt, None)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _serve(self, handler: socketserver.StreamRequestHandler) -> None:
        hello = _read(handler)
        if hello is None or not secrets.compare_digest(str(hello.get("token", "")), self.token):
            log.warning("A connection to the Spark task channel from %s did not present this driver's token; "
                        "closed", handler.client_address[0])
            return
        with self._lock:
            sink = self._sinks.get(str(hello.get("attempt")))
        if sink is None:  # a task the driver gave up on (stopped, restarted): it must stop
            _write(handler, {"command": "stop"})
            return
        try:
            command = sink.on_report(hello)
            while True:
                _write(handler, {"command": command})
                report = _read(handler)
                if report is None:
                    return
                command = sink.on_report(report)
        except OSError as exc:
            log.debug("Spark task channel connection ended: %s", exc)
        finally:
            sink.on_disconnect()


def _read(handler: socketserver.StreamRequestHandler) -> dict[str, Any] | None:
    line = handler.rfile.readline(MAX_LINE_BYTES)
    if not line:
        return None
    message = json.loads(line)
    return message if isinstance(message, dict) else None


def _write(handler: socketserver.StreamRequestHandler, message: dict[str, Any]) -> None:
    handler.wfile.write(json.dumps(message).encode() + b"\n")
    handler.wfile.flush()
