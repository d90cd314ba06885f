"""Ctrl-C and SIGTERM for a long-running command: stop gracefully, say what the stop waits for, or exit now.

- the first signal asks for a graceful stop (`wait()` returns True);
- the second logs what the shutdown is still waiting for (`waiting_for()`, supplied by the command);
- the third exits at once with status 128 + the signal number (130 for Ctrl-C, 143 for SIGTERM),
  without waiting for in-flight records: their offsets are not committed, so they are produced again
  after a restart (at least once, never lost).

Why not ``signal.signal(sig, lambda *_: event.set())``: a Python-level handler runs in the main thread
between two bytecodes, and may run while that very thread is inside ``Event.wait()`` holding the
event's internal (non-reentrant) lock, e.g. right after a 0.5 s wait timed out. ``Event.set()`` then
waits for that lock forever: the main thread deadlocks on itself and the signal looks lost, as do all
later ones. The chance per signal is small on an idle worker and grows when other threads compete for
the GIL (the main thread then waits for the GIL while holding the lock), e.g. while a slow REST call
runs. Here the Python-level handler does nothing: CPython's C-level handler writes the signal number
to a socket (`signal.set_wakeup_fd`), and a watcher thread acts on it. No lock is ever taken inside a
signal handler, and the third signal is acted on even while the main thread is blocked in C code
(say, a Kafka client being destroyed), which a Python-level handler would have to wait for.

uvicorn (0.29 and later) installs signal handlers only when it runs in the main thread; the REST
server runs in its own threads, so it neither replaces nor restores these.

Start-up waits (the cluster check) look at `requested` and raise `StopRequested`, so a stop during
start-up ends the wait at once instead of after its whole timeout.
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any

log = logging.getLogger("connectworker")

FORCE_AFTER = 3

Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None
"""What `signal.signal` returns: a Python handler, SIG_DFL/SIG_IGN, or None (installed outside Python)."""


class StopRequested(Exception):
    """Raised out of a wait during start-up when Ctrl-C or SIGTERM asked the command to stop."""


def _note(signum: int, frame: FrameType | None) -> None:
    """The Python-level handler: nothing to do, the watcher thread reads the signal from the wakeup fd.
    (Installing it is what makes CPython catch the signal and write it to that fd.)"""


class ShutdownSignals:
    """Install in the main thread with `install()`; `uninstall()` restores the previous handlers."""

    def __init__(
        self, waiting_for: Callable[[], str], signals: Sequence[signal.Signals] = (signal.SIGINT, signal.SIGTERM)
    ) -> None:
        self._waiting_for = waiting_for
        self._signals = tuple(signals)
        self._requested = threading.Event()
        self._received = 0
        self.first: signal.Signals | None = None  # the signal that asked for the stop
        self._previous: dict[signal.Signals, Handler] = {}
        self._previous_wakeup_fd = -1
        self._reader: socket.socket | None = None
        self._writer: socket.socket | None = None
        self._watcher: threading.Thread | None = None

    @property
    def requested(self) -> bool:
        return self._requested.is_set()

    def install(self) -> ShutdownSignals:
        self._reader, self._writer = socket.socketpair()
        self._writer.setblocking(False)  # set_wakeup_fd requires it; a full buffer only drops repeats
        self._previous_wakeup_fd = signal.set_wakeup_fd(self._writer.fileno(), warn_on_full_buffer=False)
        for sig in self._signals:
            self._previous[sig] = signal.signal(sig, _note)
        self._watcher = threading.Thread(target=self._watch, args=(self._reader,), name="shutdown-signals", daemon=True)
        self._watcher.start()
        return self

    def uninstall(self) -> None:
        for sig, handler in self._previous.items():
            if handler is not None:  # None: a handler not installed from Python, which cannot be put back
                signal.signal(sig, handler)
        self._previous = {}
        if self._writer is not None:
            signal.set_wakeup_fd(self._previous_wakeup_fd)
            self._writer.close()  # the watcher reads end-of-file and ends
            self._writer = None
        if self._watcher is not None:
            self._watcher.join(5)
            self._watcher = None
        if self._reader is not None:
            self._reader.close()
            self._reader = None

    def raise_if_requested(self, doing: str) -> None:
        """Raise `StopRequested` if a stop was asked for; for waits during start-up (`doing` says which)."""
        if self._requested.is_set():
            raise StopRequested(doing)

    def wait(self, timeout: float | None = None) -> bool:
        """Whether a stop was asked for, waiting up to `timeout` seconds for one."""
        return self._requested.wait(timeout)

    def _watch(self, reader: socket.socket) -> None:
        while True:
            try:
                data = reader.recv(64)
            except OSError:
                return
            if not data:
                return
            for signum in data:
                if signum in self._signals:
                    self._on_signal(signal.Signals(signum))

    def _on_signal(self, sig: signal.Signals) -> None:
        self._received += 1
        if self._received == 1:
            self.first = sig
            log.info(
                "%s received: stopping gracefully (signal again to see what the stop waits for, "
                "%d times to exit at once)",
                sig.name,
                FORCE_AFTER,
            )
            self._requested.set()
        elif self._received < FORCE_AFTER:
            log.warning(
                "%s received: still stopping, waiting for %s. Signal once more to exit at once "
                "(offsets of records in flight are then not committed; they are produced again "
                "after a restart)",
                sig.name,
                self._waiting_for(),
            )
        else:
            status = 128 + sig.value
            log.error(
                "%s received a third time: exiting at once with status %d, without committing the "
                "offsets of records in flight",
                sig.name,
                status,
            )
            for handler in logging.getLogger().handlers:
                handler.flush()
            os._exit(status)
