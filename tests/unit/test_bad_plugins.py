"""A broken connector plugin is a validation error naming the class and what is wrong: from the config
loader (what `connectworker standalone` reports) and from the REST API (400 on create, the error on
`connector.class` when validating), never a traceback or a 500. The command line itself is exercised in
tests/integration/test_cli_bad_input.py."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from connectworker.api import ConfigError
from connectworker.config.connector_config import ConnectorConfig, parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.rest.app import create_app
from connectworker.runtime.herder.herder import StandaloneHerder
from connectworker.runtime.offsets.file_store import FileOffsetStore
from connectworker.runtime.topic_creation.gate import TopicGate
from connectworker.runtime.worker import Worker
from tests.broken_plugins import BROKEN, write_plugin


@pytest.fixture
def plugin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "plugins"
    directory.mkdir()
    monkeypatch.syspath_prepend(str(directory))  # what plugin.path does; undone after the test
    return directory


def _no_gate(config: ConnectorConfig) -> TopicGate:
    raise AssertionError("no connector may start in these tests")


class Client:
    """Requests to the REST app in-process, through its middleware, as a client would see the answers."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app

    def request(self, method: str, path: str, json: Any = None) -> httpx.Response:
        async def send() -> httpx.Response:
            transport = httpx.ASGITransport(app=self.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
                return await client.request(method, path, json=json)

        return asyncio.run(send())

    def get(self, path: str) -> httpx.Response:
        return self.request("GET", path)

    def post(self, path: str, json: Any) -> httpx.Response:
        return self.request("POST", path, json)

    def put(self, path: str, json: Any) -> httpx.Response:
        return self.request("PUT", path, json)


@pytest.fixture
def client(tmp_path: Path) -> Client:
    config = WorkerConfig.from_properties({"offset.storage.file.filename": str(tmp_path / "offsets.json")})
    worker = Worker(config, FileOffsetStore(tmp_path / "offsets.json"), _no_gate)
    return Client(create_app(StandaloneHerder(worker, config)))


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_plugin_is_a_validation_error_on_connector_class(case: str, plugin_dir: Path) -> None:
    source, class_name, expected = BROKEN[case]
    module = write_plugin(plugin_dir, source)

    with pytest.raises(ConfigError) as info:
        parse_connector_config({"name": "c", "connector.class": f"{module}.{class_name}"}, source="c.properties")

    message = info.value.problems["connector.class"]
    assert message.startswith(f"Class {module}.{class_name} ")
    for fragment in expected:
        assert fragment in message, message
    assert "Traceback" not in str(info.value)
    assert str(info.value).startswith("Invalid configuration in c.properties:")


def test_import_and_syntax_errors_name_the_module_file(plugin_dir: Path) -> None:
    for case in ("import raises", "syntax error"):
        source, class_name, _ = BROKEN[case]
        module = write_plugin(plugin_dir, source)
        with pytest.raises(ConfigError) as info:
            parse_connector_config({"name": "c", "connector.class": f"{module}.{class_name}"})
        assert f"{plugin_dir / module}.py" in info.value.problems["connector.class"]


def test_a_fixed_module_is_imported_again(plugin_dir: Path) -> None:
    source, _, _ = BROKEN["syntax error"]
    module = write_plugin(plugin_dir, source)
    with pytest.raises(ConfigError):
        parse_connector_config({"name": "c", "connector.class": f"{module}.Plugin"})
    (plugin_dir / f"{module}.py").write_text(
        "from connectworker.connectors.datagen import DataGenConnector\n\nclass Plugin(DataGenConnector):\n    pass\n"
    )
    assert (
        parse_connector_config({"name": "c", "connector.class": f"{module}.Plugin"}).connector_class.__name__
        == "Plugin"
    )


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_rest_create_answers_400_with_the_reason(case: str, plugin_dir: Path, client: Client) -> None:
    source, class_name, expected = BROKEN[case]
    module = write_plugin(plugin_dir, source)

    response = client.post("/connectors", json={"name": "c", "config": {"connector.class": f"{module}.{class_name}"}})

    assert response.status_code == 400, response.text
    message = response.json()["message"]
    assert f"connector.class: Class {module}.{class_name} " in message
    assert all(fragment in message for fragment in expected), message
    assert client.get("/connectors").json() == []  # nothing was created


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_rest_validate_reports_the_reason_on_connector_class(case: str, plugin_dir: Path, client: Client) -> None:
    source, class_name, expected = BROKEN[case]
    plugin = f"{write_plugin(plugin_dir, source)}.{class_name}"

    response = client.put(f"/connector-plugins/{plugin}/config/validate", json={"name": "c", "connector.class": plugin})

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["error_count"] >= 1
    errors = next(c["value"]["errors"] for c in body["configs"] if c["value"]["name"] == "connector.class")
    assert len(errors) == 1 and all(fragment in errors[0] for fragment in expected), errors


def test_rest_plugin_config_of_a_broken_plugin_is_404_with_the_reason(plugin_dir: Path, client: Client) -> None:
    source, class_name, _ = BROKEN["constructor raises"]
    plugin = f"{write_plugin(plugin_dir, source)}.{class_name}"

    response = client.get(f"/connector-plugins/{plugin}/config")

    assert response.status_code == 404
    assert "its constructor raised ValueError: no licence key found" in response.json()["message"]
