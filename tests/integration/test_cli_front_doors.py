"""`connectworker standalone` with or without its REST door: no connector file (connectors come through
REST only), an empty `listeners=` (no REST at all), and a REST port in use (reported before anything
starts). The herder runs the connectors either way."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.broker import Broker
from tests.integration.harness import wait_until
from tests.integration.test_cli_signals import Cli


@contextmanager
def running(tmp_path: Path, worker: dict[str, str], *connectors: dict[str, str]) -> Iterator[Cli]:
    """The CLI started; on leaving, stopped with SIGTERM (exit 0 required), or killed if the body failed."""
    cli = start(tmp_path, worker, *connectors)
    try:
        yield cli
        cli.proc.send_signal(signal.SIGTERM)
        assert cli.exit_status(timeout=30) == 0, cli.stderr
    finally:
        if cli.proc.poll() is None:
            cli.proc.kill()


def start(tmp_path: Path, worker: dict[str, str], *connectors: dict[str, str]) -> Cli:
    worker_file = tmp_path / "worker.properties"
    worker_file.write_text("".join(f"{k}={v}\n" for k, v in worker.items()))
    files = []
    for i, props in enumerate(connectors):
        path = tmp_path / f"connector-{i}.properties"
        path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        files.append(str(path))
    proc = subprocess.Popen(
        [sys.executable, "-m", "connectworker.cli", "standalone", str(worker_file), *files],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    return Cli(proc)


def datagen(name: str, records: int) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": "DataGen",
        "topic.pattern": name,
        "topic.count": "1",
        "records": str(records),
        "rate": "0",
        "batch.size": "50",
        "format": "string",
    }


def committed(offsets_file: Path, connector: str) -> dict[str, object]:
    if not offsets_file.exists():
        return {}
    stored: dict[str, dict[str, object]] = json.loads(offsets_file.read_text())
    return stored.get(connector, {})


def test_without_connector_files_connectors_come_through_rest(broker: Broker, tmp_path: Path, unique: str) -> None:
    offsets = tmp_path / "offsets.json"
    with running(
        tmp_path,
        {
            "bootstrap.servers": broker.bootstrap_servers,
            "offset.storage.file.filename": str(offsets),
            "listeners": "http://127.0.0.1:0",
            "offset.flush.interval.ms": "200",
        },
    ) as cli:
        url = cli.wait_for(r"REST API listening on (http://127\.0\.0\.1:\d+) ").group(1)
        cli.wait_for(r"Worker running with 0 connector\(s\)")
        name = f"rest-only-{unique}"
        created = httpx.post(f"{url}/connectors", json={"name": name, "config": datagen(name, 200)}, timeout=30)
        assert created.status_code == 201, created.text
        wait_until(lambda: bool(committed(offsets, name)), 30, "offsets of the connector created through REST")
    assert "Traceback" not in cli.stderr


def test_an_empty_listeners_runs_the_connectors_without_rest(broker: Broker, tmp_path: Path, unique: str) -> None:
    offsets, name = tmp_path / "offsets.json", f"no-rest-{unique}"
    with running(
        tmp_path,
        {
            "bootstrap.servers": broker.bootstrap_servers,
            "offset.storage.file.filename": str(offsets),
            "listeners": "",
            "offset.flush.interval.ms": "200",
        },
        datagen(name, 300),
    ) as cli:
        cli.wait_for(r"Worker running with 1 connector\(s\), without REST")
        wait_until(lambda: bool(committed(offsets, name)), 30, "offsets committed without REST")
    assert "listeners is empty: running without the REST API" in cli.stderr
    assert "REST API listening" not in cli.stderr and "Traceback" not in cli.stderr
    assert list(committed(offsets, name).values()) == [{"seq": 300}]  # every record, committed on the way out


def test_a_rest_port_in_use_stops_start_up_before_any_connector_starts(
    broker: Broker, tmp_path: Path, unique: str
) -> None:
    offsets, name = tmp_path / "offsets.json", f"port-taken-{unique}"
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        cli = start(
            tmp_path,
            {
                "bootstrap.servers": broker.bootstrap_servers,
                "offset.storage.file.filename": str(offsets),
                "listeners": f"http://127.0.0.1:{port}",
            },
            datagen(name, 100),
        )
        assert cli.exit_status(timeout=60) == 1, cli.stderr
    assert (
        f"connectworker: The REST API cannot listen on http://127.0.0.1:{port} (from listeners): Address already in use"
    ) in cli.stderr
    assert "Invalid configuration" not in cli.stderr and "Traceback" not in cli.stderr
    assert "Kafka cluster" not in cli.stderr and f"Connector {name}" not in cli.stderr  # nothing started
    assert not offsets.exists()
