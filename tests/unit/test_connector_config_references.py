"""References in connector configs, through the Worker and the herder over a fake task runner: the
connector and its tasks receive the values, resolved again at each (re)start; what is kept, stored and
shown is the reference; a reference that cannot be resolved fails the connector (or the task) with a
message naming it, never the value."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from connectworker.api.config_def import ConfigDef, ConfigType
from connectworker.api.connector import SourceConnector
from connectworker.api.errors import ConfigError
from connectworker.api.task import SourceTask
from connectworker.config.connector_config import ConnectorConfig, parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.herder.connector_store import ConnectorStore
from connectworker.runtime.herder.herder import StandaloneHerder
from connectworker.runtime.observability.log_redaction import SecretRedactor
from connectworker.runtime.observability.secrets import hide
from connectworker.runtime.offsets.file_store import FileOffsetStore
from connectworker.runtime.status import State
from connectworker.runtime.worker import Worker
from tests.integration.harness import wait_until
from tests.unit.fake_runner import FakeRunner, SplitTask

SECRET = "s3cr3t-Pa55word"
ROTATED = "r0tated-Pa55word"
started_with: list[dict[str, str]] = []


class SecretConnector(SourceConnector):
    """Declares a password and an INT; its one task config copies the connector's config."""

    def version(self) -> str:
        return "1"

    def config_def(self) -> ConfigDef:
        return ConfigDef().define("db.password", ConfigType.PASSWORD, "").define("batch", ConfigType.INT, 1)

    def start(self, props: dict[str, str]) -> None:
        started_with.append(dict(props))
        self.props = props

    def task_class(self) -> type[SourceTask]:
        return SplitTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{**self.props, "share": "0/1"}]

    def stop(self) -> None:
        pass


@pytest.fixture
def secrets_dir(tmp_path: Path) -> Path:
    directory = tmp_path / "secrets"
    directory.mkdir()
    (directory / "db.properties").write_text(f"password={SECRET}\nbatch=50\nbad.batch=abc\n")
    return directory


@pytest.fixture
def worker_config(tmp_path: Path, secrets_dir: Path) -> WorkerConfig:
    return WorkerConfig.from_properties(
        {
            "offset.storage.file.filename": str(tmp_path / "offsets.json"),
            "config.providers": "file",
            "config.providers.file.class": "FileConfigProvider",
            "config.providers.file.param.allowed.paths": str(secrets_dir),
        }
    )


@pytest.fixture
def runner() -> FakeRunner:
    return FakeRunner()


@pytest.fixture
def worker(tmp_path: Path, worker_config: WorkerConfig, runner: FakeRunner) -> Iterator[Worker]:
    w = Worker(worker_config, FileOffsetStore(tmp_path / "offsets.json"), lambda _: None, runner=runner)  # type: ignore[arg-type,return-value]
    yield w
    w.stop()


def _props(secrets_dir: Path, **extra: str) -> dict[str, str]:
    return {
        "name": "db",
        "connector.class": f"{__name__}.SecretConnector",
        "db.password": f"${{file:{secrets_dir}/db.properties:password}}",
        "batch": f"${{file:{secrets_dir}/db.properties:batch}}",
        **extra,
    }


def _config(worker: Worker, props: dict[str, str]) -> ConnectorConfig:
    return parse_connector_config(props, providers=worker.resolver.providers)


def test_the_connector_and_its_tasks_receive_the_values_the_worker_keeps_the_references(
    worker: Worker, runner: FakeRunner, secrets_dir: Path
) -> None:
    props = _props(secrets_dir)
    started_with.clear()
    worker.start_connector(_config(worker, props))
    assert started_with[-1]["db.password"] == SECRET and started_with[-1]["batch"] == "50"
    spec = runner.started[-1].spec
    assert spec.props["db.password"] == SECRET and spec.props["share"] == "0/1"
    assert spec.config.props["db.password"] == SECRET  # converters, overrides… read the resolved config
    running = worker.get("db")
    assert running.config.props == props  # kept as written
    assert running.task_configs == [{**props, "share": "0/1"}]  # the copied values put back as references
    assert worker.resolver.values() >= {SECRET, "50"}
    worker.remove_connector("db")
    assert worker.resolver.values() == frozenset()


def test_a_restart_reads_the_values_again(worker: Worker, runner: FakeRunner, secrets_dir: Path) -> None:
    worker.start_connector(_config(worker, _props(secrets_dir)))
    (secrets_dir / "db.properties").write_text(f"password={ROTATED}\nbatch=60\n")
    started_with.clear()
    worker.restart_connector("db")
    assert started_with[-1]["db.password"] == ROTATED and runner.started[-1].spec.props["db.password"] == ROTATED
    (secrets_dir / "db.properties").write_text(f"password={SECRET}\nbatch=70\n")
    worker.restart_task("db", 0)
    assert runner.started[-1].spec.props["db.password"] == SECRET
    assert runner.started[-1].spec.config.props["batch"] == "70"


