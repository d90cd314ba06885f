"""Soak: does a worker managed through REST for a long time stay the same size?

Runs `connectworker standalone` (embedded broker, REST on a free loopback port) with the demo
connector at a modest rate, polls `GET /connectors?expand=status` every second, and creates and
deletes one DataGen connector every 10 s, for `--minutes` (default 10). The worker's RSS and thread
count are sampled from /proc every 5 s. Reported: RSS after the first minute against the end
(target: within 5 %), and the thread count after each delete against the baseline.

    python -m bench.bench_soak [--minutes 10]

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
    args = parser.parse_args(argv)
    port = free_port()
    samples: list[Sample] = []
    after_delete: list[int] = []
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
            [sys.executable, "-m", "connectworker.cli", "standalone", str(worker), str(demo)],
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
    write_section("soak", report(samples, after_delete, command.strip()))


def report(samples: list[Sample], after_delete: list[int], command: str) -> str:
    """`after_delete`: the threads after each delete; the first is the baseline (the demo connector's
    task and the worker's own threads, with nothing else running)."""
    first_minute = next((s for s in samples if s.seconds >= 60), samples[0])
    last = samples[-1]
    growth = (last.rss_mb - first_minute.rss_mb) / first_minute.rss_mb
    baseline_threads = after_delete[0] if after_delete else 0
    over = [t for t in after_delete if t > baseline_threads]
    rows = [f"| {s.seconds:.0f} | {s.rss_mb:.1f} | {s.threads} |" for s in samples[:: max(1, len(samples) // 12)]]
    return "\n".join(
        [
            f"`{command}`: the demo connector (500 rec/s), `GET /connectors?expand=status` every second, one DataGen "
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
