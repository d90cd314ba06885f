"""The line between the worker and its tasks that run in other processes (task processes on this host,
or Spark tasks on executors): the remote-task protocol's transport.

Each remote task opens a TCP connection to this server and, every `REPORT_INTERVAL_S` (and at once when
something changed), sends one JSON line: the task's state and trace, its counters and progress document,
the topics it met, its metric observations and its log lines. The worker answers each line with what the
task should do (`run`, `pause`, `stop`, `forget_topics`) and the operators' signals for it not sent yet,
and sends a command (or a signal) at once when one is asked for (a stop reaches the task in well under a
millisecond, not at its next report); a task whose worker is gone (the connection drops) stops and
commits on its own, and a signal sent as it went is lost with it.

A task opens a second connection for topic creation (`"kind": "topics"` in its first line): the
worker's topic-creation service, with its one known-topic cache, checks and creates the task's new
topics, asking the task's own `settings_for_new_topic` over that connection (runners/remote_topic_gate.py).

Why not a Kafka status topic (Kafka Connect's `status.storage.topic`)? Commands must reach a task
within a second or two, and the worker must see a task's death: a connection gives both without a
consumer per task, and without a broker round trip for every pause. Each task attempt carries a random
token the worker handed it, so only the worker's own tasks are heard.
"""

from __future__ import annotations

import functools
import io
import json
import logging
import secrets
import socket
import socketserver
import threading
from collections.abc import Callable
from typing import IO, Any, Protocol

log = logging.getLogger(__name__)

REPORT_INTERVAL_S = 0.25
MAX_LINE_BYTES = 4 * 1024 * 1024  # a report with a long trace and many log lines stays far below


class LineIO:
    """JSON messages, one per line, over a connection's two file objects (and its socket, `sock`, when
    this side may have to end the connection while the other side still holds it open)."""

    def __init__(
        self,
        rfile: IO[bytes] | io.BufferedIOBase,
        wfile: IO[bytes] | io.BufferedIOBase,
        sock: socket.socket | None = None,
    ) -> None:
        self._rfile, self._wfile, self._sock = rfile, wfile, sock
        self._writing = threading.Lock()  # an answer and a command sent at once must not interleave

    def shutdown(self) -> None:
        """End the connection for both sides now: a read blocked on it, here or across, returns at once as
        at the end of the stream. (Closing a socket is not enough while file objects made from it live: the
        descriptor stays open, and the peer's reader waits on.)"""
        if self._sock is None:
            return
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError as exc:  # closed already, from either side
            log.debug("Ending a task channel connection: %s", exc)

    def read(self) -> dict[str, Any] | None:
        """The next message; None when the other side closed the connection."""
        line = self._rfile.readline(MAX_LINE_BYTES)
        if not line:
            return None
        message = json.loads(line)
        return message if isinstance(message, dict) else None

    def write(self, message: dict[str, Any]) -> None:
        self.write_latest(lambda: message)

    def write_latest(self, make: Callable[[], dict[str, Any]]) -> None:
        """Write the message `make` builds, built while no other write can come between: of two writers
        sending a task its current command, the one that writes last sends the newer command."""
        with self._writing:
            self._wfile.write(json.dumps(make()).encode() + b"\n")
            self._wfile.flush()


class ReportSink(Protocol):
    """What the channel hands a task's reports to (the worker's handle of that task)."""

    def on_report(self, report: dict[str, Any]) -> str:
        """Take one report; return the command for the task (`run`, `pause`, `stop`, `forget_topics`)."""
        ...

    def command_now(self, answer: str | None) -> str:
        """The command to write now: a one-shot `answer` (`forget_topics`) as it is, else the current one
        (`run`, `pause`, `stop`), which may have changed since `on_report` returned."""
        ...

    def take_signals(self) -> list[dict[str, Any]]:
        """The operators' signals for the task not sent yet (as JSON), now handed over to be sent."""
        ...

    def attach(self, send: Callable[[], None] | None) -> None:
        """How to send the task its current command at once, while its report connection is open (None
        once closed)."""
        ...

    def on_disconnect(self) -> None:
        """The task's report connection ended (it finished, or its process died)."""
        ...

    def serve_topics(self, io: LineIO) -> None:
        """Answer the task's topic-creation requests on `io` until the task closes it."""
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
        self._thread = threading.Thread(target=self._server.serve_forever, name="task-channel", daemon=True)
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
        io = LineIO(handler.rfile, handler.wfile, handler.connection)
        try:
            hello = io.read()
        except (OSError, ValueError):
            hello = None
        if hello is None or not secrets.compare_digest(str(hello.get("token", "")), self.token):
            log.warning(
                "A connection to the task channel from %s did not present this worker's token; closed",
                handler.client_address[0],
            )
            return
        with self._lock:
            sink = self._sinks.get(str(hello.get("attempt")))
        if sink is None:  # a task the worker gave up on (stopped, restarted): it must stop
            io.write({"command": "stop"})
            return
        if hello.get("kind") == "topics":
            try:
                sink.serve_topics(io)
            except OSError as exc:
                log.debug("Topic connection of a task ended: %s", exc)
            return

        def send() -> None:
            try:
                io.write_latest(functools.partial(_command_message, sink, None))
            except OSError as exc:  # the connection is ending: its reader sees it too
                log.debug("A command for a task could not be sent: %s", exc)

        try:
            answer = sink.on_report(hello)
            sink.attach(send)
            while True:
                io.write_latest(functools.partial(_command_message, sink, answer))
                report = io.read()
                if report is None:
                    return
                answer = sink.on_report(report)
        except OSError as exc:
            log.debug("Task channel connection ended: %s", exc)
        finally:
            sink.attach(None)
            sink.on_disconnect()


def _command_message(sink: ReportSink, answer: str | None) -> dict[str, Any]:
    message: dict[str, Any] = {"command": sink.command_now(answer)}
    if signals := sink.take_signals():
        message["signals"] = signals
    return message
