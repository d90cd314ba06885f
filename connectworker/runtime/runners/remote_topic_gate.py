"""Topic creation for a task in another process, through the worker's own topic-creation service.

The worker keeps one known-topic cache for all its tasks, wherever they run, so a topic is described
(and created if missing) once per worker, not once per task process. A remote task's gate
(`RemoteTopicGate`) sends the topics it has not used yet to the worker over a connection of the task
channel; the worker runs the connector's gate there (`serve_topic_requests`), and when a rule proposes
settings for a missing topic it asks the task for its verdict: the task's own `settings_for_new_topic`
runs where the task instance lives, in the task's process.

Messages (JSON lines): task -> worker `{"ensure": [topics], "task": name}` or `{"forget": topic}`;
worker -> task `{"hook": settings}` (answered `{"settings": settings | null}` or `{"error": {...}}`)
any number of times, then `{"ok": true}` or `{"failed": message, "kind": kind}`.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Collection
from typing import Any

from connectworker.api.errors import ConnectError
from connectworker.api.topic_settings import TopicSettings
from connectworker.runtime.runners.task_channel import LineIO
from connectworker.runtime.topic_creation.gate import TopicGate
from connectworker.topics.decisions import NewTopicHook, TopicCreationError

CONNECT_TIMEOUT_S = 30.0


def settings_to_json(settings: TopicSettings) -> dict[str, Any]:
    return {
        "name": settings.name,
        "partitions": settings.partitions,
        "replication_factor": settings.replication_factor,
        "configs": settings.configs(),
    }


def settings_from_json(data: dict[str, Any]) -> TopicSettings:
    return TopicSettings(
        str(data["name"]),
        int(data["partitions"]),
        int(data["replication_factor"]),
        {str(k): str(v) for k, v in dict(data["configs"]).items()},
    )


class RemoteTopicGate:
    """A task's gate in a task process: the worker decides, the task's hook is asked here."""

    def __init__(self, address: tuple[str, int], hello: dict[str, Any]) -> None:
        self._address = address
        self._hello = {**hello, "kind": "topics"}
        self._io: LineIO | None = None
        self._sock: socket.socket | None = None
        self._recreates = True
        self._lock = threading.Lock()  # one request at a time on the connection

    @property
    def recreates_missing_topics(self) -> bool:
        self._connect()
        return self._recreates

    def _connect(self) -> LineIO:
        if self._io is None:
            self._sock = socket.create_connection(self._address, timeout=None)
            io = LineIO(self._sock.makefile("rb"), self._sock.makefile("wb"), self._sock)
            io.write(self._hello)
            answer = self._read(io)
            if answer.get("command") == "stop":
                raise ConnectError("The worker no longer runs this task (it was stopped or restarted)")
            self._recreates = bool(answer.get("recreates", True))
            self._io = io
        return self._io

    @staticmethod
    def _read(io: LineIO) -> dict[str, Any]:
        message = io.read()
        if message is None:
            raise ConnectError("Lost the connection to the worker while making topics ready")
        return message

    def ensure(self, topics: Collection[str], hook: NewTopicHook | None, task_name: str) -> None:
        with self._lock:
            io = self._connect()
            io.write({"ensure": sorted(topics), "task": task_name})
            while True:
                message = self._read(io)
                if "hook" in message:
                    io.write(_ask_hook(hook, settings_from_json(message["hook"])))
                elif "failed" in message:
                    text = str(message["failed"])
                    if message.get("kind") is None:
                        raise ConnectError(text)
                    raise TopicCreationError(text, kind=str(message["kind"]))
                else:
                    return

    def forget(self, topic: str) -> None:
        with self._lock:
            io = self._connect()
            io.write({"forget": topic})
            self._read(io)

    def close(self) -> None:
        """End the topic connection: the worker's side of it (a thread of the task channel) ends with it.
        The process stays and may run other tasks, so the connection must end now, not when it exits."""
        if self._io is not None:
            self._io.shutdown()
        if self._sock is not None:
            self._sock.close()


def _ask_hook(hook: NewTopicHook | None, proposed: TopicSettings) -> dict[str, Any]:
    """The task's verdict on `proposed`, as the worker's side expects it."""
    if hook is None:
        return {"settings": settings_to_json(proposed)}
    try:
        settings = hook(proposed)
    except Exception as exc:
        return {"error": {"type": type(exc).__name__, "message": str(exc)}}
    if settings is None:
        return {"settings": None}
    if not isinstance(settings, TopicSettings):
        return {"error": {"type": "TypeError", "returned": type(settings).__name__}}
    return {"settings": settings_to_json(settings)}


def serve_topic_requests(io: LineIO, gate: TopicGate) -> None:
    """The worker's side of one remote task's topic connection, until the task closes it."""
    io.write({"recreates": gate.recreates_missing_topics})
    while (request := io.read()) is not None:
        if "forget" in request:
            gate.forget(str(request["forget"]))
            io.write({"ok": True})
            continue
        topics = [str(t) for t in request.get("ensure", ())]
        try:
            gate.ensure(topics, _RemoteHook(io), str(request.get("task", "")))
        except TopicCreationError as exc:
            io.write({"failed": str(exc), "kind": exc.kind})
        except ConnectError as exc:
            io.write({"failed": str(exc), "kind": None})
        else:
            io.write({"ok": True})


class _RemoteHook:
    """The task's `settings_for_new_topic`, called from the worker: asks the task over `io`."""

    def __init__(self, io: LineIO) -> None:
        self._io = io

    def __call__(self, settings: TopicSettings) -> TopicSettings | None:
        self._io.write({"hook": settings_to_json(settings)})
        answer = self._io.read()
        if answer is None:
            raise ConnectionError("the task process closed its topic connection")
        if "error" in answer:
            error = answer["error"]
            if "returned" in error:  # not TopicSettings: hand the gate what the task returned, by its type
                returned: TopicSettings = _named(str(error["returned"]), object)()
                return returned
            raise _named_error(str(error["type"]), str(error["message"]))
        data = answer.get("settings")
        return None if data is None else settings_from_json(data)


_named_types: dict[tuple[str, type], type] = {}


def _named(type_name: str, base: type) -> type:
    """A class named as one the task's process saw, so that the worker's messages
    (`settings_for_new_topic of task X raised for topic T: ValueError: ...`, `... returned dict for
    topic T`) read as they do for a task in a thread."""
    kind = _named_types.get((type_name, base))
    if kind is None:
        kind = _named_types[(type_name, base)] = type(type_name, (base,), {})
    return kind


def _named_error(type_name: str, message: str) -> Exception:
    error = _named(type_name, Exception)(message)
    assert isinstance(error, Exception)
    return error
