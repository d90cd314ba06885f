"""Persistence of connectors created or changed through the REST API.

Kafka's standalone worker forgets REST changes when it stops; connectworker keeps them: in a JSON file
beside the offsets file (``<offsets file>.connectors.json``, `ConnectorStore`), rewritten atomically
like the offsets, or, when `config.storage.topic` is set, in that Kafka topic (`KafkaConfigStore`, so a
worker started on another host finds them). Both are a `ConnectorStoreBase`.

Connectors named on the command line interact with the file through a digest of the command-line
config: when REST changes (or deletes) such a connector, the entry remembers the digest of the file
config it overrode. At the next start the stored entry wins while the file still holds that same
config; once the operator edits the file, the file wins again and the stale entry is dropped. So
neither source silently undoes a newer change made through the other. Files own the connectors they
name: a run that does not name the file does not run its connector, REST change or not, and drops the
change.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from connectworker.api.errors import ConnectError
from connectworker.config.connector_names import connector_name_problem, shown_name
from connectworker.runtime.offsets.file_store import write_atomically
from connectworker.runtime.status import State

log = logging.getLogger(__name__)

FORMAT_VERSION = 1
TARGET_STATES = (State.RUNNING, State.PAUSED, State.STOPPED)


class ConnectorStoreError(ConnectError):
    pass


def config_digest(props: Mapping[str, str]) -> str:
    """A digest of a connector config that does not depend on key order."""
    canonical = json.dumps(dict(props), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class StoredConnector:
    """One entry; `config` None is a tombstone: a command-line connector deleted through REST."""

    config: dict[str, str] | None
    target_state: State = State.RUNNING
    file_digest: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"config": self.config, "target_state": self.target_state.value, "file_digest": self.file_digest}


@dataclass(frozen=True)
class StartupEntry:
    """A connector the worker should run after start-up, and whether its config came from the store."""

    config: dict[str, str]
    target_state: State
    from_store: bool


def usable_entries(entries: Sequence[StartupEntry], where: str) -> dict[str, StartupEntry]:
    """The entries by name, without those whose name is unusable (stored by an older version that did
    not check names): each is logged and skipped, and left in the store (`where`) for the operator."""
    wanted: dict[str, StartupEntry] = {}
    for entry in entries:
        name = entry.config.get("name", "")
        problem = connector_name_problem(name)
        if problem is not None:
            log.error(
                "Connector %s from the connector store is not started: %s. Remove its entry from "
                "%s to silence this message.",
                shown_name(name),
                problem,
                where,
            )
            continue
        wanted[name] = entry
    return wanted


class ConnectorStoreBase(ABC):
    """Where REST changes are kept; every change is durable before `put` or `remove` returns."""

    @abstractmethod
    def entries(self) -> dict[str, StoredConnector]: ...

    @abstractmethod
    def get(self, name: str) -> StoredConnector | None: ...

    @abstractmethod
    def put(self, name: str, entry: StoredConnector) -> None: ...

    @abstractmethod
    def remove(self, name: str) -> None: ...

    @abstractmethod
    def describe(self) -> str:
        """Where the entries are, for messages (a file's path, a topic)."""

    def close(self) -> None:
        """Release what the store holds (clients of a topic)."""

    def startup_entries(self, file_configs: Sequence[Mapping[str, str]]) -> list[StartupEntry]:
        """The connectors to run, given the command-line ones; drops entries the files superseded."""
        result: list[StartupEntry] = []
        in_files: set[str] = set()
        for props in file_configs:
            name = props["name"]
            in_files.add(name)
            stored = self.get(name)
            if stored is None:
                result.append(StartupEntry(dict(props), State.RUNNING, from_store=False))
            elif stored.file_digest == config_digest(props):
                if stored.config is None:
                    log.warning(
                        "Connector %s named on the command line was deleted through the REST API and "
                        "stays deleted; edit its file (or remove its entry from %s) to run it again",
                        name,
                        self.describe(),
                    )
                else:
                    result.append(StartupEntry(dict(stored.config), stored.target_state, from_store=True))
            else:
                log.warning(
                    "Connector %s: its command-line file changed since it was last changed through "
                    "the REST API, so the file's config is used and the REST change is dropped",
                    name,
                )
                self.remove(name)
                result.append(StartupEntry(dict(props), State.RUNNING, from_store=False))
        for name, stored in self.entries().items():
            if name in in_files:
                continue
            if stored.file_digest is not None:  # a file's connector, changed through REST: the file owns it
                if stored.config is not None:
                    log.warning(
                        "Connector %s was changed through the REST API over its connector file, which is not on "
                        "the command line: it is not run, and its REST change is dropped from %s (files own the "
                        "connectors they name; name the file to run it)",
                        name,
                        self.describe(),
                    )
                self.remove(name)
            elif stored.config is not None:
                result.append(StartupEntry(dict(stored.config), stored.target_state, from_store=True))
        return result


class ConnectorStore(ConnectorStoreBase):
    """The JSON file. Thread-safe; every change is written to disk before the call returns."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._entries = self._load()

    def _load(self) -> dict[str, StoredConnector]:
        if not self.path.exists():
            return {}
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("version") != FORMAT_VERSION:
                raise ValueError(f"unsupported format version {data.get('version')!r}")
            return {name: _entry_from_json(raw) for name, raw in data["connectors"].items()}
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise ConnectorStoreError(
                f"The connector store {self.path} (connectors created or changed through the REST API) is "
                f"unreadable or corrupt ({exc}). Refusing to start rather than lose those connectors: "
                f"restore it from a backup, or delete it to run only the connectors named on the command "
                f"line."
            ) from None

    def describe(self) -> str:
        return str(self.path)

    def entries(self) -> dict[str, StoredConnector]:
        with self._lock:
            return dict(self._entries)

    def get(self, name: str) -> StoredConnector | None:
        with self._lock:
            return self._entries.get(name)

    def put(self, name: str, entry: StoredConnector) -> None:
        with self._lock:
            self._entries[name] = entry
            self._write()

    def remove(self, name: str) -> None:
        with self._lock:
            if self._entries.pop(name, None) is not None:
                self._write()

    def _write(self) -> None:
        payload = {
            "version": FORMAT_VERSION,
            "connectors": {name: e.to_json() for name, e in sorted(self._entries.items())},
        }
        # mkstemp creates the file 0600 and the rename keeps that mode: the file holds secrets.
        write_atomically(self.path, json.dumps(payload, indent=1, sort_keys=True))


def _entry_from_json(raw: Mapping[str, Any]) -> StoredConnector:
    config = raw["config"]
    strings = isinstance(config, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in config.items())
    if config is not None and not strings:
        raise ValueError("a connector config must map strings to strings")
    state = State(raw["target_state"])
    if state not in TARGET_STATES:
        raise ValueError(f"target_state {state} is not one of RUNNING, PAUSED, STOPPED")
    digest = raw.get("file_digest")
    if digest is not None and not isinstance(digest, str):
        raise ValueError("file_digest must be a string")
    return StoredConnector(config, state, digest)
