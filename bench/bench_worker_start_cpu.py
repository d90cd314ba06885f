"""The CPU a `connectworker standalone` start costs, and what the task processes' fork server adds to it.

Each round runs the command line with `bootstrap.servers=embedded` and no connector, waits for "Worker
running", reads the CPU seconds (user + system) of the worker's process and of its fork server from
/proc, and stops it with SIGTERM. Beside it, in the same run, the CPU of a fork server spawned afresh
(`python -m connectworker.runtime.runners.fork_server`, as a worker with threads starts it): an
interpreter that imports the task runtime. The command line forks its server from itself before it
reads its files, so the server costs nothing of the kind.
Run: `python -m bench.bench_worker_start_cpu [rounds]`.
"""

from __future__ import annotations

import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.results import write_section
from connectworker.runtime.runners.fork_server import SERVER_NAME

HZ = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def fork_server_of(pid: int) -> int:
    for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        if Path(f"/proc/{child}/comm").read_text().strip() == SERVER_NAME:
            return int(child)
    raise RuntimeError(f"worker {pid} has no child named {SERVER_NAME}")


def worker_round(workdir: Path) -> tuple[float, float, float]:
    """(worker CPU s, fork server CPU s, seconds to "Worker running") of one command-line start."""
    worker = workdir / "worker.properties"
    worker.write_text(f"bootstrap.servers=embedded\nlisteners=\noffset.storage.file.filename={workdir}/offsets\n")
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "connectworker.cli", "standalone", str(worker)],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    )
    assert proc.stderr is not None
    try:
        for line in proc.stderr:
            if b"Worker running" in line:
                break
        else:
            raise RuntimeError(f"the worker exited with status {proc.wait()} before it ran")
        ready = time.monotonic() - started
        figures = cpu_s(proc.pid), cpu_s(fork_server_of(proc.pid)), ready
        proc.send_signal(signal.SIGTERM)
        proc.stderr.read()
        proc.wait(30)
        return figures
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def spawned_server_cpu_s() -> float:
    """CPU of an interpreter importing what a spawned fork server imports (then exiting)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", "import connectworker.runtime.runners.fork_server"], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(rounds: int = 5) -> None:
    workers, forked, ready, spawned = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(rounds):
            worker_s, server_s, ready_s = worker_round(Path(tmp))
            workers.append(worker_s)
            forked.append(server_s)
            ready.append(ready_s)
            spawned.append(spawned_server_cpu_s())

    def cells(values: list[float]) -> str:
        return f"{statistics.median(values):.2f} | {', '.join(f'{v:.2f}' for v in values)}"

    write_section(
        "Worker start CPU",
        f"`python -m bench.bench_worker_start_cpu {rounds}`: `connectworker standalone` with "
        '`bootstrap.servers=embedded`, no connector, until "Worker running"; CPU seconds (user + system) '
        "from /proc.\n\n| | median | each round |\n|---|---:|---|\n"
        f"| worker process, CPU s | {cells(workers)} |\n"
        f"| its fork server (forked from the worker), CPU s | {cells(forked)} |\n"
        f"| a fork server spawned afresh (interpreter + imports), CPU s | {cells(spawned)} |\n"
        f'| start to "Worker running", s | {cells(ready)} |\n',
    )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:2]))
