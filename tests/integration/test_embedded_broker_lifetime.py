"""The embedded broker ends with its worker: `kill -9` of `connectworker standalone` with
`bootstrap.servers=embedded` leaves no Tansu process behind and frees its port (within 2 s); Ctrl-C
stops the worker, then the broker, and says so."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from connectworker.child_processes import DIES_WITH_PARENT
from tests.integration.test_cli_signals import Cli
from tests.process_checks import children_of, wait_ended

pytestmark = pytest.mark.skipif(not DIES_WITH_PARENT, reason="PR_SET_PDEATHSIG is Linux's")


def port_is_free(port: int) -> bool:
    """Nothing listens on `port`, and a server may listen there again. With SO_REUSEADDR, as servers
    bind (Tansu too): the connections the killed broker had leave TIME_WAIT entries on the port for a
    minute, which only a bind without it trips over."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        if probe.connect_ex(("127.0.0.1", port)) == 0:
            return False
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
            sock.listen()
        except OSError:
            return False
    return True


@contextmanager
def worker_on_embedded_broker(tmp_path: Path) -> Iterator[tuple[Cli, int, int]]:
    """`connectworker standalone` with `bootstrap.servers=embedded` and a DataGen connector, once it
    committed offsets through its broker: the command, its broker's port and the broker's pid. Whatever
    the test did, neither is left running."""
    worker = tmp_path / "worker.properties"
    worker.write_text(
        f"bootstrap.servers=embedded\noffset.storage.file.filename={tmp_path / 'offsets.json'}\n"
        f"listeners=\noffset.flush.interval.ms=500\n"
    )
    connector = tmp_path / "gen.properties"
    connector.write_text("name=gen\nconnector.class=DataGen\nrate=100\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "connectworker.cli", "standalone", str(worker), str(connector)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    cli = Cli(proc)
    tansu: list[int] = []
    try:
        port = int(cli.wait_for(r"Embedded Tansu broker listening on 127\.0\.0\.1:(\d+)").group(1))
        cli.wait_for(r"Task gen-0 committed offsets")  # running, producing through the broker
        tansu = [pid for pid in children_of(proc.pid) if "tansu" in Path(f"/proc/{pid}/cmdline").read_text()]
        assert len(tansu) == 1, children_of(proc.pid)
        assert not port_is_free(port)
        yield cli, port, tansu[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pid in tansu:  # never leave it behind, even when the test failed
            if wait_ended(pid, 0) is None:
                with contextlib.suppress(ProcessLookupError):  # it may end between the look and the kill
                    os.kill(pid, signal.SIGKILL)


def test_kill_9_of_the_worker_ends_its_embedded_broker_and_frees_its_port(tmp_path: Path) -> None:
    with worker_on_embedded_broker(tmp_path) as (cli, port, tansu):
        cli.proc.send_signal(signal.SIGKILL)
        assert cli.exit_status(timeout=10) == -signal.SIGKILL
        took = wait_ended(tansu, 2.0)
        assert took is not None, f"Tansu (pid {tansu}) still runs 2 s after its worker was killed"
        assert port_is_free(port)


def test_ctrl_c_stops_the_worker_then_its_embedded_broker_and_says_so(tmp_path: Path) -> None:
    """How long the broker's end takes is measured by `bench.bench_task_start` (no timing asserted here)."""
    with worker_on_embedded_broker(tmp_path) as (cli, port, tansu):
        cli.proc.send_signal(signal.SIGINT)
        assert cli.exit_status(timeout=60) == 0, cli.stderr
        assert wait_ended(tansu, 0) is not None, f"Tansu (pid {tansu}) outlived its worker's graceful exit"
        assert port_is_free(port)
        said = cli.stderr
        worker_stopped = said.index("Worker stopped")
        broker_stopped = said.index(
            f"Embedded Tansu broker on 127.0.0.1:{port} stopped; it kept its records in memory only"
        )
        assert worker_stopped < broker_stopped, said
