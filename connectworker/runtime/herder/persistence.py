"""The herder's side of the connector store: which connectors to run at start-up, from the command-line
files and the store together (connector_store.py decides between them), and each later change through
the REST API written back, remembering which file config it overrode. Files own the connectors they name:
the first REST change to one in a run says so in the log."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

from connectworker.runtime.connector_context import RunningConnector
from connectworker.runtime.herder.connector_store import (
    ConnectorStoreBase,
    StartupEntry,
    StoredConnector,
    config_digest,
    usable_entries,
)
from connectworker.runtime.status import State

log = logging.getLogger(__name__)

__all__ = ["Persistence"]


class Persistence:
    """`store` None: nothing is kept (the command-line connectors are all there is)."""

    def __init__(self, store: ConnectorStoreBase | None) -> None:
        self.store = store
        self._file_digests: dict[str, str] = {}  # the command-line connectors' configs, by name
        self._rule_told: set[str] = set()  # file connectors whose REST change logged the rule

    def startup_entries(self, file_configs: Sequence[Mapping[str, str]]) -> dict[str, StartupEntry]:
        """The connectors to run, by name, given the command-line ones."""
        self._file_digests = {props["name"]: config_digest(props) for props in file_configs}
        if self.store is None:
            return {props["name"]: StartupEntry(dict(props), State.RUNNING, False) for props in file_configs}
        return usable_entries(self.store.startup_entries(file_configs), self.store.describe())

    def from_file(self, name: str) -> bool:
        return name in self._file_digests

    def save(self, name: str, running: RunningConnector | None) -> None:
        """Keep `name` as it is now (`running` None: deleted; a file's connector stays deleted then)."""
        if self.store is None:
            return
        digest = self._file_digests.get(name)
        if digest is not None and name not in self._rule_told:
            self._rule_told.add(name)
            log.info(
                "Connector %s comes from a connector file named on the command line, which owns it: this "
                "change through the REST API (kept in %s) lasts while that file is named and unchanged; "
                "edit the file to make it last beyond",
                name,
                self.store.describe(),
            )
        if running is not None:
            self.store.put(name, StoredConnector(dict(running.config.props), running.target_state, digest))
        elif digest is not None:
            self.store.put(name, StoredConnector(None, State.RUNNING, digest))  # keep it deleted
        else:
            self.store.remove(name)
