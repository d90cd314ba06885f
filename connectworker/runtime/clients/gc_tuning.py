"""Garbage-collector settings for a worker process.

The record path allocates several short-lived objects per record (record, offset dict, bytes), and
CPython's default of a young-generation collection every 700 allocations then costs a large share of
the time (measured: about a third of throughput). Records do not form reference cycles, so collecting
less often loses nothing. Called by the `connectworker` command, not on import: embedding
applications keep their own settings.

Under these thresholds a reference cycle may wait hours for a full collection, so the worker collects
once after stopping tasks (`runners.task_runner.release_stopped_tasks`); that is cheap because
everything alive at start-up is frozen. Under an application's own settings its collector frees them on
its schedule, and a full collection over an application's heap can take seconds (measured: 1-3.7 s in
a test process), which would hold up every connector stop.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 100_000


def tune_gc_for_throughput() -> None:
    gc.freeze()  # objects alive after start-up (modules, configs) are never scanned again
    gc.set_threshold(YOUNG_THRESHOLD, 50, 100)


def collects_rarely() -> bool:
    """Whether this process runs with the raised thresholds (the worker command, a task process)."""
    return gc.get_threshold()[0] >= YOUNG_THRESHOLD
