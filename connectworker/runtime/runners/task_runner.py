"""The seam between the worker and the place its tasks run."""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from connectworker.api.operator import OperatorSignal
from connectworker.runtime.clients.gc_tuning import collects_rarely
from connectworker.runtime.observability.task_stats import TaskStats
from connectworker.runtime.status import Status
from connectworker.runtime.tasks.task_spec import TaskSpec

log = logging.getLogger(__name__)


class TaskHandle(Protocol):
    """One running task, as the worker, the REST API and the metrics see it."""

    @property
    def connector(self) -> str: ...

    @property
    def task_id(self) -> int: ...

    @property
    def name(self) -> str:
        """`<connector>-<task id>`."""
        ...

    @property
    def props(self) -> dict[str, str]:
        """The task's config."""
        ...

    @property
    def status(self) -> Status:
        """Its live state and trace (updated where the task runs)."""
        ...

    @property
    def transactional_id(self) -> str | None: ...

    @property
    def worker_id(self) -> str | None:
        """Where the task runs when that is not the worker's own process (a Spark executor's host);
        None otherwise. The REST status shows it as the task's `worker_id`."""
        ...

    def pause(self) -> None:
        """Stop polling; records in flight are still delivered and committed."""
        ...

    def resume(self) -> None: ...

    def stop(self) -> None:
        """Ask the task to stop; returns at once (`join` waits for its final commit)."""
        ...

    def join(self, timeout: float | None) -> bool:
        """Wait up to `timeout` seconds for the task to end; False if it has not."""
        ...

    def forget_reported_topics(self) -> None:
        """Report every topic again on its next use."""
        ...

    def signal(self, signal: OperatorSignal) -> None:
        """Hand the task an operator's signal (its context's `operator_signals()` returns it); returns at once."""
        ...

    def stats(self) -> TaskStats: ...


class TaskRunner(Protocol):
    def start(self, spec: TaskSpec, *, paused: bool, on_topics: Callable[[set[str]], None]) -> TaskHandle:
        """Start running `spec`'s task (polling only once resumed when `paused`) and return at once.

        `on_topics` is called with the topics the task writes to as it meets them. Raises when the task
        cannot even be built (e.g. its converter's config is wrong)."""
        ...


def stop_within(tasks: Sequence[TaskHandle], deadline: float, graceful_timeout_ms: int) -> None:
    """Ask every task to stop, then wait for them until `deadline` (monotonic): one bound for them all,
    not one each, or stuck tasks would add up. A task still running then is abandoned, with an error."""
    for task in tasks:
        task.stop()
    for task in tasks:
        if not task.join(max(0.0, deadline - time.monotonic())):
            log.error(
                "Task %s did not stop within task.shutdown.graceful.timeout.ms (%d ms); abandoning its thread",
                task.name,
                graceful_timeout_ms,
            )


def release_stopped_tasks() -> None:
    """Free what stopped tasks held, now. A task and its producer sit in reference cycles (callbacks
    bound to the task, in the producer's config), which only a full collection frees; the worker
    command raises the collector's thresholds for throughput (`gc_tuning.py`), so without this each
    connector created and deleted left its librdkafka producer behind for hours (about 0.5 MB each:
    `python -m bench.bench_soak`). Lifecycle changes are rare, and with start-up frozen a full collection
    takes milliseconds. A process with the collector's default settings (an application embedding the
    worker) frees them on its collector's schedule: there a full collection scans the whole heap."""
    if collects_rarely():
        gc.collect()
