"""`connectworker standalone` as an operator runs it: bad files are refused before anything starts,
a corrupt offsets file stops start-up, and SIGTERM mid-run flushes and commits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from confluent_kafka.admin import AdminClient

from connectworker.runtime.offsets.file_store import partition_key
from tests.broker import Broker
from tests.integration.test_cli_signals import running_cli
from tests.kafka_helpers import consume, delete_topics


def run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "connectworker.cli", *args],
        capture_output=True,
        stdin=subprocess.DEVNULL,  # no terminal, as in CI: nothing waits for a prompt's answer
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )


def write_worker(tmp_path: Path, bootstrap: str, **extra: str) -> Path:
    props = {
        "bootstrap.servers": bootstrap,
        "offset.storage.file.filename": str(tmp_path / "offsets.json"),
        "key.converter": "org.apache.kafka.connect.storage.StringConverter",
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        "offset.flush.interval.ms": "300",
        "listeners": "http://127.0.0.1:0",
        **extra,
    }
    path = tmp_path / "worker.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


def test_bad_connector_files_exit_non_zero_naming_each_file_and_key(tmp_path: Path) -> None:
    worker = write_worker(tmp_path, "127.0.0.1:1")  # never contacted: validation comes first
    no_name = tmp_path / "no-name.properties"
    no_name.write_text("connector.class=FileStreamSource\ntopic=t\n")
    unknown = tmp_path / "unknown.json"
    unknown.write_text(json.dumps({"name": "u", "config": {"connector.class": "NoSuchConnector"}}))
    bad_values = tmp_path / "bad.json"
    bad_values.write_text(
        json.dumps(
            {"name": "b", "connector.class": "DataGen", "tasks.max": "zero", "topic.creation.default.partitions": "0"}
        )
    )

    result = run_cli("standalone", str(worker), str(no_name), str(unknown), str(bad_values))

    assert result.returncode == 2
    err = result.stderr
    assert f"Invalid configuration in {no_name}" in err and "name: Missing required configuration" in err
    assert f"Invalid configuration in {unknown}" in err and "NoSuchConnector could not be found" in err
    assert f"Invalid configuration in {bad_values}" in err
    assert "tasks.max: Invalid value 'zero'" in err
    assert "topic.creation.default.partitions" in err
    assert "topic.creation.default.replication.factor" in err  # required once topic.creation.* is used
    assert not (tmp_path / "offsets.json").exists()  # nothing started


def test_missing_offsets_file_key_and_corrupt_offsets_file_stop_start_up(tmp_path: Path) -> None:
    connector = tmp_path / "c.properties"
    connector.write_text("name=c\nconnector.class=DataGen\n")
    worker = tmp_path / "w.properties"
    worker.write_text("bootstrap.servers=127.0.0.1:1\n")
    result = run_cli("standalone", str(worker), str(connector))
    assert result.returncode == 2
    assert (
        "offset.storage.file.filename: required unless offset.storage.topic and config.storage.topic" in result.stderr
    )

    worker = write_worker(tmp_path, "127.0.0.1:1")
    (tmp_path / "offsets.json").write_text('{"c": {"[\\"broken')
    result = run_cli("standalone", str(worker), str(connector))
    assert result.returncode == 1
    assert "offsets file" in result.stderr and "corrupt" in result.stderr and "Refusing to start" in result.stderr
    assert (tmp_path / "offsets.json").read_text() == '{"c": {"[\\"broken'  # left untouched


def test_sigterm_mid_run_flushes_and_commits_a_gap_free_prefix(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    worker = write_worker(tmp_path, broker.bootstrap_servers, **{"offset.flush.interval.ms": "60000"})
    topic = f"sigterm-{unique}"
    connector = tmp_path / "gen.properties"
    connector.write_text(
        f"name=gen-{unique}\nconnector.class=DataGen\ntopic.pattern={topic}\ntopic.count=1\n"
        "rate=2000\nbatch.size=100\nformat=string\n"
    )
    with running_cli(worker, connector) as cli:
        # Up and producing: its signal handlers are in place, and records are in flight or delivered. The
        # flush interval is 60 s, so only the shutdown commit can write offsets.
        cli.wait_for(rf"Task gen-{unique}-0 runs in a task process")
        assert consume(broker.bootstrap_servers, [topic], 1), f"no record reached {topic}:\n{cli.stderr}"
        cli.proc.send_signal(signal.SIGTERM)
        assert cli.exit_status(timeout=60) == 0, cli.stderr
    committed = json.loads((tmp_path / "offsets.json").read_text())[f"gen-{unique}"][partition_key({"task": 0})]
    seq = committed["seq"]
    assert seq > 0
    keys = {m.key().decode() for m in consume(broker.bootstrap_servers, [topic], seq)}
    assert {str(i) for i in range(seq)} <= keys  # everything up to the committed offset is in Kafka
    delete_topics(admin, [topic])
