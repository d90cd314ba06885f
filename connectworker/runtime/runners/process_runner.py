"""The standalone worker's default runner: tasks in Python processes of their own, so that tasks use
more than one core (one interpreter runs one thread at a time).

Processes are bounded by `task.processes` (default: one per core), not by tasks: each process hosts
several tasks as threads (`task_host.py`), and a task goes to a new process while there is room for
one and every process already hosts a task, else to the process with the fewest tasks. Each task runs
the remote task loop (`remote_task.py`) and reports to the worker over the task channel; the worker
keeps the herder, REST, metrics, the offsets' owner and the topic-creation cache.

Processes are forked by the fork server (`fork_server.py`), which the worker starts with itself and
which imports the task runtime once: a task process is ready in milliseconds, not after a second of
imports (never a bare `fork()` of this process, which runs librdkafka's and uvicorn's threads). They die
with the worker (the fork server dies with it, and they with the fork server). A process that dies makes
its tasks FAILED, with a trace saying so; as in Kafka Connect they stay FAILED until restarted through
the REST API, and then resume from their committed offsets.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import signal
import subprocess
import threading
from collections.abc import Callable

from connectworker.api.errors import ConnectError
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.offsets.storage_settings import OffsetStorageSettings
from connectworker.runtime.runners.fork_server import ForkedProcess, TaskForkServer
from connectworker.runtime.runners.remote_handle import RemoteTaskHandle
from connectworker.runtime.runners.remote_start import RemoteStarts
from connectworker.runtime.runners.remote_task import python_path
from connectworker.runtime.runners.task_channel import TaskChannel
from connectworker.runtime.status import State
from connectworker.runtime.tasks.task_factory import TaskMetricsFactory, TopicGateFactory
from connectworker.runtime.tasks.task_spec import TaskSpec

log = logging.getLogger(__name__)

PLACEMENT = "a task process"
EXIT_WAIT_S = 10.0  # at close, how long a process may take to exit once told (its tasks have stopped)


class TaskProcess:
    """One task process: the tasks it hosts, the pipe that sends it tasks, and the thread that hears
    which ended (or that the process died)."""

    def __init__(self, number: int, forks: TaskForkServer, on_exit: Callable[[TaskProcess, str], bool]) -> None:
        """`on_exit` is told when the process ended, and why; it answers whether the worker is closing."""
        self.number = number
        self.handles: dict[str, RemoteTaskHandle] = {}
        self._lock = threading.Lock()
        self._on_exit = on_exit
        self.process: ForkedProcess = forks.fork()
        self.pid = self.process.pid
        threading.Thread(target=self._listen, name=f"task-process-{number}", daemon=True).start()
        log.info("Started task process %d (pid %d)", number, self.pid)

    @property
    def load(self) -> int:
        with self._lock:
            return sum(1 for handle in self.handles.values() if not handle.ended)

    def start(self, handle: RemoteTaskHandle, payload: bytes) -> None:
        header = {
            "attempt": handle.attempt,
            "name": handle.name,
            "size": len(payload),
            "sys_path": python_path(),
            "cwd": os.getcwd(),  # the worker's today: its fork server may have started earlier (`for_worker`)
            "environ": dict(os.environ),
        }
        with self._lock:
            self.handles[handle.attempt] = handle
            try:
                self.process.commands.write(json.dumps(header).encode() + b"\n" + payload)
                self.process.commands.flush()
            except OSError as exc:
                raise ConnectError(
                    f"Task process {self.number} (pid {self.pid}) cannot take task {handle.name}: {exc}"
                ) from exc

    def close_input(self) -> None:
        """No more tasks: the process exits once its tasks have ended."""
        with self._lock:
            commands = self.process.commands
            if not commands.closed:
                try:
                    commands.close()
                except OSError as exc:
                    log.debug("Task process %d's input was closed already: %s", self.number, exc)

    def _listen(self) -> None:
        for line in self.process.control:
            try:
                message = json.loads(line)
                if not isinstance(message, dict):
                    raise ValueError(line)
            except ValueError:  # not ours (a native library writing to the pipe before it was moved aside)
                log.warning("Task process %d (pid %d) wrote an unexpected line: %r", self.number, self.pid, line[:200])
                continue
            with self._lock:
                handle = self.handles.pop(str(message.get("ended")), None)
            if handle is not None:
                failure = message.get("failure")
                if failure and handle.status.state is not State.FAILED:  # else the task said so itself
                    log.error("%s", str(failure).splitlines()[0])
                handle.ended_with(failure)
        self.process.control.close()
        code = self.process.wait()
        closing = self._on_exit(self, _exit_reason(code))
        with self._lock:
            orphans, self.handles = list(self.handles.values()), {}
        for handle in orphans:
            if closing and handle.stopping:  # the worker gave up waiting for it (and said so)
                handle.ended_with(None)
            elif not handle.ended:
                handle.ended_with(
                    f"The task process running this task (task process {self.number}, pid {self.pid}) "
                    f"{_exit_reason(code)}. The task is FAILED; restart it through the REST API (POST "
                    f"/connectors/{handle.connector}/tasks/{handle.task_id}/restart) and it resumes from its "
                    f"committed offsets."
                )


def _exit_reason(code: int | None) -> str:
    if code is None:
        return "ended with its fork server"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with status {code}"


class ProcessTaskRunner:
    def __init__(
        self,
        worker: WorkerConfig,
        offsets: OffsetStorageSettings,
        channel: TaskChannel,
        topic_gates: TopicGateFactory,
        forks: TaskForkServer,
        task_metrics: TaskMetricsFactory | None = None,
    ) -> None:
        """`forks`: the fork server, started by the caller early (its imports overlap the worker's start);
        the runner closes it."""
        self.channel = channel
        self.limit = worker.task_process_count
        self._forks = forks
        self._starts = RemoteStarts(worker, offsets, channel, topic_gates, task_metrics, PLACEMENT, shows_host=False)
        self._processes: list[TaskProcess] = []
        self._started = 0
        self._closing = False
        self._lock = threading.Lock()

    def start(self, spec: TaskSpec, *, paused: bool, on_topics: Callable[[set[str]], None]) -> RemoteTaskHandle:
        handle, payload = self._starts.prepare(
            spec, paused=paused, on_topics=on_topics, waiting_note="Starting in a task process"
        )
        try:
            data = pickle.dumps(payload)
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            raise ConnectError(
                f"Task {spec.name} cannot be handed to a task process: {exc}. Its connector's classes must be "
                f"importable by module path (not defined in __main__ or inside a function); or set the worker's "
                f"task.processes=0 to run tasks as threads of the worker's own process."
            ) from exc
        self.channel.register(handle.attempt, handle)
        try:
            self._place().start(handle, data)
        except ConnectError:
            self.channel.unregister(handle.attempt)
            raise
        return handle

    def _place(self) -> TaskProcess:
        """The process for a new task: a new one while there is room and every process hosts a task,
        else the one with the fewest tasks."""
        with self._lock:
            if self._closing:
                raise ConnectError("The worker is stopping")
            loads = [(process.load, process) for process in self._processes]
            least = min(loads, key=lambda pair: pair[0], default=None)
            if least is not None and (least[0] == 0 or len(self._processes) >= self.limit):
                return least[1]
            if not self._forks.alive:
                log.warning("The task processes' fork server (pid %d) is gone: starting another", self._forks.pid)
                self._forks.close(0)
                self._forks = TaskForkServer.for_worker()
            self._started += 1
            process = TaskProcess(self._started, self._forks, self._exited)
            self._processes.append(process)
            return process

    def _exited(self, process: TaskProcess, reason: str) -> bool:
        with self._lock:
            if process in self._processes:
                self._processes.remove(process)
            closing = self._closing
        running = [handle.name for handle in process.handles.values() if not handle.ended]
        if running and not closing:
            log.error(
                "Task process %d (pid %d) %s; its tasks are FAILED: %s",
                process.number,
                process.pid,
                reason,
                ", ".join(sorted(running)),
            )
        return closing

    @property
    def pids(self) -> list[int]:
        """The task processes running now."""
        with self._lock:
            return [process.pid for process in self._processes]

    def close(self) -> None:
        """Once the worker has stopped its tasks: each process exits. One still running a task the worker
        gave up on (stuck beyond every deadline), or not exiting in time, is killed."""
        with self._lock:
            self._closing = True
            processes = list(self._processes)
        for process in processes:
            process.close_input()
        for process in processes:
            try:
                process.process.wait(0 if process.load else EXIT_WAIT_S)
            except subprocess.TimeoutExpired:
                log.warning("Task process %d (pid %d) did not exit in time: killing it", process.number, process.pid)
                process.process.kill()
                process.process.wait(EXIT_WAIT_S)
        self._forks.close(EXIT_WAIT_S)
