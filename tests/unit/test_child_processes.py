"""Processes the worker starts die with it (`connectworker/child_processes.py`), even when it is killed
with SIGKILL; and a child does not die with the thread that asked for it (the kernel's death signal is
tied to the forking thread, so one long-lived thread forks them all)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from connectworker.child_processes import DIES_WITH_PARENT, spawn
from tests.process_checks import wait_ended

pytestmark = pytest.mark.skipif(not DIES_WITH_PARENT, reason="PR_SET_PDEATHSIG is Linux's")

PARENT = """
import sys, time
from connectworker.child_processes import spawn
child = spawn(["sleep", "600"])
print(child.pid, flush=True)
time.sleep(600)
"""


def test_a_child_dies_within_2_s_of_its_parent_being_killed_with_sigkill() -> None:
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert wait_ended(child, 0.5) is None  # it runs
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        took = wait_ended(child, 2.0)
        assert took is not None, f"process {child} still runs 2 s after its parent was killed"
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_a_child_outlives_the_short_lived_thread_that_started_it() -> None:
    started: list[subprocess.Popen[bytes]] = []
    helper = threading.Thread(target=lambda: started.append(spawn(["sleep", "600"])))
    helper.start()
    helper.join()
    (child,) = started
    try:
        time.sleep(0.3)  # a death signal tied to the helper thread would have come by now
        assert child.poll() is None
    finally:
        child.kill()
        child.wait()


def test_a_child_that_cannot_start_raises_on_the_callers_thread() -> None:
    with pytest.raises(FileNotFoundError):
        spawn(["/nonexistent/connectworker-test-binary"])
    with pytest.raises(ValueError, match="sets preexec_fn itself"):
        spawn(["true"], preexec_fn=lambda: None)
