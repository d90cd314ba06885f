"""Checking at start-up that the offsets file, and the connector store beside it, can be written.

Both are written atomically (a temporary file in the same directory, written, fsynced, renamed over
the file, then the directory fsynced; missing parent directories are created), so what matters is the
directory. Two checks, before any connector starts:

- the shape of the path: the file itself, if it exists, is a regular file; the nearest existing
  ancestor is a directory this process may write into (`os.access`, with the process's real
  permissions). These give the most telling message for the common mistakes.
- a probe: the worker does in that directory what a commit does (create a file, write, fsync it,
  rename it, fsync the directory) and removes what it made. `os.access` cannot see everything: root
  passes it for `/proc` or `/sys`, which take no files, and for a file system mounted read-only or
  full only the operation itself tells. Where the directory does not exist yet, the probe makes a
  temporary directory in the nearest existing ancestor and probes inside it, so it tests the file
  system the directories will be created on without leaving them behind.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["STORE_SUFFIX", "offsets_path_problem", "store_path_for"]

STORE_SUFFIX = ".connectors.json"
PROBE_PREFIX = ".connectworker-probe."


def store_path_for(offsets_file: str | Path) -> Path:
    """Where the connector store (connectors created or changed through REST) lives for an offsets file."""
    path = Path(offsets_file)
    return path.with_name(path.name + STORE_SUFFIX)


def _nearest_existing(path: Path) -> Path:
    ancestor = path
    while not ancestor.exists() and not ancestor.is_symlink() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    return ancestor


def _file_problem(path: Path) -> str | None:
    if path.is_dir():
        return f"{path} is a directory"
    if path.exists() and not path.is_file():
        return f"{path} is not a regular file"
    if path.exists() and not os.access(path, os.R_OK):
        return f"{path} cannot be read (permission denied)"
    ancestor = _nearest_existing(path.parent)
    if ancestor.is_file():
        return f"{ancestor} is a regular file, not a directory"
    if not ancestor.is_dir():
        return f"{ancestor} is not a directory"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"directory {ancestor} is not writable"
    return None


def _failed(step: str, directory: Path, exc: OSError) -> str:
    reason = exc.strerror or str(exc)
    return f"{step} in {directory} failed: {reason}" + (f" (errno {exc.errno})" if exc.errno else "")


def _probe_file(directory: Path) -> str | None:
    """Create, write, fsync and rename a file in `directory`, then fsync it, as a commit does; remove
    the file. Why that failed, or None."""
    step = "creating a file"
    try:
        fd, made = tempfile.mkstemp(prefix=PROBE_PREFIX, suffix=".tmp", dir=directory)
    except OSError as exc:
        return _failed(step, directory, exc)
    current = Path(made)
    try:
        step = "writing a file"
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("{}")
            fh.flush()
            step = "fsyncing a file"
            os.fsync(fh.fileno())
        step = "renaming a file"
        renamed = current.with_name(current.name[: -len(".tmp")] + ".json")
        os.replace(current, renamed)
        current = renamed
        step = "fsyncing the directory"
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError as exc:
        return _failed(step, directory, exc)
    finally:
        with contextlib.suppress(OSError):  # what the probe made goes, whether or not it worked
            current.unlink()
    return None


def _probe(directory: Path) -> str | None:
    """`_probe_file` in `directory`, or, while it does not exist, in a temporary directory made in its
    nearest existing ancestor (then removed)."""
    if directory.is_dir():
        return _probe_file(directory)
    ancestor = _nearest_existing(directory)
    try:
        made = Path(tempfile.mkdtemp(prefix=PROBE_PREFIX, dir=ancestor))
    except OSError as exc:
        return _failed(f"creating a directory (for {directory})", ancestor, exc)
    try:
        return _probe_file(made)
    finally:
        with contextlib.suppress(OSError):
            made.rmdir()


def offsets_path_problem(filename: str) -> str | None:
    """Why the worker could not write `filename` (offset.storage.file.filename) or the connector store
    beside it, or None. Probes the directory (see the module's docstring); leaves nothing behind."""
    path = Path(filename).absolute()
    problem = _file_problem(path)
    if problem is not None:
        return f"cannot write the offsets file: {problem}"
    store = store_path_for(path)
    problem = _file_problem(store)
    if problem is not None:
        return f"cannot write the connector store beside the offsets file: {problem}"
    problem = _probe(path.parent)
    if problem is not None:  # the store lives in the same directory: one probe answers for both
        return f"cannot write the offsets file or the connector store beside it: {problem}"
    return None
