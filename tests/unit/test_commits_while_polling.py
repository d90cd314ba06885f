"""A periodic offset commit that falls due while the task blocks in its own `poll()` is made then, by the
delivery-report helper, not once `poll()` returns; what that commit raises fails the task as a commit on
the task's own thread would."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from connectworker.runtime.offsets.file_store import FileOffsetStore
from connectworker.runtime.status import State
from tests.integration.harness import wait_until
from tests.unit.test_worker_source_task import PARTITION, Harness, ScriptedTask, rec


class BlockingTask(ScriptedTask):
    """Hands over what the test puts in `polls`, then blocks in `poll()` until `release` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.blocked = threading.Event()

    def poll(self) -> Any:
        if not self.polls.empty():
            return super().poll()
        self.blocked.set()
        self.release.wait(10)
        self.release.clear()
        return None

    def stop(self) -> None:
        self.release.set()


class FailingStore(FileOffsetStore):
    """An offsets file whose writes fail once `fail` is set."""

    fail = False

    def flush(self) -> None:
        if self.fail:
            raise OSError("disk on fire")
        super().flush()


def due_now(h: Harness) -> None:
    """Make the task's periodic commit due (its interval in these tests is far longer than a test)."""
    h.worker_task._next_commit = 0.0


def test_offsets_are_committed_on_schedule_while_the_task_blocks_in_poll(tmp_path: Path) -> None:
    task = BlockingTask()
    task.polls.put([rec(1), rec(2)])
    h = Harness(tmp_path, task, flush_interval_s=1000).start()
    wait_until(task.blocked.is_set, 5, "the task to block in poll() (its records sent)")
    due_now(h)
    h.wait_committed({"n": 2})  # committed while poll() is still blocked
    # the count follows once the offsets writer has written them
    wait_until(lambda: h.worker_task.committed_records == 2, 5, "the committed records counted")
    assert not task.release.is_set()
    assert FileOffsetStore(h.store.path).offset("c", PARTITION) == {"n": 2}
    h.stop()


def test_a_commit_made_while_the_task_polls_that_raises_fails_the_task_once_poll_returns(tmp_path: Path) -> None:
    task = BlockingTask()
    task.polls.put([rec(1)])
    store = FailingStore(tmp_path / "offsets.json")
    h = Harness(tmp_path, task, store=store, flush_interval_s=1000).start()
    wait_until(task.blocked.is_set, 5, "the task to block in poll() (its record sent)")
    store.fail = True
    due_now(h)
    wait_until(lambda: h.worker_task.stats().commits_failed >= 1, 5, "the failed commit")
    assert h.state()[0] is State.RUNNING  # the task thread is still inside poll()
    task.release.set()
    trace = h.wait_failed()
    assert "disk on fire" in trace
    assert FileOffsetStore(store.path).offset("c", PARTITION) is None  # nothing reached the file
