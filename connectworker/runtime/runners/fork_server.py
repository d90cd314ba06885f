"""The task processes' fork server: one process, started with the worker, that has imported the task
runtime once and forks a task process whenever the worker asks for one.

A task process spawned afresh spends most of a second importing the runtime (pydantic, librdkafka's
bindings, the converters) before it can run a task; every task start paid that, and every task a test
started. The fork server pays it once, while the worker is still starting, and a fork of it is ready in
milliseconds. It is safe to fork because it never starts a thread: it only imports, then waits on its
socket in its main thread (no librdkafka client, no logging handler, nothing running).

The server itself is a fork of the worker when the worker has one thread as it starts the server (the
command line starts it first thing): the worker imported the task runtime already, so the server costs
neither an interpreter nor imports. Elsewhere (a worker embedded in a program with threads, a test) it
is spawned as ``python -m`` this module. `ps` shows it as ``cw-task-forks`` and its task processes as
``cw-tasks``.

The protocol, over a Unix `SOCK_SEQPACKET` socket pair (the server's end is its standard input):
- worker -> server: ``fork N`` with two descriptors attached (`socket.send_fds`): the read end of the new
  process's command pipe and the write end of its control pipe (`task_host.py` reads tasks from the
  first, reports ended tasks on the second);
- server -> worker: ``forked N PID`` once it forked request N, and ``exited PID CODE`` when a task process
  ended (CODE as `subprocess` gives it: the exit status, or minus the signal that killed it).

Lifetimes: the fork server dies with the worker (`PR_SET_PDEATHSIG`, `child_processes.py`) and each task
process with the fork server, so a worker killed with SIGKILL leaves nothing behind. When the worker
closes the socket the server stops forking, waits for its task processes to end (the worker has told
them to) and exits. It ignores SIGINT and SIGTERM, as task processes do: Ctrl-C reaches the whole
process group, and the worker stops its tasks itself, committing what they produced.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import logging
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable
from concurrent.futures import Future
from typing import BinaryIO, NoReturn, Protocol

from connectworker.api.errors import ConnectError
from connectworker.child_processes import (
    DIES_WITH_PARENT,
    die_with_parent,
    die_with_parent_pid,
    name_this_process,
    spawn_python,
)
from connectworker.runtime.clients.gc_tuning import tune_gc_for_throughput
from connectworker.runtime.runners.task_host import TaskHost

log = logging.getLogger(__name__)

MODULE = "connectworker.runtime.runners.fork_server"
FORK_TIMEOUT_S = 60.0  # the first fork waits for the server's imports: seconds on a loaded machine
MAX_MESSAGE = 256
SERVER_NAME = "cw-task-forks"  # what `ps` shows for the fork server
TASK_PROCESS_NAME = "cw-tasks"  # and for each task process


class ForkServerGone(ConnectError):
    """The fork server exited (or was killed): no task process can be forked from it any more."""


class ForkedProcess:
    """A task process forked by the fork server: its pid, the pipe that sends it tasks (`commands`), the
    pipe it reports on (`control`), and its exit status once the fork server reported it."""

    def __init__(self, server: TaskForkServer, pid: int, commands: BinaryIO, control: BinaryIO) -> None:
        self.server = server
        self.pid = pid
        self.commands = commands
        self.control = control

    def wait(self, timeout: float | None = None) -> int | None:
        """Its exit code (`subprocess`'s convention); None when the fork server ended before telling it.
        Raises `subprocess.TimeoutExpired` if it is still running after `timeout` seconds."""
        return self.server.exit_code(self.pid, timeout)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)


class TaskForkServer:
    """The worker's side of the fork server. The server process starts at once and imports the task
    runtime in the background; the first `fork()` waits for those imports, the others take milliseconds."""

    @classmethod
    def for_worker(cls) -> TaskForkServer:
        """A fork server for a worker starting in this process. A process with one thread forks its own
        (it costs nothing). A process with other threads (a program embedding workers, a test) spawns one
        server and lends it to every worker it starts: a spawned server costs most of a CPU second of
        imports. Each task start carries the worker's working directory and environment to its task
        process (`task_host.py`), so a lent server serves a later worker as a new one would. It outlives
        the workers it served, idle, and dies with this process."""
        if DIES_WITH_PARENT and threading.active_count() == 1:
            return cls()
        with _LENT_LOCK:
            global _lent
            if _lent is not None and not _lent.server.alive and not _lent.leases:
                _lent.server._shut(0, idle=True)
                _lent = None
            if _lent is None:
                _lent = _Lent(cls())
            elif not _lent.server.alive:  # gone while lent to a running worker: a new one of its own
                return cls()
            _lent.leases += 1
            return _lent.server

    def __init__(self) -> None:
        self._socket, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.popen: ServerProcess = _start_server(theirs)
        finally:
            theirs.close()
        self.pid = self.popen.pid
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()  # one fork request on the socket at a time
        self._state = threading.Condition()
        self._forks: dict[int, Future[int]] = {}
        self._exits: dict[int, int] = {}
        self._gone = False
        self._forked = False
        threading.Thread(target=self._listen, name="task-fork-server", daemon=True).start()
        log.debug("Started the task processes' fork server (pid %d)", self.pid)

    def fork(self) -> ForkedProcess:
        """A new task process, waiting for tasks on its command pipe."""
        commands_read, commands_write = os.pipe()
        control_read, control_write = os.pipe()
        try:
            with self._lock:
                self._forked = True
                number = next(self._numbers)
                forked: Future[int] = Future()
                with self._state:
                    if self._gone:
                        raise ForkServerGone(self._gone_message())
                    self._forks[number] = forked
                try:
                    socket.send_fds(self._socket, [f"fork {number}".encode()], [commands_read, control_write])
                except OSError as exc:
                    raise ForkServerGone(f"{self._gone_message()}: {exc}") from exc
            pid = forked.result(FORK_TIMEOUT_S)
        except BaseException:
            os.close(commands_write)
            os.close(control_read)
            raise
        finally:
            os.close(commands_read)
            os.close(control_write)
        return ForkedProcess(self, pid, os.fdopen(commands_write, "wb"), os.fdopen(control_read, "rb"))

    @property
    def alive(self) -> bool:
        with self._state:
            return not self._gone

    def exit_code(self, pid: int, timeout: float | None) -> int | None:
        with self._state:
            if not self._state.wait_for(lambda: pid in self._exits or self._gone, timeout):
                raise subprocess.TimeoutExpired(f"task process {pid}", timeout or 0.0)
            return self._exits.get(pid)

    def close(self, timeout: float) -> None:
        """No more forks: the server exits once its task processes have (the caller ended them). One that
        never forked (the worker's start failed, say) is ended at once: it holds nothing. A lent server
        (`for_worker`) is given back instead, for the next worker."""
        with _LENT_LOCK:
            if _lent is not None and _lent.server is self and _lent.leases:
                _lent.leases -= 1
                return
        self._shut(timeout)

    def _shut(self, timeout: float, *, idle: bool = False) -> None:
        """`idle`: none of its task processes runs any more; end it at once."""
        with contextlib.suppress(OSError):
            self._socket.shutdown(socket.SHUT_WR)
        try:
            if idle or not self._forked:
                self.popen.kill()
                self.popen.wait()
            else:
                self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            log.warning("The task processes' fork server (pid %d) did not exit in time: killing it", self.pid)
            self.popen.kill()
            self.popen.wait()
        self._socket.close()

    def _gone_message(self) -> str:
        code = self.popen.poll()
        how = "is gone" if code is None else f"exited with status {code}"
        return f"The task processes' fork server (pid {self.pid}) {how}"

    def _listen(self) -> None:
        while True:
            try:
                message = self._socket.recv(MAX_MESSAGE)
            except OSError:
                message = b""
            if not message:
                break
            kind, first, second = message.decode().split()
            if kind == "forked":
                with self._state:
                    forked = self._forks.pop(int(first), None)
                if forked is not None:
                    forked.set_result(int(second))
            elif kind == "exited":
                with self._state:
                    self._exits[int(first)] = int(second)
                    self._state.notify_all()
        with self._state:
            self._gone = True
            waiting, self._forks = list(self._forks.values()), {}
            self._state.notify_all()
        for forked in waiting:
            forked.set_exception(ForkServerGone(self._gone_message()))


@dataclasses.dataclass
class _Lent:
    """The fork server this process lends its workers, and how many hold it now."""

    server: TaskForkServer
    leases: int = 0


_LENT_LOCK = threading.Lock()
_lent: _Lent | None = None


class ServerProcess(Protocol):
    """What `TaskForkServer` needs of the server's process: `subprocess.Popen`'s names for it."""

    pid: int

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def kill(self) -> None: ...


def _start_server(channel: socket.socket) -> ServerProcess:
    """The server, its end of the socket `channel`. A worker with one thread (the command line's, when
    the worker starts) forks it from itself: it has imported the task runtime already, so the server
    costs no interpreter start and no imports (most of a CPU second, paid again for every worker). A
    process with other threads spawns it afresh instead, since a fork copies only the calling thread
    and a lock another thread held would stay held in the copy."""
    if DIES_WITH_PARENT and threading.active_count() == 1:
        return ForkedServer(channel)
    # Its standard output is our standard error: a connector's print() in a task process lands there.
    return spawn_python(MODULE, stdin=channel.fileno(), stdout=2)


class ForkedServer:
    """The server as a fork of this (single-threaded) process; waited for through a pidfd."""

    def __init__(self, channel: socket.socket) -> None:
        parent = os.getpid()
        for stream in (sys.stdout, sys.stderr):  # else what they buffered would be written twice
            stream.flush()
        pid = os.fork()
        if pid == 0:
            _become_server(channel, parent)
        self.pid = pid
        self._pidfd = os.pidfd_open(pid)
        self._returncode: int | None = None
        self._lock = threading.Lock()

    def poll(self) -> int | None:
        with self._lock:
            if self._returncode is None:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
                if pid:
                    self._returncode = os.waitstatus_to_exitcode(status)
                    os.close(self._pidfd)
            return self._returncode

    def wait(self, timeout: float | None = None) -> int:
        if self._returncode is None and not select.select([self._pidfd], [], [], timeout)[0]:
            raise subprocess.TimeoutExpired(f"task fork server {self.pid}", timeout or 0.0)
        code = self.poll()
        assert code is not None  # the pidfd is readable once the process has exited
        return code

    def kill(self) -> None:
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)


def _become_server(channel: socket.socket, parent: int) -> NoReturn:
    """In the forked child: leave nothing of the worker open but the server's socket and the standard
    streams (the REST and metrics ports, the offsets file, the worker's end of the socket are closed),
    drop the worker's log handlers and signal handlers, then serve. Never returns."""

    def become() -> None:
        die_with_parent_pid(parent)
        keep = channel.fileno()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(2, 1)  # as when spawned: a connector's print() in a task process lands on stderr
        os.closerange(3, keep)
        os.closerange(keep + 1, os.sysconf("SC_OPEN_MAX"))
        signal.set_wakeup_fd(-1)
        for number in signal.valid_signals():
            with contextlib.suppress(OSError, ValueError):
                if callable(signal.getsignal(number)):
                    signal.signal(number, signal.SIG_DFL)
        root = logging.getLogger()
        for handler in root.handlers[:]:
            root.removeHandler(handler)  # not closed: its stream is the process's stderr
        root.setLevel(logging.WARNING)
        _serve(channel)

    _exit_after(become)


def _exit_after(body: Callable[[], None]) -> NoReturn:
    """Run `body` in a forked child, then end the child with `os._exit` (0, or 1 with the traceback on
    stderr): never the parent's `atexit` handlers, never back into the parent's code."""
    code = 1
    try:
        body()
        code = 0
    except BaseException:
        with contextlib.suppress(OSError):
            traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError, ValueError):
                stream.flush()
        os._exit(code)


# -- the server process --------------------------------------------------------------------------------


def main() -> None:
    """The server spawned as ``python -m`` this module, its socket as its standard input."""
    die_with_parent(sys.argv)
    channel = socket.socket(fileno=os.dup(0))
    os.close(0)
    _serve(channel)


def _serve(channel: socket.socket) -> None:
    name_this_process(SERVER_NAME)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # Importing this module imported the task runtime (task_host.py and what it needs): the forks inherit it.
    tune_gc_for_throughput()  # also freezes what was imported: forks share those pages with the server
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # only to wake the loop: children are reaped below
    children: set[int] = set()
    accepting = True
    while accepting or children:
        watched = [channel.fileno(), wake_read] if accepting else [wake_read]
        ready = select.select(watched, [], [], 1.0)[0]
        if wake_read in ready:
            os.read(wake_read, 4096)
        _reap(channel, children)
        if channel.fileno() in ready:
            try:
                message, fds, _, _ = socket.recv_fds(channel, MAX_MESSAGE, 2)
            except OSError:
                message, fds = b"", []
            if not message:
                accepting = False
                continue
            number, server = int(message.split()[1]), os.getpid()
            pid = os.fork()
            if pid == 0:
                _serve_forked(server, channel, (wake_read, wake_write), fds)
            children.add(pid)
            for fd in fds:
                os.close(fd)
            with contextlib.suppress(OSError):
                channel.sendall(f"forked {number} {pid}".encode())


def _reap(channel: socket.socket, children: set[int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            children.clear()
            return
        if pid == 0:
            return
        children.discard(pid)
        with contextlib.suppress(OSError):
            channel.sendall(f"exited {pid} {os.waitstatus_to_exitcode(status)}".encode())


def _serve_forked(server: int, channel: socket.socket, wake: tuple[int, int], fds: list[int]) -> NoReturn:
    """In the forked child of `server`: become a task process (`task_host.py`). Never returns."""

    def serve() -> None:
        die_with_parent_pid(server)
        name_this_process(TASK_PROCESS_NAME)
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        channel.close()
        for fd in wake:
            os.close(fd)
        commands, control = os.fdopen(fds[0], "rb"), os.fdopen(fds[1], "wb")
        TaskHost(control).serve(commands)
        with contextlib.suppress(OSError):
            control.close()

    _exit_after(serve)


if __name__ == "__main__":
    main()
