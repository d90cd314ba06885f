"""The herder's supervisor thread: a few times a second, the automatic restarts' tick and the rate
history's sample (both cheap when there is nothing to do)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

log = logging.getLogger(__name__)


REPEAT_LOG_S = 60.0  # a job that keeps failing is logged once a minute, not at every tick


class Supervisor:
    def __init__(self, jobs: Sequence[Callable[[], None]], period_s: float = 0.25) -> None:
        self._jobs = list(jobs)
        self._period_s = period_s
        self._logged: dict[int, float] = {}  # job index -> when its failure was last logged (monotonic)
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="herder-supervisor", daemon=True)

    def start(self) -> Supervisor:
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stopped.wait(self._period_s):
            for index, job in enumerate(self._jobs):
                try:
                    job()
                except Exception:  # one bad tick must not end the restarts and the rates for good
                    now = time.monotonic()
                    if now - self._logged.get(index, -REPEAT_LOG_S) >= REPEAT_LOG_S:
                        self._logged[index] = now
                        log.exception(
                            "The herder's supervisor failed in %s (tried again every %g s; logged at "
                            "most once a minute)",
                            getattr(job, "__qualname__", job),
                            self._period_s,
                        )

    def stop(self, timeout_s: float | None = None) -> None:
        """Stop, waiting for the job under way (a restart it is making) up to `timeout_s`."""
        self._stopped.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout_s)
