"""A `connectworker spark` driver killed outright leaves its scratch directory behind; the next driver to
start removes it, and never one whose driver is alive or one it did not lock."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from connectworker.spark.runner.state_dirs import PREFIX, StateDir

HOLD = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from connectworker.spark.runner.state_dirs import StateDir\n"
    "print(StateDir.create(Path(sys.argv[1])).path, flush=True)\n"
    "time.sleep(120)\n"
)


def driver(root: Path) -> tuple[subprocess.Popen[str], Path]:
    """A process that made a state directory under `root` and holds it until killed."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(root)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, Path(proc.stdout.readline().strip())


def test_the_next_driver_removes_the_directory_of_a_killed_one_and_keeps_the_others(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    killed, killed_dir = driver(tmp_path)
    alive, alive_dir = driver(tmp_path)
    legacy = tmp_path / f"{PREFIX}from-an-older-version"
    legacy.mkdir()
    try:
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait(10)
        assert killed_dir.is_dir()  # a killed driver cannot clean up
        with caplog.at_level(logging.INFO):
            mine = StateDir.create(tmp_path)
        assert not killed_dir.exists()
        assert alive_dir.is_dir() and legacy.is_dir() and mine.path.is_dir()
        [line] = [r.getMessage() for r in caplog.records if "Removed" in r.getMessage()]
        assert line == (
            "Removed 1 scratch directory of connectworker spark drivers that ended without removing them "
            f"(killed): {killed_dir}"
        )
        mine.remove()
        assert not mine.path.exists()
    finally:
        alive.kill()
        alive.wait(10)
        for proc in (killed, alive):
            assert proc.stdout is not None
            proc.stdout.close()
    StateDir.create(tmp_path).remove()  # its driver gone too: removed now
    assert sorted(p.name for p in tmp_path.iterdir()) == [legacy.name]
