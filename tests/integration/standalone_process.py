"""`connectworker standalone` as a child process of the test, reached through its REST API."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class StandaloneProcess:
    url: str  # the REST API's
    pid: int
    log: Path


@contextmanager
def standalone(tmp_path: Path, *connector_files: Path) -> Iterator[str]:
    """`connectworker standalone` as a process; yields its REST URL, then stops it with SIGTERM.
    The worker file must be `tmp_path/worker.properties`, with `listeners=http://127.0.0.1:0`."""
    with standalone_process(tmp_path, *connector_files) as worker:
        yield worker.url


@contextmanager
def standalone_process(tmp_path: Path, *connector_files: Path) -> Iterator[StandaloneProcess]:
    """As `standalone`, yielding the process too."""
    log = tmp_path / f"worker-{time.monotonic_ns()}.log"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "connectworker.cli",
                "standalone",
                str(tmp_path / "worker.properties"),
                *map(str, connector_files),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    try:
        url = None
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:
            assert proc.poll() is None, log.read_text()
            found = re.search(r"REST API listening on (http://127\.0\.0\.1:\d+)", log.read_text())
            url = found.group(1) if found else None
            time.sleep(0.05)
        assert url is not None, log.read_text()
        yield StandaloneProcess(url, proc.pid, log)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == 0, log.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
