"""Soak: does a worker managed through REST for a long time stay the same size?

Runs `connectworker standalone` (embedded broker, REST on a free loopback port) with no connector, and
first creates and deletes a DataGen connector (`tasks.max=1`) `--bare-cycles` times (default 30: POST,
1.5 s, DELETE, 1 s), as an orchestrator would: the threads of the worker and of its task processes are
counted after each delete (a connector's leftovers show there, with nothing else running to hide them).
Then it creates the demo connector at a modest rate, polls `GET /connectors?expand=status` every second,
and creates and deletes one DataGen connector every 10 s, for `--minutes` (default 10). The worker's RSS
and thread count are sampled from /proc every 5 s. Reported: the threads after each bare cycle against
those after the first (target: equal), RSS after the first minute against the end (target: within 5 %),
and the thread count after each delete against the baseline.

    python -m bench.bench_soak [--minutes 10] [--bare-cycles 30]

Everything runs on loopback; the loops are bounded by the duration, and only the worker this
starts (and its children) is stopped.
"""

from __future__ import annotations

import argparse
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.results import write_section


@dataclass
class Sample:
    seconds: float
    rss_mb: float
    threads: int


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def sample(pid: int, started: float) -> Sample:
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return Sample(time.monotonic() - started, int(fields["VmRSS"].split()[0]) / 1024, int(fields["Threads"]))


def children_of(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found.extend(int(child) for child in (task / "children").read_text().split())
        except FileNotFoundError:  # that thread ended meanwhile
            continue
    return found


def worker_threads(pid: int) -> int:
    """The threads of the worker and of the processes under it that run tasks (the embedded broker's
    own threads are the broker's business, and not counted)."""
    total, pending = 0, [pid]
    while pending:
        current = pending.pop()
        try:
            if Path(f"/proc/{current}/comm").read_text().strip() == "tansu":
                continue
            total += len(list(Path(f"/proc/{current}/task").iterdir()))
            pending.extend(children_of(current))
        except FileNotFoundError:  # ended meanwhile
            continue
    return total


def bare_cycles(client: httpx.Client, pid: int, cycles: int) -> list[int]:
    """Create and delete a one-task DataGen connector `cycles` times with nothing else running; the
    threads of the worker and its task processes after each delete."""
    after: list[int] = []
    for cycle in range(cycles):
        name = f"bare-{cycle}"
        created = client.post("/connectors", json={"name": name, "config": {**datagen(name), "tasks.max": "1"}})
        assert created.status_code == 201, created.text
        time.sleep(1.5)
        assert client.delete(f"/connectors/{name}").status_code == 204
        time.sleep(1.0)
        after.append(worker_threads(pid))
    return after


def datagen(name: str) -> dict[str, str]:
    return {
        "connector.class": "DataGen",
        "topic.pattern": f"{name}.{{region}}",
        "topic.count": "3",
        "rate": "200",
        "format": "string",
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--bare-cycles", type=int, default=30)
    args = parser.parse_args(argv)
    port = free_port()
    samples: list[Sample] = []
    after_delete: list[int] = []
    bare: list[int] = []
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as work:
        worker = Path(work) / "worker.properties"
        worker.write_text(
            f"bootstrap.servers=embedded\noffset.storage.file.filename={work}/offsets.json\n"
            f"listeners=http://127.0.0.1:{port}\ntopic.creation.enable=true\n"
        )
        demo = Path(work) / "demo.properties"
        demo.write_text(
            "name=demo\nconnector.class=DataGen\ntopic.pattern=orders.{region}\ntopic.count=3\n"
            "rate=500\nformat=string\ntopic.creation.default.partitions=3\n"
            "topic.creation.default.replication.factor=1\n"
        )
        log = (Path(work) / "worker.log").open("w")
        proc = subprocess.Popen(
            [sys.executable, "-m", "connectworker.cli", "standalone", str(worker)],
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if client.get("/connectors").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError("the worker did not start")
                time.sleep(0.2)
            bare = bare_cycles(client, proc.pid, args.bare_cycles)
            demo_config = dict(
                line.split("=", 1) for line in demo.read_text().splitlines() if "=" in line and line != "name=demo"
            )
            assert client.post("/connectors", json={"name": "demo", "config": demo_config}).status_code == 201
            started = time.monotonic()
            end = started + args.minutes * 60
            cycle, next_sample = 0, started
            while time.monotonic() < end:
                tick = time.monotonic()
                if cycle % 10 == 0:
                    name = f"soak-{cycle // 10}"
                    created = client.post("/connectors", json={"name": name, "config": datagen(name)})
                    assert created.status_code == 201, created.text
                elif cycle % 10 == 8:
                    name = f"soak-{cycle // 10}"
                    assert client.delete(f"/connectors/{name}").status_code == 204
                elif cycle % 10 == 9:
                    after_delete.append(sample(proc.pid, started).threads)
                assert client.get("/connectors", params={"expand": "status"}).status_code == 200
                if tick >= next_sample:
                    samples.append(sample(proc.pid, started))
                    next_sample += 5
                cycle += 1
                time.sleep(max(0.0, 1.0 - (time.monotonic() - tick)))
        finally:
            client.close()
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            log.close()
    command = "python -m bench.bench_soak " + " ".join(argv if argv is not None else sys.argv[1:])
    write_section("soak", report(samples, after_delete, bare, command.strip()))


def report(samples: list[Sample], after_delete: list[int], bare: list[int], command: str) -> str:
    """`after_delete`: the threads after each delete; the first is the baseline (the demo connector's
    task and the worker's own threads, with nothing else running)."""
    first_minute = next((s for s in samples if s.seconds >= 60), samples[0])
    last = samples[-1]
    growth = (last.rss_mb - first_minute.rss_mb) / first_minute.rss_mb
    baseline_threads = after_delete[0] if after_delete else 0
    over = [t for t in after_delete if t > baseline_threads]
    rows = [f"| {s.seconds:.0f} | {s.rss_mb:.1f} | {s.threads} |" for s in samples[:: max(1, len(samples) // 12)]]
    bare_over = [t for t in bare if bare and t > bare[0]]
    return "\n".join(
        [
            f"`{command}`. First, with no other connector: {len(bare)} cycles of POST a one-task DataGen "
            f"connector, 1.5 s, DELETE, 1 s. Threads of the worker and its task processes after each delete: "
            f"{', '.join(map(str, bare))} (**{len(bare_over)}** of {len(bare)} above the first; target 0).",
            "",
            f"Then the demo connector (500 rec/s), `GET /connectors?expand=status` every second, one DataGen "
            f"connector created and deleted every 10 s ({len(after_delete)} lifecycles); the worker's RSS and "
            f"threads sampled every 5 s.",
            "",
            f"RSS after the first minute {first_minute.rss_mb:.1f} MB, at the end ({last.seconds:.0f} s) "
            f"{last.rss_mb:.1f} MB: **{growth:+.1%}** (target: within 5 %). Threads after each delete: "
            f"{min(after_delete, default=0)} to {max(after_delete, default=0)} against {baseline_threads} after the "
            f"first ({len(over)} of {len(after_delete)} above it).",
            "",
            "| seconds | RSS MB | threads |",
            "|---:|---:|---:|",
            *rows,
        ]
    )


if __name__ == "__main__":
    main()
