"""`connectworker standalone` and its signals, as an operator at a terminal meets them: one Ctrl-C after a
REST call stops an idle worker cleanly; during a slow stop the second Ctrl-C says what is awaited and the
third exits at once; the exit status says whether a task ended FAILED; a stop while start-up waits for
an unreachable cluster ends the wait at once (128 + the signal); and a stop while the cluster is gone
at run time ends within the bound, saying which offsets were not committed (status 3)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from connectworker.embedded_broker import free_loopback_port
from tests.broker import Broker
from tests.integration.numbered_records import assert_none_lost, consume_keys
from tests.tcp_proxy import ProxiedBroker

# A connector whose one task, by its `mode`, idles politely, ignores stop() for two minutes, or fails.
SOURCE = """
import threading
import time

from connectworker.api import ConfigDef, ConfigType, SourceConnector, SourceTask


class Task(SourceTask):
    def version(self):
        return "test"

    def start(self, props):
        self.mode = props["mode"]
        self.stopped = threading.Event()

    def poll(self):
        if self.mode == "fail":
            raise RuntimeError("the source went away")
        if self.mode == "stuck":
            time.sleep(120)  # deaf to stop(): the worker must wait for it
        self.stopped.wait(0.2)
        return None

    def stop(self):
        self.stopped.set()


class Source(SourceConnector):
    def version(self):
        return "test"

    def config_def(self):
        return ConfigDef().define("mode", ConfigType.STRING, "idle").define("tasks", ConfigType.INT, 1)

    def start(self, props):
        self.props = dict(props)

    def task_class(self):
        return Task

    def task_configs(self, max_tasks):
        return [dict(self.props) for _ in range(int(self.props.get("tasks", "1")))]

    def stop(self):
        pass
"""


class Cli:
    """A running `connectworker standalone`, its stderr collected line by line."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line)

    @property
    def stderr(self) -> str:
        return "".join(self.lines)

    def wait_for(self, pattern: str, timeout: float = 60) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = re.search(pattern, self.stderr)
            if found:
                return found
            if self.proc.poll() is not None:
                self._reader.join(5)
                found = re.search(pattern, self.stderr)
                if found:
                    return found
                raise AssertionError(f"exited with {self.proc.returncode} before {pattern!r}:\n{self.stderr}")
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} within {timeout}s:\n{self.stderr}")

    def exit_status(self, timeout: float) -> int:
        status = self.proc.wait(timeout)
        self._reader.join(5)
        return status


