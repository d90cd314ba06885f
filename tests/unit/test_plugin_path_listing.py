"""`GET /connector-plugins` lists the connectors found on `plugin.path` next to the built-ins, as Kafka's
plugin scanner does; a module there that cannot be imported is skipped with a WARN naming it."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from connectworker import plugins
from connectworker.config.worker_config import WorkerConfig
from connectworker.rest.app import create_app
from connectworker.runtime.herder.herder import StandaloneHerder
from connectworker.runtime.offsets.file_store import FileOffsetStore
from connectworker.runtime.worker import Worker
from tests.unit.test_bad_plugins import Client, _no_gate

CONNECTOR = """
from connectworker.api import ConfigDef, SourceConnector, SourceTask


class {name}Task(SourceTask):
    def version(self):
        return "2.0"

    def start(self, props):
        pass

    def poll(self):
        return None

    def stop(self):
        pass


class {name}(SourceConnector):
    def version(self):
        return "2.0"

    def config_def(self):
        return ConfigDef()

    def start(self, props):
        pass

    def task_class(self):
        return {name}Task

    def task_configs(self, max_tasks):
        return [{{}}]

    def stop(self):
        pass
"""


@pytest.fixture
def plugin_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    directory = tmp_path / "plugins"
    (directory / "listedpkg").mkdir(parents=True)
    (directory / "listed_module.py").write_text(CONNECTOR.format(name="ModuleSource"))
    (directory / "listedpkg" / "__init__.py").write_text("")
    (directory / "listedpkg" / "sources.py").write_text(CONNECTOR.format(name="PackagedSource"))
    (directory / "listed_broken.py").write_text("raise RuntimeError('no database driver')\n")
    monkeypatch.setattr(plugins, "_plugin_paths", [])
    plugins.add_plugin_paths([str(directory)])
    yield directory
    sys.path.remove(str(directory))
    for name in [m for m in sys.modules if m.startswith(("listed_", "listedpkg"))]:
        del sys.modules[name]


def test_connectors_on_plugin_path_are_listed_and_a_broken_module_is_named(
    plugin_path: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = WorkerConfig.from_properties({"offset.storage.file.filename": str(tmp_path / "offsets.json")})
    client = Client(
        create_app(StandaloneHerder(Worker(config, FileOffsetStore(tmp_path / "o.json"), _no_gate), config))
    )
    with caplog.at_level(logging.WARNING, logger="connectworker.plugins"):
        response = client.get("/connector-plugins")
    assert response.status_code == 200
    listed = {plugin["class"]: plugin for plugin in response.json()}
    assert listed["listed_module.ModuleSource"] == {
        "class": "listed_module.ModuleSource",
        "type": "source",
        "version": "2.0",
    }
    assert "listedpkg.sources.PackagedSource" in listed
    assert any(name.endswith("DataGenConnector") for name in listed)  # the built-ins stay
    assert not any(name.startswith("listed_broken") for name in listed)
    assert (
        f"plugin.path {plugin_path}: module listed_broken cannot be imported (RuntimeError: no database "
        f"driver" in caplog.text
    )


def test_a_built_in_java_named_plugin_answers_to_its_simple_and_pruned_names_as_in_kafka() -> None:
    from connectworker.plugins import resolve_connector_class

    postgres = resolve_connector_class("io.debezium.connector.postgresql.PostgresConnector")
    assert resolve_connector_class("PostgresConnector") is postgres and resolve_connector_class("Postgres") is postgres
    mysql = resolve_connector_class("io.debezium.connector.mysql.MySqlConnector")
    assert resolve_connector_class("MySqlConnector") is mysql and resolve_connector_class("MySql") is mysql
    jdbc = resolve_connector_class("io.confluent.connect.jdbc.JdbcSourceConnector")
    assert resolve_connector_class("JdbcSourceConnector") is jdbc and resolve_connector_class("JdbcSource") is jdbc
