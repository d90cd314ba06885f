"""Who serves a producer's delivery reports, and when.

confluent-kafka runs delivery callbacks only inside `poll()`/`flush()`. The task thread serves them
between batches, which costs nothing extra at high throughput. But a task blocked in its own `poll()`
(waiting for data) would then delay every acknowledgement, and with it `commit_record` and offset
commits; so while the task has been inside `poll()` for a moment, a helper thread serves them
instead. A lock makes sure callbacks never run on two threads at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from confluent_kafka import Producer

IDLE_GRACE_S = 0.02  # a task back from poll() sooner serves its own reports


class DeliveryReportPump:
    def __init__(self, producer: Producer, name: str) -> None:
        self._producer = producer
        self._lock = threading.Lock()
        self._in_task_poll = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"acks-{name}", daemon=True)

    def start(self) -> DeliveryReportPump:
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
    def task_polling(self) -> Iterator[None]:
        """Mark the task thread as blocked in the task's own `poll()`."""
        self._in_task_poll.set()
        try:
            yield
        finally:
            self._in_task_poll.clear()

    def stop(self) -> None:
        self._stop.set()
        self._in_task_poll.set()
        self._thread.join()

    # -- the helper thread ---------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            if not self._in_task_poll.wait(0.5):
                continue
            time.sleep(IDLE_GRACE_S)
            while self._in_task_poll.is_set() and not self._stop.is_set():
                with self._lock:
                    self._producer.poll(IDLE_GRACE_S)
