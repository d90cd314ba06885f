"""`connectworker standalone` with Kafka's config providers, as an operator runs it: secrets come from a
properties file, the environment and a secrets directory; the connectors produce them to Kafka, while
REST answers, the status page, the connector store and the logs show only the `${...}` references. A
reference that cannot be resolved fails its connector with a message naming it, or, in the worker file,
stops start-up with status 2."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import httpx
import pytest

from tests.broker import Broker
from tests.integration.harness import wait_until
from tests.integration.password_quoting_connectors import PASSWORD_KEY
from tests.integration.test_cli_signals import running_cli, write_properties
from tests.integration.test_cli_standalone import run_cli
from tests.kafka_helpers import consume

KAFKA = "org.apache.kafka.common.config.provider."
SCRIPTED = "tests.integration.scripted_source.ScriptedSource"
QUOTING = "tests.integration.password_quoting_connectors.PasswordQuotingSource"
FILE_SECRET, ENV_SECRET, DIRECTORY_SECRET = "file-S3cret-1", "env-S3cret-2", "dir-S3cret-3"
SECRETS = (FILE_SECRET, ENV_SECRET, DIRECTORY_SECRET)


@pytest.fixture
def secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "secrets"
    (directory / "run").mkdir(parents=True)
    (directory / "db.properties").write_text(f"password={FILE_SECRET}\n")
    (directory / "run" / "token").write_text(DIRECTORY_SECRET)  # as Docker and Kubernetes write them
    monkeypatch.setenv("CW_IT_TOKEN", ENV_SECRET)
    return directory


def _worker(tmp_path: Path, bootstrap: str, secrets: Path, **extra: str) -> Path:
    return write_properties(
        tmp_path / "worker.properties",
        {
            "bootstrap.servers": bootstrap,
            "offset.storage.file.filename": str(tmp_path / "offsets.json"),
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
            "offset.flush.interval.ms": "300",
            "listeners": "http://127.0.0.1:0",
            "config.providers": "file,env,directory",
            "config.providers.file.class": f"{KAFKA}FileConfigProvider",
            "config.providers.file.param.allowed.paths": str(secrets),
            "config.providers.env.class": f"{KAFKA}EnvVarConfigProvider",
            "config.providers.env.param.allowlist.pattern": "CW_IT_.*",
            "config.providers.directory.class": f"{KAFKA}DirectoryConfigProvider",
            **extra,
        },
    )


def test_connectors_receive_the_values_while_rest_the_store_and_the_logs_show_references(
    broker: Broker, tmp_path: Path, secrets: Path, unique: str
) -> None:
    from_file, from_rest, quoting = f"refs-{unique}", f"refs-rest-{unique}", f"quoting-{unique}"
    password = f"${{file:{secrets}/db.properties:password}}"
    values = f"{password},${{env:CW_IT_TOKEN}},${{directory:{secrets}/run:token}}"
    connector = write_properties(
        tmp_path / "refs.properties",
        {"name": from_file, "connector.class": SCRIPTED, "topic": from_file, "values": values, "db.password": password},
    )
    with running_cli(_worker(tmp_path, broker.bootstrap_servers, secrets), connector) as cli:
        url = cli.wait_for(r"REST API listening on (http://127\.0\.0\.1:\d+) ").group(1)
        with httpx.Client(base_url=url, timeout=30) as client:
            rest_config = {"connector.class": SCRIPTED, "topic": from_rest, "values": values}
            assert client.put(f"/connectors/{from_rest}/config", json=rest_config).status_code == 201
            assert (
                client.put(
                    f"/connectors/{quoting}/config", json={"connector.class": QUOTING, PASSWORD_KEY: password}
                ).status_code
                == 201
            )
            for topic in (from_file, from_rest):  # the tasks got the values
                got = sorted(m.value().decode() for m in consume(broker.bootstrap_servers, [topic], 3))
                assert got == sorted(SECRETS)
            wait_until(
                lambda: [t["state"] for t in client.get(f"/connectors/{quoting}/status").json()["tasks"]] == ["FAILED"],
                what=f"{quoting}'s task FAILED",
            )

            shown = client.get(f"/connectors/{from_file}/config").json()
            assert shown["values"] == values and shown["db.password"] == password  # as Kafka shows them
            assert client.get(f"/connectors/{from_rest}/config").json()["values"] == values
            assert client.get(f"/connectors/{from_file}/tasks").json()[0]["config"]["values"] == values
            answers = [
                client.get(path).text
                for path in (
                    "/connectors?expand=status&expand=info",
                    f"/connectors/{from_file}/tasks",
                    f"/connectors/{quoting}/status",
                    "/ui",
                    f"/ui?connector={from_file}",
                )
            ]
            assert "login refused for user admin with password [hidden]" in answers[2]
        cli.proc.send_signal(signal.SIGTERM)
        assert cli.exit_status(timeout=30) == 1  # the quoting connector's task ended FAILED
    store = (tmp_path / "offsets.json.connectors.json").read_text()
    assert json.loads(store)["connectors"][from_rest]["config"]["values"] == values
    assert "login refused for user admin with password [hidden]" in cli.stderr
    for secret in SECRETS:
        for text in (*answers, store, cli.stderr):
            assert secret not in text


def test_an_unresolvable_reference_fails_only_its_connector_naming_the_reference(
    broker: Broker, tmp_path: Path, secrets: Path, unique: str
) -> None:
    missing_key = f"${{file:{secrets}/db.properties:passwd}}"
    outside = f"${{file:{tmp_path}/db.properties:password}}"
    unset = "${env:CW_IT_UNSET}"
    bad = write_properties(
        tmp_path / "bad.properties",
        {
            "name": f"bad-{unique}",
            "connector.class": SCRIPTED,
            "topic": f"bad-{unique}",
            "values": f"{missing_key},{outside}",
            "db.password": unset,
        },
    )
    good = write_properties(
        tmp_path / "good.properties",
        {
            "name": f"good-{unique}",
            "connector.class": SCRIPTED,
            "topic": f"good-{unique}",
            "values": f"${{file:{secrets}/db.properties:password}}",
        },
    )
    with running_cli(_worker(tmp_path, broker.bootstrap_servers, secrets), bad, good) as cli:
        url = cli.wait_for(r"REST API listening on (http://127\.0\.0\.1:\d+) ").group(1)
        got = [m.value().decode() for m in consume(broker.bootstrap_servers, [f"good-{unique}"], 1)]
        assert got == [FILE_SECRET]
        status = httpx.get(f"{url}/connectors/bad-{unique}/status", timeout=30).json()
        cli.proc.send_signal(signal.SIGTERM)
        assert cli.exit_status(timeout=30) == 1
    assert status["connector"]["state"] == "FAILED" and status["tasks"] == []
    trace = status["connector"]["trace"]
    assert (
        f"values: cannot be resolved: {missing_key}: {secrets}/db.properties has no key 'passwd'; {outside}: "
        f"the path {tmp_path}/db.properties is outside the provider's allowed.paths ({secrets})"
    ) in trace
    assert f"db.password: cannot be resolved: {unset}: the environment variable CW_IT_UNSET is not set" in trace
    assert f"Connector bad-{unique} FAILED to start: Invalid configuration in connector bad-{unique}:" in cli.stderr
    assert FILE_SECRET not in trace and FILE_SECRET not in cli.stderr


def test_worker_file_references_that_cannot_be_resolved_stop_start_up_with_status_2(
    tmp_path: Path, secrets: Path
) -> None:
    missing = tmp_path / "missing.properties"
    worker = _worker(
        tmp_path,
        "127.0.0.1:1",
        secrets,
        **{  # never contacted: the config is checked first
            "producer.sasl.password": f"${{file:{missing}:password}}",
            "config.providers": "file,env,directory,vault",
        },
    )
    result = run_cli("standalone", str(worker))
    assert result.returncode == 2
    assert (
        "config.providers.vault.class: missing: config.providers names the provider vault, which needs a class"
    ) in result.stderr

    worker = _worker(
        tmp_path,
        "127.0.0.1:1",
        secrets,
        **{"producer.sasl.password": f"${{file:{secrets}/../missing.properties:password}}"},
    )
    result = run_cli("standalone", str(worker))
    assert result.returncode == 2
    assert (
        f"producer.sasl.password: cannot be resolved: ${{file:{secrets}/../missing.properties:password}}: the "
        f"path {secrets}/../missing.properties is outside the provider's allowed.paths ({secrets})"
    ) in result.stderr
    assert not (tmp_path / "offsets.json").exists()  # nothing started


def test_plan_runs_the_connector_with_the_values_its_worker_resolves(
    tmp_path: Path, secrets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CW_IT_PARTITIONS", "7")
    connector = write_properties(
        tmp_path / "c.properties",
        {
            "name": "planned",
            "connector.class": "DataGen",
            "topic.creation.default.replication.factor": "1",
            "topic.creation.default.partitions": "${env:CW_IT_PARTITIONS}",
        },
    )
    worker = _worker(tmp_path, "embedded", secrets, **{"topic.creation.enable": "true"})  # no cluster asked
    result = run_cli("plan", str(connector), "--worker", str(worker), "--topic", "orders", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)[0]["partitions"] == 7

    monkeypatch.delenv("CW_IT_PARTITIONS")
    result = run_cli("plan", str(connector), "--worker", str(worker), "--topic", "orders")
    assert result.returncode == 2
    assert (
        "topic.creation.default.partitions: cannot be resolved: ${env:CW_IT_PARTITIONS}: the environment "
        "variable CW_IT_PARTITIONS is not set"
    ) in result.stderr
