"""The store of connectors created or changed through the REST API, and how it meets the connectors
named on the command line at start-up."""

from __future__ import annotations

import json
import logging
import stat
from pathlib import Path

import pytest

from connectworker.config.offsets_path import store_path_for
from connectworker.runtime.herder.connector_store import (
    ConnectorStore,
    ConnectorStoreError,
    StoredConnector,
    config_digest,
)
from connectworker.runtime.status import State

FILE_A = {"name": "a", "connector.class": "DataGen", "topic.pattern": "a"}


def test_the_store_sits_beside_the_offsets_file_and_is_private(tmp_path: Path) -> None:
    path = store_path_for(tmp_path / "data" / "connect.offsets")
    assert path == tmp_path / "data" / "connect.offsets.connectors.json"
    store = ConnectorStore(path)
    store.put("b", StoredConnector({"name": "b", "db.password": "pw"}, State.PAUSED))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600  # it holds secrets
    reread = ConnectorStore(path)
    assert reread.entries() == {"b": StoredConnector({"name": "b", "db.password": "pw"}, State.PAUSED)}
    reread.remove("b")
    assert json.loads(path.read_text()) == {"version": 1, "connectors": {}}


@pytest.mark.parametrize(
    "content",
    [
        '{"version": 1, "connectors": {"b": {"config": {"name": 1}}}}',
        '{"version": 1, "connectors": {"b": {"config": null, "target_state": "FAILED"}}}',
        '{"version": 7, "connectors": {}}',
        "{not json",
        "[]",
    ],
)
def test_a_corrupt_store_stops_start_up_and_is_left_alone(tmp_path: Path, content: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(content)
    with pytest.raises(ConnectorStoreError, match="unreadable or corrupt"):
        ConnectorStore(path)
    assert path.read_text() == content


def test_rest_created_connectors_come_back_with_their_state(tmp_path: Path) -> None:
    store = ConnectorStore(tmp_path / "c.json")
    store.put("b", StoredConnector({"name": "b", "connector.class": "DataGen"}, State.STOPPED))
    entries = store.startup_entries([FILE_A])
    assert [(e.config["name"], e.target_state, e.from_store) for e in entries] == [
        ("a", State.RUNNING, False),
        ("b", State.STOPPED, True),
    ]


def test_a_rest_change_to_a_file_connector_wins_while_the_file_is_unchanged(tmp_path: Path) -> None:
    store = ConnectorStore(tmp_path / "c.json")
    changed = {**FILE_A, "topic.pattern": "changed"}
    store.put("a", StoredConnector(changed, State.PAUSED, config_digest(FILE_A)))
    [entry] = store.startup_entries([dict(reversed(list(FILE_A.items())))])  # key order does not matter
    assert entry.config == changed and entry.target_state is State.PAUSED and entry.from_store


def test_an_edited_file_wins_over_an_older_rest_change(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    store = ConnectorStore(tmp_path / "c.json")
    changed = {**FILE_A, "topic.pattern": "changed"}
    store.put("a", StoredConnector(changed, State.PAUSED, config_digest(FILE_A)))
    edited = {**FILE_A, "topic.pattern": "edited"}
    with caplog.at_level(logging.WARNING):
        [entry] = store.startup_entries([edited])
    assert entry.config == edited and entry.target_state is State.RUNNING and not entry.from_store
    assert store.get("a") is None  # the stale REST change is dropped
    assert "file's config is used" in caplog.text


def test_a_file_connector_deleted_through_rest_stays_deleted_until_its_file_changes(tmp_path: Path) -> None:
    store = ConnectorStore(tmp_path / "c.json")
    store.put("a", StoredConnector(None, State.RUNNING, config_digest(FILE_A)))
    assert store.startup_entries([FILE_A]) == []
    assert store.get("a") is not None
    [entry] = store.startup_entries([{**FILE_A, "topic.pattern": "edited"}])
    assert entry.config["topic.pattern"] == "edited"


def test_a_tombstone_whose_file_is_no_longer_named_is_dropped(tmp_path: Path) -> None:
    store = ConnectorStore(tmp_path / "c.json")
    store.put("a", StoredConnector(None, State.RUNNING, config_digest(FILE_A)))
    assert store.startup_entries([]) == []
    assert store.entries() == {}


def test_a_rest_created_connector_later_named_in_a_file_takes_the_file_config(tmp_path: Path) -> None:
    store = ConnectorStore(tmp_path / "c.json")
    store.put("a", StoredConnector({**FILE_A, "topic.pattern": "from-rest"}, State.RUNNING, None))
    [entry] = store.startup_entries([FILE_A])
    assert entry.config == FILE_A and not entry.from_store


def test_a_file_connector_changed_through_rest_is_not_run_without_its_file_and_the_change_is_dropped(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = ConnectorStore(tmp_path / "c.json")
    store.put("a", StoredConnector(FILE_A, State.STOPPED, config_digest(FILE_A)))  # stopped, then resumed: RUNNING
    store.put("b", StoredConnector({"name": "b", "connector.class": "DataGen"}, State.RUNNING))
    with caplog.at_level(logging.WARNING):
        entries = store.startup_entries([])
    assert [e.config["name"] for e in entries] == ["b"]  # the REST-created one only: files own theirs
    assert set(store.entries()) == {"b"}
    assert "Connector a was changed through the REST API over its connector file" in caplog.text
    assert "name the file to run it" in caplog.text
