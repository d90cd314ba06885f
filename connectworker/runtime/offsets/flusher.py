"""Flushes the offset store on its own thread, so that no task waits for a disk (or for the acks of the
offsets topic: with `KafkaOffsetStore` a flush is a produce and a wait for acks, served here alike).

A commit puts a task's offsets into the store (in memory) and asks the flusher to write the file;
the task goes on producing. Requests that arrive while a write is under way are served together by
the next write. Only once the file is durably written does the flusher call back, so a task's
`commit()` hook, which a connector may use to acknowledge its source, never runs ahead of the file
(Kafka Connect, likewise, commits offsets and calls `commit()` off the task's thread).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from connectworker.runtime.offsets.backing_store import OffsetBackingStore

log = logging.getLogger(__name__)

Written = Callable[[], None]
NotWritten = Callable[[], None]


class OffsetFlusher:
    def __init__(self, store: OffsetBackingStore) -> None:
        self.store = store
        self._pending: list[tuple[Written, NotWritten | None]] = []
        self._requested = False
        self._closed = False
        self._wakeup = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="offsets-writer", daemon=True)
        self._thread.start()

    def request(self, on_written: Written, on_failed: NotWritten | None = None) -> None:
        """Write the file soon; `on_written` runs (on the writer thread) once it holds today's offsets,
        `on_failed` if that write failed (the offsets stay in the store for the next one)."""
        with self._wakeup:
            if self._closed:
                raise RuntimeError("the offsets writer is closed")
            self._pending.append((on_written, on_failed))
            self._requested = True
            self._wakeup.notify()

    def close(self) -> None:
        """Finish the writes requested so far, then stop the thread."""
        with self._wakeup:
            self._closed = True
            self._wakeup.notify()
        self._thread.join()

    def _run(self) -> None:
        while True:
            with self._wakeup:
                while not self._requested and not self._closed:
                    self._wakeup.wait()
                if not self._requested:
                    return
                callbacks, self._pending, self._requested = self._pending, [], False
            try:
                self.store.flush()
            except Exception as exc:  # the offsets stay in memory and are written by the next flush
                log.error(
                    "Could not write the offsets to %s: %s; the offsets are kept and written at the next commit",
                    self.store.describe(),
                    exc,
                )
                self._call([failed for _, failed in callbacks if failed is not None])
            else:
                self._call([written for written, _ in callbacks])
            # the callbacks hold their task: not kept until the next request (a deleted connector's
            # last task would otherwise stay in memory until another task commits)
            del callbacks

    @staticmethod
    def _call(callbacks: list[Callable[[], None]]) -> None:
        for callback in callbacks:
            try:
                callback()
            except Exception:
                log.exception("An offsets-written callback raised")
