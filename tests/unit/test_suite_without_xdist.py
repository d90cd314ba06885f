"""The suite runs without pytest-xdist too (`pytest -p no:xdist …`, as when a test is debugged): the
conftest's xdist hook is optional, so pytest does not refuse it as an unknown hook."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def test_a_module_runs_with_xdist_disabled() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "-q", "tests/unit/test_cli_help.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "unknown hook" not in result.stdout + result.stderr
