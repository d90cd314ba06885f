"""A task process: hosts some of the worker's tasks, each on a thread, each running the remote task loop
(`remote_task.py`) that reports to the worker over its task channel.

Forked by the worker's fork server (`fork_server.py`) when the worker's `ProcessTaskRunner` asks for a
new process. The worker sends each task down the process's command pipe, a JSON header line and the
pickled `RemoteTask` (so nothing of a task's config, secrets included, is ever in a command line or an
environment that `ps` shows); the process answers on its control pipe, a JSON line per task that ended.
A connector's `print()` goes to the worker's standard error, never into that pipe.

Ctrl-C in a terminal reaches every process of the group: task processes ignore SIGINT and SIGTERM (as
the fork server does), because the worker stops its tasks itself (they flush and commit), then closes
the command pipe, and the process exits once its tasks have ended. If the worker dies, the fork server
dies with it and the task processes with the fork server (`PR_SET_PDEATHSIG`, `child_processes.py`).
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import sys
import threading
import traceback
from typing import Any, BinaryIO

from connectworker.runtime.runners.remote_task import RemoteTask, TaskNotBuilt, ended_failure, run_remote_task

EXIT_WAIT_S = 5.0  # after standard input closed, how long tasks still running may take before we exit


class TaskHost:
    def __init__(self, control: BinaryIO) -> None:
        self._control = control
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def serve(self, commands: BinaryIO) -> None:
        """Start each task the worker sends, until it closes `commands`; then wait for the tasks."""
        while header_line := commands.readline():
            header: dict[str, Any] = json.loads(header_line)
            data = commands.read(int(header["size"]))
            for entry in reversed(header.get("sys_path", ())):
                if entry not in sys.path:
                    sys.path.insert(0, entry)
            _take_worker_environment(header.get("cwd"), header.get("environ"))
            thread = threading.Thread(
                target=self._run,
                args=(str(header["attempt"]), str(header["name"]), data),
                name=f"task-host-{header.get('name', '')}",
                daemon=True,
            )
            self._threads.append(thread)
            thread.start()
        for thread in self._threads:
            thread.join(EXIT_WAIT_S)

    def _run(self, attempt: str, name: str, data: bytes) -> None:
        """Run one task; tell the worker when it ended, and why if it failed outside its own loop (its
        classes cannot be imported here, it cannot be built): the worker marks it FAILED with that."""
        failure: str | None = None
        try:
            payload: RemoteTask = pickle.loads(data)  # imports the connector's modules in this process
        except BaseException as exc:
            failure = _failure(
                f"Task {name} could not be started in its task process (pid {os.getpid()}): {_first_line(exc)}", exc
            )
        else:
            logging.getLogger().setLevel(payload.log_level)
            try:
                failure = ended_failure(run_remote_task(payload))
            except TaskNotBuilt as exc:
                failure = _failure(f"Task {name} could not be started: {exc}", exc.__cause__ or exc)
            except BaseException as exc:
                failure = _failure(
                    f"Task {name} failed in its task process (pid {os.getpid()}): {_first_line(exc)}", exc
                )
        self._send({"ended": attempt, "failure": failure})

    def _send(self, message: dict[str, Any]) -> None:
        with self._lock:
            try:
                self._control.write(json.dumps(message).encode() + b"\n")
                self._control.flush()
            except OSError as exc:  # the worker is gone; PR_SET_PDEATHSIG ends us, if it has not yet
                logging.getLogger(__name__).debug("Control pipe to the worker closed: %s", exc)


def _take_worker_environment(cwd: str | None, environ: dict[str, str] | None) -> None:
    """The worker's working directory and environment as it starts a task: relative paths in a connector's
    config and variables a connector reads mean what they mean in the worker. Only what differs is
    changed, so tasks already running here see no variable vanish for a moment."""
    if cwd is not None and cwd != os.getcwd():
        os.chdir(cwd)
    if environ is None:
        return
    for name in set(os.environ) - set(environ):
        del os.environ[name]
    for name, value in environ.items():
        if os.environ.get(name) != value:
            os.environ[name] = value


def _first_line(exc: BaseException) -> str:
    return traceback.format_exception_only(exc)[-1].strip()


def _failure(summary: str, exc: BaseException) -> str:
    """A FAILED task's trace: what happened, then the traceback (as Kafka Connect shows a task's)."""
    return f"{summary}\n{''.join(traceback.format_exception(exc))}"
