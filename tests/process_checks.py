"""Looking at processes through Linux's /proc: a process's children, and whether one has ended."""

from __future__ import annotations

import time
from pathlib import Path


def children_of(pid: int) -> list[int]:
    """The pids of `pid`'s children, from every thread's `children` list (a child belongs to the thread
    that forked it)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found.extend(int(child) for child in (task / "children").read_text().split())
        except FileNotFoundError:  # that thread ended meanwhile
            continue
    return found


def ended(pid: int) -> bool:
    """Whether `pid` is gone, or a zombie (dead, holding nothing; its new parent has not reaped it yet)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")  # the state follows the command name


def wait_ended(pid: int, timeout: float) -> float | None:
    """Seconds until `pid` ended, or None if it still runs after `timeout`."""
    started = time.monotonic()
    while True:  # looks once at least: a timeout of 0 asks "has it ended?"
        if ended(pid):
            return time.monotonic() - started
        if time.monotonic() - started >= timeout:
            return None
        time.sleep(0.02)
