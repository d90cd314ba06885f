"""Running a real worker (in-process or as the `connectworker` command) against the test broker."""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from connectworker.api.record import SourceOffset, SourcePartition
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.herder.standalone import StandaloneRuntime
from connectworker.runtime.offsets.backing_store import read_committed
from connectworker.runtime.offsets.file_store import partition_key
from connectworker.runtime.status import State
from connectworker.runtime.worker import Worker


def worker_config(bootstrap: str, tmp_path: Path, **overrides: str) -> WorkerConfig:
    props = {
        "bootstrap.servers": bootstrap,
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.storage.file.filename": str(tmp_path / "connect.offsets"),
        "offset.flush.interval.ms": "200",
        **overrides,
    }
    return WorkerConfig.from_properties(props)


@contextmanager
def running_worker(config: WorkerConfig, *connectors: Mapping[str, str]) -> Iterator[StandaloneRuntime]:
    with StandaloneRuntime(config) as runtime:
        assert runtime.worker is not None
        for props in connectors:
            runtime.worker.start_connector(parse_connector_config(props))
        yield runtime


def wait_until(
    condition: Callable[[], bool], timeout: float = 30.0, what: str | Callable[[], str] = "condition"
) -> None:
    """Poll `condition` until true; `what` (or what it returns, read at the timeout) names it in the failure."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout}s waiting for {what() if callable(what) else what}")


def task_state(worker: Worker, connector: str, task: int = 0) -> tuple[State, str | None]:
    """The task's state; UNASSIGNED while a connector created through REST has not started it yet."""
    tasks = worker.get(connector).tasks
    return tasks[task].status.snapshot() if task < len(tasks) else (State.UNASSIGNED, None)


def committed_offset(worker: Worker | None, connector: str, partition: SourcePartition) -> SourceOffset | None:
    """`connector`'s committed offset of `partition`, as any process committed it (tasks commit in
    task processes: the worker's own copy is read again first)."""
    assert worker is not None
    return read_committed(worker.offset_store, connector).get(partition_key(partition))


def wait_committed(worker: Worker, connector: str, records: int, timeout: float = 90.0) -> None:
    """Wait until the connector's tasks committed `records` in all; a FAILED task fails at once."""

    def done() -> bool:
        tasks = worker.get(connector).tasks
        for task in tasks:
            state, trace = task.status.snapshot()
            if state is State.FAILED:
                raise AssertionError(f"task {task.name} FAILED: {trace}")
        return sum(t.committed_records for t in tasks) >= records

    def where_it_stands() -> str:
        """What a timeout shows: each task's state and counts, and where its threads are (a stalled task)."""
        tasks = worker.get(connector).tasks
        described = [
            f"{t.name}: {t.status.snapshot()}, {t.committed_records} committed"
            + "".join(
                f", {n} {getattr(t, n)}"
                for n in ("transactions_committed", "transactions_aborted")
                if isinstance(getattr(t, n, None), int)
            )
            for t in tasks
        ]
        frames = sys._current_frames()
        stacks = [
            f"thread {thread.name}:\n{''.join(traceback.format_stack(frames[thread.ident]))}"
            for thread in threading.enumerate()
            if thread.ident in frames and any(t.name in thread.name for t in tasks)
        ]
        return f"{records} committed records of {connector} ({'; '.join(described)})\n" + "\n".join(stacks)

    wait_until(done, timeout, where_it_stands)