@pytest.mark.parametrize(
    ("reference", "problem"),
    [
        (
            "${file:<dir>/missing.properties:password}",
            "cannot read the properties file <dir>/missing.properties: No such file or directory",
        ),
        ("${file:<dir>/db.properties:passwd}", "<dir>/db.properties has no key 'passwd'"),
        (
            "${file:<dir>/../elsewhere.properties:password}",
            "the path <dir>/../elsewhere.properties is outside the provider's allowed.paths (<dir>)",
        ),
    ],
)
def test_an_unresolvable_reference_fails_the_connector_naming_it(
    worker: Worker, secrets_dir: Path, reference: str, problem: str
) -> None:
    reference, problem = reference.replace("<dir>", str(secrets_dir)), problem.replace("<dir>", str(secrets_dir))
    config = _config(worker, _props(secrets_dir, **{"db.password": reference}))  # accepted: it fails when it starts
    worker.start_connector(config)
    state, trace = worker.get("db").status.snapshot()
    assert state is State.FAILED and trace is not None
    assert f"Invalid configuration in connector db:\n  db.password: cannot be resolved: {reference}: {problem}" in trace
    assert SECRET not in trace


def test_a_resolved_value_the_connector_refuses_fails_it_naming_the_reference(
    worker: Worker, secrets_dir: Path
) -> None:
    config = _config(worker, _props(secrets_dir))
    bad = f"${{file:{secrets_dir}/db.properties:bad.batch}}"
    worker.start_connector(ConnectorConfig(**{**config.__dict__, "props": {**config.props, "batch": bad}}))
    state, trace = worker.get("db").status.snapshot()
    assert state is State.FAILED and trace is not None
    assert f"batch: Invalid value '{bad}'" in trace and "'abc'" not in trace


def test_a_task_restarted_after_its_secret_vanished_fails_naming_the_reference(
    worker: Worker, secrets_dir: Path
) -> None:
    worker.start_connector(_config(worker, _props(secrets_dir)))
    (secrets_dir / "db.properties").unlink()
    worker.restart_task("db", 0)
    state, trace = worker.get("db").tasks[0].status.snapshot()
    assert state is State.FAILED and trace is not None
    assert f"cannot be resolved: ${{file:{secrets_dir}/db.properties:password}}: cannot read" in trace


def test_validation_uses_the_resolved_values_and_names_the_references(worker: Worker, secrets_dir: Path) -> None:
    config = _config(worker, _props(secrets_dir))
    assert config.props["batch"].startswith("${file:")
    bad = f"${{file:{secrets_dir}/db.properties:bad.batch}}"
    with pytest.raises(ConfigError) as caught:
        _config(worker, _props(secrets_dir, batch=bad))
    assert caught.value.problems["batch"].startswith(f"Invalid value '{bad}' for configuration batch")
    assert "abc" not in str(caught.value)
    with pytest.raises(ConfigError) as without_providers:  # as written, "${file:...}" is no integer
        parse_connector_config(_props(secrets_dir))
    assert "batch" in without_providers.value.problems


def test_through_the_herder_the_store_and_the_shown_config_hold_references_and_logs_hide_values(
    tmp_path: Path, worker: Worker, worker_config: WorkerConfig, secrets_dir: Path
) -> None:
    store_path = tmp_path / "connectors.json"
    redactor = SecretRedactor()
    herder = StandaloneHerder(worker, worker_config, store=ConnectorStore(store_path), redactor=redactor)
    herder.start([])
    herder.close()  # its supervisor (automatic restarts, rates) is not needed here
    props = _props(secrets_dir)
    herder.create("db", props)  # started in the background
    wait_until(lambda: worker.get("db").status.snapshot()[0] is State.RUNNING, what="connector db RUNNING")
    assert started_with[-1]["db.password"] == SECRET
    stored = json.loads(store_path.read_text())
    assert SECRET not in store_path.read_text()
    assert stored["connectors"]["db"]["config"] == props
    assert hide(worker.get("db").config.props)["db.password"] == props["db.password"]  # Kafka shows the reference
    assert hide({**props, "db.password": SECRET})["db.password"] == "[hidden]"
    assert herder.redact(f"login failed for {SECRET}") == "login failed for [hidden]"
    assert herder.redact(f"see {props['db.password']}") == f"see {props['db.password']}"


def test_a_key_whose_reference_fails_when_the_config_is_read_is_checked_when_the_connector_starts(
    worker: Worker, secrets_dir: Path
) -> None:
    missing = f"${{file:{secrets_dir}/gone.properties:n}}"
    config = _config(worker, _props(secrets_dir, batch=missing, **{"tasks.max": missing}))
    assert config.tasks_max == 1 and config.props["tasks.max"] == missing  # the default until it resolves
    worker.start_connector(config)
    state, trace = worker.get("db").status.snapshot()
    assert state is State.FAILED and trace is not None and f"tasks.max: cannot be resolved: {missing}" in trace


def test_the_connector_class_must_resolve_when_the_config_is_read(worker: Worker, secrets_dir: Path) -> None:
    missing = f"${{file:{secrets_dir}/gone.properties:class}}"
    with pytest.raises(ConfigError) as caught:
        _config(worker, _props(secrets_dir, **{"connector.class": missing}))
    assert caught.value.problems["connector.class"].startswith(f"cannot be resolved: {missing}: cannot read")


def test_tasks_max_from_a_provider_is_read_again_at_each_start(
    worker: Worker, secrets_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (secrets_dir / "tasks.properties").write_text("max=1\n")
    config = _config(worker, _props(secrets_dir, **{"tasks.max": f"${{file:{secrets_dir}/tasks.properties:max}}"}))
    asked: list[int] = []
    original = SecretConnector.task_configs

    def recording(self: SecretConnector, max_tasks: int) -> list[dict[str, str]]:
        asked.append(max_tasks)
        return original(self, max_tasks)

    monkeypatch.setattr(SecretConnector, "task_configs", recording)
    worker.start_connector(config)
    (secrets_dir / "tasks.properties").write_text("max=3\n")
    worker.restart_connector("db")
    assert asked == [1, 3]
