"""What an operator reads and scrapes: JSON log lines naming connector, task and topic; one line per
lifecycle change; a progress line only while there is progress; `metrics.listener` serving metrics
without the REST API (and a busy port refused by name)."""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.broker import Broker
from tests.integration.harness import running_worker, wait_committed, wait_until, worker_config
from tests.integration.test_cli_standalone import run_cli, write_worker


def _written(metrics_url: str, connector: str) -> float:
    text = httpx.get(metrics_url, timeout=10).text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == "connectworker_source_record_write_total" and sample.labels.get("connector") == connector:
                return sample.value
    return -1


def test_json_logs_and_metrics_listener_without_rest(broker: Broker, tmp_path: Path, unique: str) -> None:
    name, topic = f"json-{unique}", f"json-{unique}"
    worker = write_worker(
        tmp_path,
        broker.bootstrap_servers,
        listeners="",
        **{"metrics.listener": "http://127.0.0.1:0", "log.format": "json", "topic.creation.enable": "true"},
    )
    connector = tmp_path / "gen.properties"
    connector.write_text(
        f"name={name}\nconnector.class=DataGen\ntopic.pattern={topic}\ntopic.count=1\n"
        "records=300\nrate=0\ntopic.creation.default.partitions=1\n"
        "topic.creation.default.replication.factor=1\n"
    )
    # stderr goes to a file, read whole at the end: a pipe read line by line and then by communicate()
    # loses what the line reader had buffered (communicate reads the raw descriptor)
    log_file = tmp_path / "stderr.log"
    with log_file.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "connectworker.cli", "standalone", str(worker), str(connector)],
            stderr=stderr,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    try:
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            assert process.poll() is None, f"the worker exited early: {log_file.read_text()}"
            if match := re.search(r"Prometheus metrics at (http://\S+/metrics)", log_file.read_text()):
                url = match.group(1)
            else:
                time.sleep(0.05)
        assert url is not None and url.startswith("http://127.0.0.1:")
        wait_until(lambda: _written(url, name) == 300, 60, "the metrics endpoint to count 300 records")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
    lines = log_file.read_text().splitlines()
    assert process.returncode == 0, lines
    entries = [json.loads(line) for line in lines if line.strip()]  # every line is one JSON object
    assert all({"time", "level", "logger", "message"} <= entry.keys() for entry in entries)
    started = [e for e in entries if e["message"] == f"Task {name}-0 started"]
    assert started and started[0]["connector"] == name and started[0]["task"] == 0
    created = [e for e in entries if e["message"].startswith(f"Created topic {topic} ")]
    assert created and created[0]["topic"] == topic and created[0]["connector"] == name
    assert any(e["message"] == "listeners is empty: running without the REST API" for e in entries)


def test_a_busy_metrics_port_stops_start_up_naming_the_key(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        worker = write_worker(tmp_path, "127.0.0.1:1", listeners="", **{"metrics.listener": f"http://127.0.0.1:{port}"})
        result = run_cli("standalone", str(worker))
    assert result.returncode == 1
    assert (
        f"Metrics cannot listen on http://127.0.0.1:{port} (from metrics.listener): Address already in use"
        in result.stderr
    )


def test_a_malformed_metrics_listener_or_log_format_is_refused_by_key(tmp_path: Path) -> None:
    worker = write_worker(tmp_path, "127.0.0.1:1", **{"metrics.listener": "127.0.0.1:9464"})
    result = run_cli("standalone", str(worker))
    assert result.returncode == 2 and "metrics.listener" in result.stderr and "is not http://host:port" in result.stderr
    worker = write_worker(tmp_path, "127.0.0.1:1", **{"log.format": "xml"})
    result = run_cli("standalone", str(worker))
    assert result.returncode == 2 and "log.format" in result.stderr and "'text'" in result.stderr


def test_pause_and_resume_log_one_line_per_connector_and_task_and_idle_tasks_stay_quiet(
    broker: Broker, tmp_path: Path, unique: str, caplog: pytest.LogCaptureFixture
) -> None:
    name = f"life-{unique}"
    config = worker_config(broker.bootstrap_servers, tmp_path, **{"offset.flush.interval.ms": "100"})
    connector = {
        "name": name,
        "connector.class": "DataGen",
        "topic.pattern": name,
        "topic.count": "1",
        "records": "100",
        "rate": "0",
        "tasks.max": "2",
    }
    caplog.set_level(logging.INFO)
    with running_worker(config, connector) as runtime:
        worker = runtime.worker
        assert worker is not None
        wait_committed(worker, name, 200)
        time.sleep(0.3)  # a commit interval or two after the last record
        progress = [r for r in caplog.records if "committed offsets of" in r.getMessage()]
        time.sleep(1.0)  # ten commit intervals of an idle task
        assert [r for r in caplog.records if "committed offsets of" in r.getMessage()] == progress
        caplog.clear()
        worker.pause_connector(name)
        worker.resume_connector(name)
        lines = [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]
    assert [line for line in lines if "paused" in line or "resumed" in line] == [
        f"Connector {name} paused: its 2 task(s) stop polling (records in flight are still delivered and committed)",
        f"Task {name}-0 paused",
        f"Task {name}-1 paused",
        f"Connector {name} resumed",
        f"Task {name}-0 resumed",
        f"Task {name}-1 resumed",
    ]


def test_log_format_flag_wins_over_the_worker_file_and_covers_the_last_error(tmp_path: Path) -> None:
    worker = write_worker(tmp_path, "127.0.0.1:1", **{"log.format": "text", "bootstrap.timeout.ms": "500"})
    result = run_cli("--log-format", "json", "standalone", str(worker))
    assert result.returncode == 1
    entries = [json.loads(line) for line in result.stderr.splitlines() if line.strip()]
    assert entries[-1]["level"] == "ERROR" and "bootstrap.servers" in entries[-1]["message"]
