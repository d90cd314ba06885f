"""Child processes that end when the worker ends, however it ends, `kill -9` included.

The worker starts one process of its own: the embedded Tansu broker (``bootstrap.servers=embedded``,
`embedded_broker.py`). Left behind, it would keep its port bound and its memory until someone found
it. (The JVM of `connectworker spark` is PySpark's: PySpark starts it with its stdin a pipe from this
process, and its gateway exits on end-of-file there, which the kernel delivers however we die. Spark's
Python workers are the JVM's children and go with it.)

How: on Linux, `spawn` sets ``PR_SET_PDEATHSIG`` in the child, between fork and exec, and the kernel
sends the child SIGKILL when its parent dies. The setting survives the exec of a binary that is not
set-uid, so it covers Tansu, a program we cannot change. Three pitfalls, and what is done about them:

- The kernel's "parent" is the *thread* that forked, not the process: a child forked by a thread that
  ends later (a REST request's worker thread, a test's helper thread) would be killed then, while the
  worker lives on. So every child is forked by one thread that lives as long as the process
  (`_Spawner`), whichever thread asks for it.
- The parent may die between fork and the ``prctl`` call, and then nothing would ever signal the
  child. So the child compares its parent's pid with the pid of the process that forked it, after the
  call, and exits at once if they differ.
- ``preexec_fn`` runs Python in the child of a multi-threaded process, where a lock another thread
  held at the fork stays held for ever. The function called there takes none: it calls one C function
  resolved beforehand (no import, no logging), then `os.getppid` and, at worst, `os._exit`.

SIGKILL rather than SIGTERM: the embedded broker keeps everything in memory, so it has nothing to
save, and a signal it may handle slowly would only keep the port bound longer.

Why not a watchdog pipe (the child exits when a pipe from the parent reads end-of-file): Tansu cannot
be taught to read one, so it would take a wrapper process per child, one more interpreter, and a
wrapper killed on its own (by the OOM killer, say) would orphan the broker unless it used
``PR_SET_PDEATHSIG`` anyway. Elsewhere than on Linux there is no ``PR_SET_PDEATHSIG``: children are
started plainly there, and end only with a clean stop of the worker.
"""

from __future__ import annotations

import ctypes
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import Any

__all__ = ["DIES_WITH_PARENT", "die_with_parent", "die_with_parent_pid", "name_this_process", "spawn", "spawn_python"]

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_PR_SET_NAME = 15


def _prctl() -> Callable[..., int] | None:
    """libc's `prctl`, resolved now (never in a forked child), or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    function.restype = ctypes.c_int
    return function


_PRCTL = _prctl()
DIES_WITH_PARENT = _PRCTL is not None
"""Whether children started by `spawn` are killed when this process dies (Linux)."""


def _die_with(parent: int) -> Callable[[], None]:
    """The `preexec_fn` of a child of `parent`: SIGKILL when the forking thread's process dies."""
    prctl = _PRCTL
    assert prctl is not None

    def preexec() -> None:
        if prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
            os._exit(126)  # cannot happen for a valid signal; never run unguarded
        if os.getppid() != parent:  # the parent died before the call above: nobody would signal us
            os._exit(125)

    return preexec


class _Spawner:
    """One thread, alive as long as the process, that forks every child (see the module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: queue.SimpleQueue[
            tuple[Callable[[], subprocess.Popen[bytes]], Future[subprocess.Popen[bytes]]]
        ] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def run(self, start: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
        with self._lock:
            # not alive after os.fork(): a forked process gets a spawner thread of its own
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._serve, name="child-process-spawner", daemon=True)
                self._thread.start()
        done: Future[subprocess.Popen[bytes]] = Future()
        self._requests.put((start, done))
        return done.result()

    def _serve(self) -> None:
        while True:
            start, done = self._requests.get()
            try:
                done.set_result(start())
            except BaseException as exc:  # handed to the caller, who raises it on its own thread
                done.set_exception(exc)


_SPAWNER = _Spawner()


def spawn(args: Sequence[str], **popen_kwargs: Any) -> subprocess.Popen[bytes]:
    """`subprocess.Popen(args, **popen_kwargs)`, the child killed when this process dies (on Linux).
    `popen_kwargs` must not hold a `preexec_fn` of its own."""
    if _PRCTL is None:
        return subprocess.Popen(args, **popen_kwargs)
    if "preexec_fn" in popen_kwargs:
        raise ValueError("spawn() sets preexec_fn itself")
    preexec = _die_with(os.getpid())
    return _SPAWNER.run(lambda: subprocess.Popen(args, preexec_fn=preexec, **popen_kwargs))


PARENT_PID_ARG = "--parent-pid"


def spawn_python(module: str, **popen_kwargs: Any) -> subprocess.Popen[bytes]:
    """`python -m MODULE` with this interpreter, for a child that calls `die_with_parent()` itself first
    thing. No Python runs between fork and exec here (no `preexec_fn`): in a process with many threads,
    Python code run in the forked child (a `preexec_fn`) releases the other threads' thread-local and
    context objects there, whose finalizers can act on descriptors the child shares with this process
    (sockets, epoll sets). The child is still started by the long-lived spawner thread, so that the
    kernel's "parent" (the forking thread) lives as long as this process."""
    args = [sys.executable, "-m", module, PARENT_PID_ARG, str(os.getpid())]
    if _PRCTL is None:
        return subprocess.Popen(args, **popen_kwargs)
    return _SPAWNER.run(lambda: subprocess.Popen(args, **popen_kwargs))


def die_with_parent(argv: Sequence[str]) -> None:
    """In a child started by `spawn_python`: be sent SIGKILL when the worker dies (Linux), and exit at
    once if it already has (the parent's pid is in `argv`, after `--parent-pid`)."""
    if PARENT_PID_ARG not in argv:
        return
    die_with_parent_pid(int(argv[list(argv).index(PARENT_PID_ARG) + 1]))


def die_with_parent_pid(parent: int) -> None:
    """Be sent SIGKILL when `parent`, the process that forked this one, dies (Linux); exit at once if it
    already has. Called first thing by a child that a single-threaded parent forked (a task process of
    the fork server), or through `die_with_parent`."""
    if _PRCTL is not None and _PRCTL(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != parent:  # it died before the call above: nobody would signal us
        os._exit(125)


def name_this_process(name: str) -> None:
    """Give this process the short name `ps`, `top` and ``/proc/PID/comm`` show (Linux; at most 15
    bytes kept): forks of the worker would otherwise all carry the worker's name."""
    if _PRCTL is None:
        return
    buffer = ctypes.create_string_buffer(name.encode()[:15])
    _PRCTL(_PR_SET_NAME, ctypes.addressof(buffer), 0, 0, 0)
