"""Checking at start-up that the offsets file, and the connector store beside it, can be written.

Both are written atomically (a temporary file in the same directory, then a rename; missing parent
directories are created), so what matters is the directory: the nearest existing ancestor must be a
directory this process may write into, and the file itself, if it exists, a regular file. Checked with
`os.access`, i.e. with the process's real permissions: root may write into a directory whose mode
forbids it, but not on a read-only file system.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["STORE_SUFFIX", "offsets_path_problem", "store_path_for"]

STORE_SUFFIX = ".connectors.json"


def store_path_for(offsets_file: str | Path) -> Path:
    """Where the connector store (connectors created or changed through REST) lives for an offsets file."""
    path = Path(offsets_file)
    return path.with_name(path.name + STORE_SUFFIX)


def _file_problem(path: Path) -> str | None:
    if path.is_dir():
        return f"{path} is a directory"
    if path.exists() and not path.is_file():
        return f"{path} is not a regular file"
    if path.exists() and not os.access(path, os.R_OK):
        return f"{path} cannot be read (permission denied)"
    ancestor = path.parent
    while not ancestor.exists() and not ancestor.is_symlink() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if ancestor.is_file():
        return f"{ancestor} is a regular file, not a directory"
    if not ancestor.is_dir():
        return f"{ancestor} is not a directory"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"directory {ancestor} is not writable"
    return None


def offsets_path_problem(filename: str) -> str | None:
    """Why the worker could not write `filename` (offset.storage.file.filename) or the connector store
    beside it, or None."""
    path = Path(filename).absolute()
    problem = _file_problem(path)
    if problem is not None:
        return f"cannot write the offsets file: {problem}"
    store = store_path_for(path)
    problem = _file_problem(store)
    if problem is not None:
        return f"cannot write the connector store beside the offsets file: {problem}"
    return None
