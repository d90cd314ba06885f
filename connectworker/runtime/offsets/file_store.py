"""Committed source offsets kept in `offset.storage.file.filename` (the file `OffsetBackingStore`).

The file is JSON, ``{"<connector>": {"<canonical partition JSON>": <offset>}}``, rewritten atomically
(temp file in the same directory, fsync, rename, fsync of the directory), so a crash leaves either the
old or the new file, never a torn one. A file that cannot be parsed stops start-up: silently resetting
offsets would re-deliver or skip data.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
import threading
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from connectworker.api.errors import ConnectError
from connectworker.api.record import SourceOffset, SourcePartition


class OffsetStoreError(ConnectError):
    pass


def partition_key(partition: SourcePartition | None) -> str:
    """Canonical JSON of a source partition: equal dicts give equal keys whatever their key order."""
    return json.dumps(partition, sort_keys=True, separators=(",", ":"))


class FileOffsetStore:
    """Thread-safe store of committed offsets, one file for the whole worker (an `OffsetBackingStore`).

    `shared=True` lets several processes use one file (Spark's driver-side reader and committers):
    every load and flush then holds an exclusive `flock` on ``<file>.lock``, and a flush re-reads the
    file and applies only this store's changes to it, so no process undoes another's commits.
    """

    def __init__(self, path: str | Path, *, shared: bool = False) -> None:
        self.path = Path(path)
        self.shared = shared
        self._lock = threading.Lock()  # the offsets in memory
        self._write_lock = threading.Lock()  # the file: one writer at a time, in order
        self._pending: dict[str, _Changes] = {}  # changes since the last flush, by connector
        with self._file_locked():
            self._data: dict[str, dict[str, Any]] = self._load()

    @contextmanager
    def _file_locked(self) -> Iterator[None]:
        if not self.shared:
            yield
            return
        lock_path = self.path.with_name(self.path.name + ".lock")
        lock_path.parent.mkdir(parents=True, exist_ok=True)
        with lock_path.open("a") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def _load(self) -> dict[str, dict[str, Any]]:
        if not self.path.exists():
            return {}
        try:
            text = self.path.read_text(encoding="utf-8")
            data = json.loads(text) if text.strip() else {}
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise OffsetStoreError(
                f"The offsets file {self.path} is unreadable or corrupt ({exc}). Refusing to start "
                f"rather than reset offsets silently: restore it from a backup, or delete it to start "
                f"every connector from the beginning."
            ) from None
        if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
            raise OffsetStoreError(
                f"The offsets file {self.path} does not hold connectworker offsets "
                f"(expected {{connector: {{partition: offset}}}}). Refusing to start; move it aside."
            )
        return data

    # -- reads ---------------------------------------------------------------------------------
    def offset(self, connector: str, partition: SourcePartition | None) -> SourceOffset | None:
        with self._lock:
            return self._data.get(connector, {}).get(partition_key(partition))

    def offsets(self, connector: str) -> dict[str, Any]:
        """Every committed offset of `connector`, keyed by canonical partition JSON."""
        with self._lock:
            return dict(self._data.get(connector, {}))

    def connectors(self) -> list[str]:
        with self._lock:
            return [name for name, stored in self._data.items() if stored]

    def refresh(self) -> None:
        """Read the file again (what other processes committed), keeping unflushed changes on top."""
        with self._write_lock, self._file_locked():
            data = self._load()
            with self._lock:
                for connector, changes in self._pending.items():
                    changes.apply(data, connector)
                self._data = data

    # -- writes --------------------------------------------------------------------------------
    def put(self, connector: str, offsets: Mapping[str, Any]) -> None:
        """Record offsets (keyed by `partition_key`); a None offset removes the partition.

        Offsets that JSON cannot hold are refused here, before they touch the shared state, so one
        connector's bad offset can never stop the file from being written for every other one."""
        if not offsets:
            return
        check_storable(connector, offsets)
        with self._lock:
            stored = self._data.setdefault(connector, {})
            changes = self._pending.setdefault(connector, _Changes())
            for key, value in offsets.items():
                if value is None:
                    stored.pop(key, None)
                else:
                    stored[key] = value
                changes.offsets[key] = value

    def remove(self, connector: str, partitions: Collection[str] | None = None) -> None:
        """Forget all offsets of `connector`, or only those of `partitions`."""
        with self._lock:
            if partitions is None:
                if self._data.pop(connector, None) is not None or self.shared:
                    self._pending[connector] = _Changes(cleared=True)
            else:
                stored = self._data.get(connector, {})
                for key in partitions:
                    if stored.pop(key, None) is not None or self.shared:
                        self._pending.setdefault(connector, _Changes()).offsets[key] = None

    def flush(self) -> None:
        """Write the file if anything changed since the last flush. Reads and puts are not held up
        by the write (an fsync can take 100 ms): they only wait while the offsets are serialised."""
        with self._write_lock, self._file_locked():
            with self._lock:
                if not self._pending:
                    return
                pending, self._pending = self._pending, {}
                if self.shared:  # other processes may have committed since we read the file
                    data = self._load()
                    for connector, changes in pending.items():
                        changes.apply(data, connector)
                    self._data = data
                payload = json.dumps({k: v for k, v in self._data.items() if v}, sort_keys=True, indent=1)
            try:
                write_atomically(self.path, payload)
            except BaseException:
                with self._lock:  # the next flush tries again; changes made meanwhile are newer
                    for connector, newer in self._pending.items():
                        pending[connector] = pending[connector].then(newer) if connector in pending else newer
                    self._pending = pending
                raise

    def close(self) -> None:
        """Nothing stays open: the file is only open while it is read or written."""

    def describe(self) -> str:
        return f"file {self.path}"


@dataclass
class _Changes:
    """A connector's changes since the last flush: `cleared` (every offset removed), then `offsets`."""

    cleared: bool = False
    offsets: dict[str, Any] = field(default_factory=dict)

    def apply(self, data: dict[str, dict[str, Any]], connector: str) -> None:
        stored = {} if self.cleared else data.get(connector, {})
        for key, value in self.offsets.items():
            if value is None:
                stored.pop(key, None)
            else:
                stored[key] = value
        data[connector] = stored

    def then(self, newer: _Changes) -> _Changes:
        if newer.cleared:
            return newer
        return _Changes(self.cleared, {**self.offsets, **newer.offsets})


def check_storable(connector: str, offsets: Mapping[str, Any]) -> None:
    """Raise `OffsetStoreError` unless every offset of `offsets` can be written as JSON."""
    try:
        json.dumps(dict(offsets))
    except (TypeError, ValueError) as exc:
        raise OffsetStoreError(
            f"Offsets of connector {connector} cannot be stored as JSON ({exc}); nothing of them was stored"
        ) from None


def write_atomically(path: Path, text: str) -> None:
    """Replace `path` with `text` so readers see the old or the new content, never a mix."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)
