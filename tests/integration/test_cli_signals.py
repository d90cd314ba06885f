"""`connectworker standalone` and its signals, as an operator at a terminal meets them: one Ctrl-C after a
REST call stops an idle worker cleanly; during a slow stop the second Ctrl-C says what is awaited and the
third exits at once; and the exit status says whether a task ended FAILED."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.broker import Broker

# A connector whose one task, by its `mode`, idles politely, ignores stop() for two minutes, or fails.
SOURCE = '''
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
        return ConfigDef().define("mode", ConfigType.STRING, "idle")

    def start(self, props):
        self.props = dict(props)

    def task_class(self):
        return Task

    def task_configs(self, max_tasks):
        return [dict(self.props)]

    def stop(self):
        pass
'''


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
def standalone(tmp_path: Path, broker: Broker, mode: str, unique: str, **worker: str) -> Iterator[Cli]:
    plugins = tmp_path / "plugins"
    plugins.mkdir()
    (plugins / f"signal_source_{unique}.py").write_text(SOURCE)
    props = {"bootstrap.servers": broker.bootstrap_servers, "offset.storage.file.filename": str(tmp_path / "o.json"),
             "plugin.path": str(plugins), **worker}
    if "rest.port" not in props:
        props["listeners"] = "http://127.0.0.1:0"
    worker_file = tmp_path / "worker.properties"
    worker_file.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    connector = tmp_path / "connector.properties"
    connector.write_text(f"name={mode}-{unique}\nconnector.class=signal_source_{unique}.Source\nmode={mode}\n")
    proc = subprocess.Popen([sys.executable, "-m", "connectworker.cli", "standalone", str(worker_file), str(connector)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        yield Cli(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


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
        broker: Broker, tmp_path: Path, unique: str) -> None:
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


def test_a_task_that_ended_failed_makes_the_exit_status_1(broker: Broker, tmp_path: Path, unique: str) -> None:
    with standalone(tmp_path, broker, "fail", unique) as cli:
        cli.wait_for(rf"Task fail-{unique}-0 FAILED: the source went away")
        cli.proc.send_signal(signal.SIGTERM)
        assert cli.exit_status(timeout=30) == 1, cli.stderr
    assert f"Exiting with status 1: task fail-{unique}-0 ended FAILED" in cli.stderr
    assert "Traceback" not in cli.stderr
