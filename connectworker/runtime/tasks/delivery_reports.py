"""Who serves a producer's delivery reports, and when.

confluent-kafka runs delivery callbacks only inside `poll()`/`flush()`. The task thread serves them
between batches, which costs nothing extra at high throughput. But a task blocked in its own `poll()`
(waiting for data) would then delay every acknowledgement, and with it `commit_record` and offset
commits; so while the task has been inside `poll()` for a moment, a helper thread serves them
instead, and runs the task's `while_polling` work (its offset commit when one is due). A lock makes
sure callbacks never run on two threads at once; another makes the task thread, back from `poll()`,
wait for that work to end before it goes on.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from confluent_kafka import KafkaException, Producer

log = logging.getLogger(__name__)

IDLE_GRACE_S = 0.02  # a task back from poll() sooner serves its own reports


class DeliveryReportPump:
    def __init__(self, producer: Producer, name: str) -> None:
        self._producer = producer
        self._lock = threading.Lock()
        # When the task thread entered the task's poll() (None: not in it). A plain attribute, not an
        # Event: setting an Event wakes the helper thread, and its trip through the GIL on every poll
        # cost the task thread more than serving the reports itself.
        self._polling_since: float | None = None
        self._while_polling: Callable[[], None] | None = None
        self._busy = threading.Lock()  # held while the helper does the task's work in its stead
        self._stop = threading.Event()
        self._name = name
        self._thread = threading.Thread(target=self._run, name=f"acks-{name}", daemon=True)

    def start(self, while_polling: Callable[[], None] | None = None) -> DeliveryReportPump:
        """Start the helper thread; `while_polling` is work of the task thread's (it must not raise) that
        the helper does instead, at most every `IDLE_GRACE_S`, while the task thread is inside `poll()`."""
        self._while_polling = while_polling
        self._thread.start()
        return self

    # -- called by the task thread -------------------------------------------------------------
    def serve_ready(self) -> None:
        """Serve reports that have arrived, unless the helper thread is serving them right now."""
        if self._lock.acquire(blocking=False):
            try:
                self._producer.poll(0)
            finally:
                self._lock.release()

    def serve(self, timeout: float) -> None:
        """Serve reports, waiting up to `timeout` for one (used when the local queue is full)."""
        with self._lock:
            self._producer.poll(timeout)

    def flush(self, timeout: float) -> int:
        """Wait until Kafka answered every record and its callback ran; return how many did not."""
        with self._lock:
            return self._producer.flush(timeout)

    @contextmanager
    def holding_reports(self) -> Iterator[None]:
        """No delivery callback runs while the caller is inside (it may change in-flight accounting)."""
        with self._lock:
            yield

    @contextmanager
    def task_polling(self) -> Iterator[None]:
        """Mark the task thread as blocked in the task's own `poll()`."""
        self._polling_since = time.monotonic()
        try:
            yield
        finally:
            with self._busy:  # the helper's `while_polling` work, if under way, ends first
                self._polling_since = None

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    # -- the helper thread ---------------------------------------------------------------------
    def _run(self) -> None:
        """Serve reports while the task has been inside its `poll()` for longer than the grace period
        (wakes every IDLE_GRACE_S to look: a few µs each time)."""
        while not self._stop.wait(IDLE_GRACE_S):
            since = self._polling_since
            if since is None or time.monotonic() - since < IDLE_GRACE_S:
                continue
            with self._lock:
                try:
                    self._producer.poll(IDLE_GRACE_S)
                except KafkaException as exc:
                    # A fatal producer error (fenced by a newer instance of the task): the task thread
                    # meets it at its next send, flush or commit and fails or stops with it; nothing is
                    # left here to serve. The thread ended with an unhandled exception before.
                    log.debug("Task %s: delivery reports no longer served while it polls: %s", self._name, exc)
                    return
            if self._while_polling is not None:
                with self._busy:
                    if self._polling_since is not None:  # the task thread is still in poll(), and waits
                        self._while_polling()