@contextmanager
def running_cli(worker: Path, *connectors: Path, command: str = "standalone") -> Iterator[Cli]:
    """`connectworker COMMAND WORKER CONNECTOR...` in a process of its own, killed if still running."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "connectworker.cli", command, str(worker), *(str(c) for c in connectors)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        yield Cli(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def write_properties(path: Path, props: dict[str, str]) -> Path:
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    return path


@contextmanager
def standalone(tmp_path: Path, broker: Broker, mode: str, unique: str, tasks: int = 1, **worker: str) -> Iterator[Cli]:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / f"signal_source_{unique}.py").write_text(SOURCE)
    props = {
        "bootstrap.servers": broker.bootstrap_servers,
        "offset.storage.file.filename": str(tmp_path / "o.json"),
        "plugin.path": str(plugins),
        **worker,
    }
    if "rest.port" not in props:
        props["listeners"] = "http://127.0.0.1:0"
    worker_file = write_properties(tmp_path / "worker.properties", props)
    connector = tmp_path / "connector.properties"
    connector.write_text(
        f"name={mode}-{unique}\nconnector.class=signal_source_{unique}.Source\nmode={mode}\n"
        f"tasks={tasks}\ntasks.max={tasks}\n"
    )
    with running_cli(worker_file, connector) as cli:
        yield cli


def test_one_sigint_after_a_rest_call_stops_an_idle_worker(broker: Broker, tmp_path: Path, unique: str) -> None:
    # Kafka's rest.port (without listeners) places the API; port 0 picks a free one.
    with standalone(tmp_path, broker, "idle", unique, **{"rest.port": "0"}) as cli:
        url = cli.wait_for(r"REST API listening on (http://127\.0\.0\.1:\d+) ").group(1)
        cli.wait_for(r"Worker running")
        assert httpx.get(f"{url}/connectors", timeout=30).json() == [f"idle-{unique}"]
        cli.proc.send_signal(signal.SIGINT)
        assert cli.exit_status(timeout=30) == 0, cli.stderr
    assert "SIGINT received: stopping gracefully" in cli.stderr
    assert "Worker stopped" in cli.stderr and "Traceback" not in cli.stderr


def test_during_a_slow_stop_the_second_sigint_says_what_is_awaited_and_the_third_exits(
    broker: Broker, tmp_path: Path, unique: str
) -> None:
    with standalone(tmp_path, broker, "stuck", unique, **{"task.shutdown.graceful.timeout.ms": "120000"}) as cli:
        cli.wait_for(rf"Task stuck-{unique}-0 started")
        cli.proc.send_signal(signal.SIGINT)
        cli.wait_for(r"Stopping 1 task\(s\)")
        cli.proc.send_signal(signal.SIGINT)
        cli.wait_for(rf"still stopping, waiting for task\(s\) stuck-{unique}-0 to stop")
        cli.proc.send_signal(signal.SIGINT)
        assert cli.exit_status(timeout=30) == 130, cli.stderr
    assert "SIGINT received a third time: exiting at once with status 130" in cli.stderr
    assert "Traceback" not in cli.stderr


def logged_at(line: str) -> datetime:
    """The time of a log line (`[2026-01-31 12:00:00,123] INFO ...`)."""
    return datetime.strptime(line[1:24], "%Y-%m-%d %H:%M:%S,%f")


def test_stuck_tasks_share_one_stop_bound_instead_of_adding_theirs_up(
    broker: Broker, tmp_path: Path, unique: str
) -> None:
    """Four tasks deaf to stop(): the worker gives up on all of them once task.shutdown.graceful.timeout.ms
    + offset.flush.timeout.ms passed, not after four times that."""
    graceful_ms, flush_ms = 2000, 1000
    with standalone(
        tmp_path,
        broker,
        "stuck",
        unique,
        tasks=4,
        **{"task.shutdown.graceful.timeout.ms": str(graceful_ms), "offset.flush.timeout.ms": str(flush_ms)},
    ) as cli:
        for task in range(4):
            cli.wait_for(rf"Task stuck-{unique}-{task} started")
        cli.proc.send_signal(signal.SIGTERM)
        assert cli.exit_status(timeout=60) == 0, cli.stderr  # they had produced nothing: nothing uncommitted
    lines = cli.stderr.splitlines()
    stopping = next(line for line in lines if "Stopping 4 task(s)" in line)
    abandoned = [line for line in lines if "did not stop within task.shutdown.graceful.timeout.ms" in line]
    assert len(abandoned) == 4, cli.stderr
    waited = (logged_at(abandoned[-1]) - logged_at(stopping)).total_seconds()
    # one bound (3 s) for all four, with a second for a loaded machine; four bounds would be 12 s
    assert waited < (graceful_ms + flush_ms) / 1000 + 1.0, cli.stderr
    assert "Traceback" not in cli.stderr


def test_a_task_that_ended_failed_makes_the_exit_status_1(broker: Broker, tmp_path: Path, unique: str) -> None:
    with standalone(tmp_path, broker, "fail", unique) as cli:
        cli.wait_for(rf"Task fail-{unique}-0 FAILED: the source went away")
        cli.proc.send_signal(signal.SIGTERM)
        assert cli.exit_status(timeout=30) == 1, cli.stderr
    assert f"Exiting with status 1: task fail-{unique}-0 ended FAILED" in cli.stderr
    assert "Traceback" not in cli.stderr


# -- a stop while start-up waits for an unreachable cluster -----------------------------------------

GRACEFUL_MS = 3000  # task.shutdown.graceful.timeout.ms of these workers
MARGIN_S = 20.0  # interpreter start-up and teardown on a loaded 2-core machine, on top of the bound


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_while_start_up_waits_for_an_unreachable_cluster_exits_at_once_with_128_plus_the_signal(
    tmp_path: Path, sig: signal.Signals
) -> None:
    servers = f"127.0.0.1:{free_loopback_port()}"  # closed: every connection is refused
    offsets = tmp_path / "offsets.json"
    worker = write_properties(
        tmp_path / "worker.properties",
        {
            "bootstrap.servers": servers,
            "bootstrap.timeout.ms": "600000",
            "offset.storage.file.filename": str(offsets),
            "listeners": "http://127.0.0.1:0",
            "task.shutdown.graceful.timeout.ms": str(GRACEFUL_MS),
        },
    )
    connector = write_properties(tmp_path / "gen.properties", {"name": "gen", "connector.class": "DataGen"})
    with running_cli(worker, connector) as cli:
        cli.wait_for(r"bootstrap check: .*Connection refused")  # the check is waiting
        cli.proc.send_signal(sig)
        # bootstrap.timeout.ms is 10 minutes: an exit within this bound proves the wait was cut short
        assert cli.exit_status(timeout=GRACEFUL_MS / 1000 + MARGIN_S) == 128 + sig.value, cli.stderr
    err = cli.stderr
    assert (
        f"Stopped during start-up, while waiting for the Kafka cluster at bootstrap.servers={servers} to "
        f"answer: no connector was started. Exiting with status {128 + sig.value}"
    ) in err
    assert "Traceback" not in err and "Cannot reach the Kafka cluster" not in err, err
    assert "Connector gen" not in err and "Task gen-0" not in err
    assert not offsets.exists()


# -- a stop while the cluster is gone at run time ---------------------------------------------------

FLUSH_MS = 2000  # offset.flush.timeout.ms of this worker


def test_a_stop_while_the_cluster_is_gone_exits_within_the_bound_naming_the_uncommitted_offsets(
    proxied_broker: ProxiedBroker, tmp_path: Path, unique: str
) -> None:
    topic, offsets = f"cut-{unique}", tmp_path / "offsets.json"
    worker = write_properties(
        tmp_path / "worker.properties",
        {
            "bootstrap.servers": proxied_broker.bootstrap_servers,
            "offset.storage.file.filename": str(offsets),
            "listeners": "",
            "offset.flush.interval.ms": "300",
            "offset.flush.timeout.ms": str(FLUSH_MS),
            "task.shutdown.graceful.timeout.ms": str(GRACEFUL_MS),
            "key.converter": "org.apache.kafka.connect.storage.StringConverter",
            "value.converter": "org.apache.kafka.connect.storage.StringConverter",
        },
    )
    connector = write_properties(
        tmp_path / "count.properties",
        {
            "name": "count",
            "connector.class": "tests.integration.counting_source.CountingSource",
            "topic": topic,
            "records": "100000000",
            "batch.size": "10",
            "poll.pause.ms": "20",
        },
    )
    with running_cli(worker, connector) as cli:
        cli.wait_for(r"Task count-0 committed offsets of \d+ records")  # producing, the topic exists
        proxied_broker.proxy.cut()
        cli.wait_for(r"Task count-0: Kafka cluster unreachable since")
        time.sleep(1)  # records pile up unacknowledged
        cli.proc.send_signal(signal.SIGTERM)
        # the task's graceful stop and final flush (Worker.stop's bound), and the process around them
        assert cli.exit_status(timeout=(GRACEFUL_MS + FLUSH_MS) / 1000 + MARGIN_S) == 3, cli.stderr
    err = cli.stderr
    assert "Traceback" not in err, err
    warning = cli.wait_for(
        r"Task count-0 stopped with the offsets of (\d+) record\(s\) not committed; those records "
        r"are produced again after a restart \(at least once\)\. Kafka did not acknowledge \d+ of "
        rf"them within offset\.flush\.timeout\.ms \({FLUSH_MS} ms\): source partition "
        r'\{"counter":0\} stays at \{"next":(\d+)\} \(not committed: up to \{"next":(\d+)\}\)\.'
    )
    uncommitted, stays, up_to = (int(g) for g in warning.groups())
    assert uncommitted > 0 and up_to == stays + uncommitted, warning.group(0)
    assert f"Exiting with status 3: the offsets of {uncommitted} record(s) of task count-0 were not committed" in err, (
        err
    )
    # what is on disk is what the warning said stays committed, and Kafka holds every record before it
    assert json.loads(offsets.read_text())["count"]['{"counter":0}'] == {"next": stays}
    proxied_broker.proxy.restore()
    assert_none_lost(consume_keys(proxied_broker.bootstrap_servers, topic, stays), stays)
