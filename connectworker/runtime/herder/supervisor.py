"""The herder's supervisor thread: a few times a second, the automatic restarts' tick and the rate
history's sample (both cheap when there is nothing to do)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence

log = logging.getLogger(__name__)


class Supervisor:
    def __init__(self, jobs: Sequence[Callable[[], None]], period_s: float = 0.25) -> None:
        self._jobs = list(jobs)
        self._period_s = period_s
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="herder-supervisor", daemon=True)

    def start(self) -> Supervisor:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stopped.wait(self._period_s):
            for job in self._jobs:
                try:
                    job()
                except Exception:  # one bad tick must not end the restarts and the rates for good
                    log.exception("The herder's supervisor failed in %s", getattr(job, "__qualname__", job))

    def stop(self, timeout_s: float | None = None) -> None:
        """Stop, waiting for the job under way (a restart it is making) up to `timeout_s`."""
        self._stopped.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout_s)
