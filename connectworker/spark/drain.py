"""Stopping a `connect-source` query only between micro-batches, so nothing is left uncommitted.

`StreamingQuery.stop()` cancels the running micro-batch: its records may already be in Kafka while
its offsets are not committed, so they would be delivered again after a restart. To stop cleanly the
engine first *requests a drain*: it creates a file whose path it gave the source as an option. The
stream reader (in a Python process on the driver) checks the file whenever Spark asks for the
latest offset, which Spark does only after the previous micro-batch has fully committed. From then
on the reader reports no new data, so no further micro-batch starts, and it acknowledges by creating
a second file. Once acknowledged, `stop()` cancels nothing.
"""

from __future__ import annotations

import time
from pathlib import Path


class DrainSignal:
    """The request/acknowledge pair of files for one query."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.ack_path = self.path.with_name(self.path.name + ".drained")

    def request(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.touch()

    def requested(self) -> bool:
        return self.path.exists()

    def acknowledge(self) -> None:
        self.ack_path.touch()

    def wait(self, timeout_s: float) -> bool:
        """True once the reader acknowledged within `timeout_s` seconds."""
        deadline = time.monotonic() + timeout_s
        while not self.ack_path.exists():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.05)
        return True
