"""Committed source offsets for standalone mode, kept in `offset.storage.file.filename`.

The file is JSON, ``{"<connector>": {"<canonical partition JSON>": <offset>}}``, rewritten atomically
(temp file in the same directory, fsync, rename, fsync of the directory), so a crash leaves either the
old or the new file, never a torn one. A file that cannot be parsed stops start-up: silently resetting
offsets would re-deliver or skip data.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections.abc import Collection, Mapping
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
    """Thread-safe store of committed offsets, one file for the whole worker."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()  # the offsets in memory
        self._write_lock = threading.Lock()  # the file: one writer at a time, in order
        self._data: dict[str, dict[str, Any]] = self._load()
        self._dirty = False

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
                f"every connector from the beginning.") from None
        if not isinstance(data, dict) or not all(
                isinstance(v, dict) for v in data.values()):
            raise OffsetStoreError(
                f"The offsets file {self.path} does not hold connectworker offsets "
                f"(expected {{connector: {{partition: offset}}}}). Refusing to start; move it aside.")
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
            return list(self._data)

    # -- writes --------------------------------------------------------------------------------
    def put(self, connector: str, offsets: Mapping[str, Any]) -> None:
        """Record offsets (keyed by `partition_key`); a None offset removes the partition.

        Offsets that JSON cannot hold are refused here, before they touch the shared state, so one
        connector's bad offset can never stop the file from being written for every other one."""
        if not offsets:
            return
        try:
            json.dumps(dict(offsets))
        except (TypeError, ValueError) as exc:
            raise OffsetStoreError(f"Offsets of connector {connector} cannot be stored as JSON ({exc}); "
                                   f"nothing of them was stored") from None
        with self._lock:
            stored = self._data.setdefault(connector, {})
            for key, value in offsets.items():
                if value is None:
                    stored.pop(key, None)
                else:
                    stored[key] = value
            self._dirty = True

    def remove(self, connector: str, partitions: Collection[str] | None = None) -> None:
        """Forget all offsets of `connector`, or only those of `partitions`."""
        with self._lock:
            if partitions is None:
                self._dirty |= self._data.pop(connector, None) is not None
            else:
                stored = self._data.get(connector, {})
                for key in partitions:
                    self._dirty |= stored.pop(key, None) is not None

    def flush(self) -> None:
        """Write the file if anything changed since the last flush. Reads and puts are not held up
        by the write (an fsync can take 100 ms): they only wait while the offsets are serialised."""
        with self._write_lock:
            with self._lock:
                if not self._dirty:
                    return
                payload = json.dumps(self._data, sort_keys=True, indent=1)
                self._dirty = False
            try:
                write_atomically(self.path, payload)
            except BaseException:
                with self._lock:
                    self._dirty = True  # the next flush tries again
                raise


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
