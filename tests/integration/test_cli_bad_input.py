"""`connectworker standalone` refuses bad input before anything starts: exit status 2, a message naming
the file (or variable) and the key, and no traceback. No broker is needed: nothing gets that far."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.broken_plugins import BROKEN, write_plugin


def run_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "connectworker.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
    )


def write_worker(tmp_path: Path, **extra: str) -> Path:
    props = {
        "bootstrap.servers": "127.0.0.1:1",
        "offset.storage.file.filename": str(tmp_path / "offsets.json"),
        "listeners": "http://127.0.0.1:0",
        **extra,
    }
    path = tmp_path / "worker.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


def write_connector(tmp_path: Path, name: str, connector_class: str) -> Path:
    path = tmp_path / f"{name}.properties"
    path.write_text(f"name={name}\nconnector.class={connector_class}\n")
    return path


def assert_refused(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr


def test_every_broken_plugin_is_named_with_its_file_and_reason(tmp_path: Path) -> None:
    plugins = tmp_path / "plugins"
    worker = write_worker(tmp_path, **{"plugin.path": str(plugins)})
    files = {}
    for i, (case, (source, class_name, expected)) in enumerate(sorted(BROKEN.items())):
        module = write_plugin(plugins, source)
        files[case] = (write_connector(tmp_path, f"c{i}", f"{module}.{class_name}"), module, expected)

    err = assert_refused(run_cli("standalone", str(worker), *(str(f) for f, _, _ in files.values())))

    for path, module, expected in files.values():
        assert f"Invalid configuration in {path}:\n  connector.class: Class {module}." in err
        assert all(fragment in err for fragment in expected), (expected, err)
    assert not (tmp_path / "offsets.json").exists()  # nothing started


def test_an_offsets_path_the_worker_cannot_write_is_refused_at_start_up(tmp_path: Path) -> None:
    connector = write_connector(tmp_path, "gen", "DataGen")
    (tmp_path / "a-file").write_text("not a directory")
    worker = write_worker(tmp_path, **{"offset.storage.file.filename": str(tmp_path / "a-file" / "offsets.json")})
    err = assert_refused(run_cli("standalone", str(worker), str(connector)))
    assert (
        f"Invalid configuration in {worker}:\n  offset.storage.file.filename: cannot write the offsets file: "
        f"{tmp_path / 'a-file'} is a regular file, not a directory" in err
    )

    (tmp_path / "a-dir").mkdir()
    worker = write_worker(tmp_path, **{"offset.storage.file.filename": str(tmp_path / "a-dir")})
    err = assert_refused(run_cli("standalone", str(worker), str(connector)))
    assert f"offset.storage.file.filename: cannot write the offsets file: {tmp_path / 'a-dir'} is a directory" in err


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux's /proc")
def test_an_offsets_path_under_proc_is_refused_before_anything_starts(tmp_path: Path) -> None:
    """Root may write anywhere as far as os.access can tell, /proc included: the probe finds out. Before
    it, the connector ran and the failure was a traceback at shutdown."""
    connector = write_connector(tmp_path, "gen", "DataGen")
    # an embedded broker would be started (and a reachable cluster contacted) if the check came later
    worker = write_worker(
        tmp_path, **{"offset.storage.file.filename": "/proc/offsets.json", "bootstrap.servers": "embedded"}
    )
    err = assert_refused(run_cli("standalone", str(worker), str(connector)))
    naming = [line for line in err.splitlines() if "offset.storage.file.filename" in line]
    assert naming == [
        "  offset.storage.file.filename: cannot write the offsets file or the connector store beside "
        "it: creating a file in /proc failed: No such file or directory (errno 2)"
    ], err
    assert err.startswith(f"connectworker: Invalid configuration in {worker}:\n"), err
    assert "Connector gen" not in err and "Task gen-0" not in err and "Tansu" not in err, err


def test_connector_names_no_url_can_address_are_refused_naming_each_file(tmp_path: Path) -> None:
    dots, encoded = write_connector(tmp_path, "dots", "DataGen"), write_connector(tmp_path, "encoded", "DataGen")
    dots.write_text("name=..\nconnector.class=DataGen\n")
    encoded.write_text("name=%2E.\nconnector.class=DataGen\n")
    err = assert_refused(run_cli("standalone", str(write_worker(tmp_path)), str(dots), str(encoded)))
    assert (
        f"Invalid configuration in {dots}:\n  name: Invalid value '..' for configuration name: Connector name "
        f"'..' is illegal, it cannot be '.' or '..': a URL path drops such a segment"
    ) in err
    assert (
        f"Invalid configuration in {encoded}:\n  name: Invalid value '%2E.' for configuration name: Connector "
        f"name '%2E.' (it decodes to '..') is illegal"
    ) in err
    assert not (tmp_path / "offsets.json").exists()  # nothing started


def test_a_bad_environment_value_is_blamed_on_its_variable(tmp_path: Path) -> None:
    connector = write_connector(tmp_path, "gen", "DataGen")
    err = assert_refused(
        run_cli(
            "standalone", str(write_worker(tmp_path)), str(connector), env={"CONNECT_OFFSET_FLUSH_INTERVAL_MS": "abc"}
        )
    )
    assert (
        "Invalid configuration in the environment:\n  CONNECT_OFFSET_FLUSH_INTERVAL_MS (sets "
        "offset.flush.interval.ms): Invalid value 'abc' for configuration offset.flush.interval.ms: Not a number of "
        "type LONG" in err
    )
    assert "worker.properties" not in err


def test_an_unknown_log_level_lists_the_allowed_ones(tmp_path: Path) -> None:
    connector = write_connector(tmp_path, "gen", "DataGen")
    err = assert_refused(run_cli("--log-level", "VERBOSE", "standalone", str(write_worker(tmp_path)), str(connector)))
    assert "argument --log-level: invalid level 'VERBOSE'; allowed: TRACE, DEBUG, INFO" in err


def test_connector_files_asking_for_more_tasks_than_the_worker_allows_are_refused_naming_tasks_max(
    tmp_path: Path,
) -> None:
    worker = write_worker(tmp_path, **{"worker.tasks.max": "4"})
    small, big = write_connector(tmp_path, "small", "DataGen"), write_connector(tmp_path, "big", "DataGen")
    with big.open("a") as f:
        f.write("tasks.max=100000\n")
    err = assert_refused(run_cli("standalone", str(worker), str(small), str(big)))
    assert (
        "connector 'big': tasks.max: 100000 is more tasks than this worker lets one connector run: at most 4 "
        "(the worker's worker.tasks.max)"
    ) in err
    assert "'small'" not in err
    assert not (tmp_path / "offsets.json").exists()  # nothing started


def test_client_security_and_override_policy_problems_are_refused_at_start_up(tmp_path: Path) -> None:
    connector = tmp_path / "gen.properties"
    connector.write_text("name=gen\nconnector.class=DataGen\nproducer.override.linger.ms=20\n")
    worker = write_worker(tmp_path, **{"connector.client.config.override.policy": "None"})
    err = assert_refused(run_cli("standalone", str(worker), str(connector)))
    assert (
        f"Invalid configuration in {connector}:\n  producer.override.linger.ms: The 'None' policy does not "
        f"allow 'linger.ms' to be overridden in the connector configuration."
    ) in err

    worker = write_worker(
        tmp_path,
        **{
            "security.protocol": "SASL_SSL",
            "sasl.mechanism": "PLAIN",
            "sasl.jaas.config": 'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" '
            'password="the-password"',
        },
    )
    err = assert_refused(run_cli("standalone", str(worker)))
    assert (
        f"Invalid configuration in {worker}:\n  sasl.jaas.config: JAAS config entry not terminated by semi-colon"
    ) in err
    assert "the-password" not in err
    assert not (tmp_path / "offsets.json").exists()  # nothing started


@pytest.mark.parametrize(
    ("extra", "key", "fragment"),
    [
        ({"listeners": "ftp://127.0.0.1:8083"}, "listeners", "is not http://host:port or https://host:port"),
        ({"listeners": "https://127.0.0.1:8443"}, "listeners.https.ssl.certfile", "needs a PEM certificate"),
        ({"rest.basic.auth.credentials.file": "EMPTY"}, "rest.basic.auth.credentials.file", "nobody could log in"),
    ],
)
def test_rest_listeners_and_credentials_are_refused_with_the_worker_file(
    tmp_path: Path, extra: dict[str, str], key: str, fragment: str
) -> None:
    """Read with the worker file: refused naming the file and the key, before any connector file is read
    (the connector named here does not exist, and is not the one blamed)."""
    if extra.get("rest.basic.auth.credentials.file") == "EMPTY":
        (tmp_path / "credentials.properties").write_text("# nobody yet\n")
        extra = {"rest.basic.auth.credentials.file": str(tmp_path / "credentials.properties")}
    worker = write_worker(tmp_path, **extra)
    err = assert_refused(run_cli("standalone", str(worker), str(tmp_path / "missing.properties")))
    assert f"Invalid configuration in {worker}:\n  {key}: " in err and fragment in err, err
    assert "missing.properties" not in err
    assert not (tmp_path / "offsets.json").exists()  # nothing started


def test_standalone_without_arguments_asks_for_the_worker_file_only() -> None:
    result = run_cli("standalone")
    assert result.returncode == 2
    assert result.stderr.strip().endswith("error: the following arguments are required: worker")


def test_a_misspelt_topic_config_in_a_rule_stops_start_up_and_plan_naming_the_key_and_the_known_one(
    tmp_path: Path,
) -> None:
    connector = write_connector(tmp_path, "eu", "DataGen")
    with connector.open("a") as out:
        out.write(
            "topic.pattern=eu-orders\ntopic.creation.default.replication.factor=1\n"
            "topic.creation.default.partitions=3\ntopic.creation.groups=eu\n"
            "topic.creation.eu.include=eu-.*\ntopic.creation.eu.partitons=6\n"
        )
    worker = write_worker(tmp_path, **{"topic.creation.enable": "true"})
    for result in (
        run_cli("standalone", str(worker), str(connector)),
        run_cli("plan", str(connector), "--topic", "eu-orders"),
    ):
        err = assert_refused(result)
        assert (
            "topic.creation.eu.partitons: 'partitons' is neither a setting of the group nor a topic config Apache "
            "Kafka defines. Did you mean topic.creation.eu.partitions?"
        ) in err
    assert not (tmp_path / "offsets.json").exists()  # nothing started
