"""A Spark standalone cluster on loopback, started from the `pyspark` wheel's own `spark-class`: one
master and `workers` workers with one core each, for tests that need executors in processes (and
Python environments) of their own.

Executors' Python is the driver's `PYSPARK_PYTHON` (each Python function carries it); the workers get
the same variable so that what they start runs this interpreter unless a test says otherwise.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pyspark

from connectworker.embedded_broker import free_loopback_port

SPARK_HOME = Path(pyspark.__file__).parent
SPARK_CLASS = SPARK_HOME / "bin" / "spark-class"
EXECUTOR_MAIN = "org.apache.spark.executor.CoarseGrainedExecutorBackend"
START_TIMEOUT_S = 60.0


def children(pid: int) -> list[int]:
    """The PIDs of `pid`'s direct children (from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process ended while we looked
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == pid:
            out.append(int(entry.name))
    return out


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        for child in children(todo.pop()):
            found.append(child)
            todo.append(child)
    return found


def command_line(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def alive(pid: int) -> bool:
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@dataclass
class SparkCluster:
    master_url: str
    master: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]]
    logs: Path

    def executor_pids(self) -> dict[int, list[int]]:
        """Running executor JVMs by worker PID (each worker starts its executors as its descendants)."""
        return {
            w.pid: [p for p in descendants(w.pid) if EXECUTOR_MAIN in command_line(p) and alive(p)]
            for w in self.workers
        }

    def log_tail(self, chars: int = 3000) -> str:
        return "\n".join(
            f"--- {f.name}\n{f.read_text(errors='replace')[-chars:]}" for f in sorted(self.logs.glob("*.log"))
        )


def _start(args: list[str], log: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:  # a file, not a pipe: a full pipe would stall the JVM
        return subprocess.Popen(
            [str(SPARK_CLASS), *args], stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True
        )  # a Ctrl-C of the test run is ours to handle


def _wait_for(proc: subprocess.Popen[bytes], log: Path, text: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while text not in log.read_text(errors="replace"):
        if proc.poll() is not None:
            raise RuntimeError(f"{log.name}: exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"{log.name}: no {text!r} after {START_TIMEOUT_S}s:\n{log.read_text()[-3000:]}")
        time.sleep(0.1)


def stop_process(proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """SIGTERM `proc` (one we started), SIGKILL if it does not end within `timeout`."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextmanager
def spark_cluster(work: Path, workers: int = 2, python: str = sys.executable, cores: int = 1) -> Iterator[SparkCluster]:
    """A master and `workers` workers of `cores` cores each on 127.0.0.1; stopped (workers first) at exit."""
    work.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "SPARK_HOME": str(SPARK_HOME),
        "SPARK_LOCAL_IP": "127.0.0.1",
        "PYSPARK_PYTHON": python,
        "SPARK_LOG_DIR": str(work),
        "SPARK_WORKER_DIR": str(work / "worker"),
    }
    # Executors add their JVM's PYTHONPATH to their Python's: they must see only what their Python
    # has and what the application ships, as on a real cluster.
    env.pop("PYTHONPATH", None)
    port = free_loopback_port()
    url = f"spark://127.0.0.1:{port}"
    master = _start(
        [
            "org.apache.spark.deploy.master.Master",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--webui-port",
            str(free_loopback_port()),
        ],
        work / "master.log",
        env,
    )
    started: list[subprocess.Popen[bytes]] = []
    try:
        _wait_for(master, work / "master.log", "I have been elected leader")
        for n in range(workers):
            log = work / f"worker-{n}.log"
            started.append(
                _start(
                    [
                        "org.apache.spark.deploy.worker.Worker",
                        "--host",
                        "127.0.0.1",
                        "--cores",
                        str(cores),
                        "--memory",
                        "1g",
                        "--webui-port",
                        str(free_loopback_port()),
                        "--work-dir",
                        str(work / f"worker-{n}"),
                        url,
                    ],
                    log,
                    env,
                )
            )
        for n, proc in enumerate(started):
            _wait_for(proc, work / f"worker-{n}.log", "Successfully registered with master")
        yield SparkCluster(url, master, started, work)
    finally:
        for proc in started:
            stop_process(proc)
        stop_process(master)
