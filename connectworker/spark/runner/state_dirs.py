"""The driver's scratch directory (`connectworker-spark-*` under the system's temp directory: shipped
plugin archives, the session's files), and the clean-up of those whose driver was killed.

A driver removes its own directory when it stops; one killed outright (SIGKILL, the OOM killer, a lost
container) cannot. Each directory therefore holds `.owner.lock`, flock-ed by its driver for as long as
it lives: the kernel lets go of the lock when the process ends however it ends, so a lock that can be
taken means its driver is gone, and the next driver to start removes that directory. Directories
without the lock file (from versions before it, or half-made) are left alone.
"""

from __future__ import annotations

import fcntl
import logging
import os
import shutil
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

__all__ = ["PREFIX", "StateDir", "remove_abandoned"]

PREFIX = "connectworker-spark-"
OWNER_LOCK = ".owner.lock"


class StateDir:
    """A new scratch directory, owned (its lock held) by this process until `remove()`."""

    def __init__(self, path: Path, lock_fd: int) -> None:
        self.path = path
        self._lock_fd: int | None = lock_fd

    @classmethod
    def create(cls, root: Path | None = None) -> StateDir:
        """Remove the directories of drivers that are gone, then make this driver's."""
        root = root if root is not None else Path(tempfile.gettempdir())
        remove_abandoned(root)
        path = Path(tempfile.mkdtemp(prefix=PREFIX, dir=root))
        # Locked under another name first, then renamed: a sweeping driver never sees the lock file unlocked.
        pending = path / f"{OWNER_LOCK}.pending"
        fd = os.open(pending, os.O_CREAT | os.O_RDWR, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.rename(pending, path / OWNER_LOCK)
        except BaseException:
            os.close(fd)
            shutil.rmtree(path, ignore_errors=True)
            raise
        return cls(path, fd)

    def remove(self) -> None:
        """Remove the directory, then let go of its lock."""
        shutil.rmtree(self.path, ignore_errors=True)
        fd, self._lock_fd = self._lock_fd, None
        if fd is not None:
            os.close(fd)


def remove_abandoned(root: Path) -> list[Path]:
    """Remove every `connectworker-spark-*` directory under `root` whose lock no process holds; returns them."""
    removed = []
    for path in sorted(root.glob(f"{PREFIX}*")):
        lock = path / OWNER_LOCK
        try:
            fd = os.open(lock, os.O_RDWR)
        except OSError:  # no lock file: not ours to judge, or not a directory of ours
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # its driver is alive
        else:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        finally:
            os.close(fd)
    if removed:
        log.info(
            "Removed %d scratch director%s of connectworker spark drivers that ended without removing them "
            "(killed): %s",
            len(removed),
            "y" if len(removed) == 1 else "ies",
            ", ".join(str(p) for p in removed),
        )
    return removed
