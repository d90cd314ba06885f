"""REST request latency on a kept-alive connection, the way every client but curl talks to the worker
(requests.Session, httpx.Client, the kafkaconnect client, a browser): the server as shipped, with Nagle's
algorithm off on its connections, against the same server whose listening socket leaves it on (how it
was bound before: asyncio turns Nagle off only on connections of a socket created as IPPROTO_TCP).

A standalone worker on an embedded Tansu broker runs one DataGen connector; each variant sends the same
requests in turn (GET /connectors, GET a status, PUT pause and resume) over one httpx.Client. Rounds
alternate the variants; the mean milliseconds per request (what a client's series of calls adds up to)
and the median are compared.
Run: `python -m bench.bench_rest_latency [requests] [rounds]`.
"""

from __future__ import annotations

import socket
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from unittest import mock

import httpx

from bench.results import write_section
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.listeners import Listener
from connectworker.config.worker_config import WorkerConfig
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.rest import server as rest_server
from connectworker.rest.server import RestServer
from connectworker.runtime.herder.standalone import StandaloneRuntime

CONNECTOR = "latency"
REQUESTS = (
    ("GET", "/connectors"),
    ("GET", f"/connectors/{CONNECTOR}/status"),
    ("PUT", f"/connectors/{CONNECTOR}/pause"),
    ("PUT", f"/connectors/{CONNECTOR}/resume"),
)


@contextmanager
def nagle_left_on() -> Iterator[None]:
    """The listening socket created without naming its protocol, as before the fix."""

    def bind(listener: Listener, key: str = "listeners") -> socket.socket:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((listener.host, listener.port))
        return sock

    with mock.patch.object(rest_server, "_bind", bind):
        yield


def per_request_ms(url: str, count: int) -> tuple[float, float]:
    """Mean and median milliseconds of one request, over `count` requests cycling through REQUESTS on one
    kept-alive connection."""
    times = []
    with httpx.Client(base_url=url, timeout=30) as client:
        for n in range(count):
            method, path = REQUESTS[n % len(REQUESTS)]
            start = time.perf_counter()
            response = client.request(method, path)
            times.append((time.perf_counter() - start) * 1000)
            response.raise_for_status()
    return statistics.mean(times), statistics.median(times)


def run(bootstrap: str, workdir: Path, count: int, nagle: bool) -> tuple[float, float]:
    config = WorkerConfig.from_properties(
        {
            "bootstrap.servers": bootstrap,
            "offset.storage.file.filename": str(workdir / "offsets.json"),
            "listeners": "http://127.0.0.1:0",
        }
    )
    connector = parse_connector_config(
        {
            "name": CONNECTOR,
            "connector.class": "DataGen",
            "topic.pattern": "latency",
            "topic.count": "1",
            "records": "1000",
            "rate": "100",
        }
    )
    with StandaloneRuntime(config) as runtime, nagle_left_on() if nagle else nullcontext():
        rest = RestServer.for_worker(config)
        assert rest is not None
        server = rest.bind().serve(runtime.start_herder([connector]))
        try:
            return per_request_ms(server.urls[0], count)
        finally:
            server.stop()


def main(count: int = 200, rounds: int = 3) -> None:
    results: dict[str, list[tuple[float, float]]] = {"shipped (Nagle off)": [], "Nagle left on": []}
    with EmbeddedBroker() as broker, tempfile.TemporaryDirectory() as tmp:
        for n in range(rounds):
            for label in results:
                results[label].append(
                    run(
                        broker.bootstrap_servers, Path(tmp) / f"{label[:7]}-{n}", count, nagle=label.startswith("Nagle")
                    )
                )
    rows = [
        "| server | ms/request, mean (median of rounds) | ms/request, median | means by round |",
        "|---|---:|---:|---|",
    ]
    for label, runs in results.items():
        mean = statistics.median(r[0] for r in runs)
        median = statistics.median(r[1] for r in runs)
        rows.append(f"| {label} | {mean:.1f} | {median:.1f} | {', '.join(f'{r[0]:.1f}' for r in runs)} |")
    body = (
        f"{count} requests per variant and round ({', '.join(f'{m} {p}' for m, p in REQUESTS)}, in turn), "
        f"{rounds} rounds, a standalone worker running one DataGen connector on the embedded Tansu "
        f"broker, httpx as the client.\n\n"
        + "\n".join(rows)
        + f"\n\nCommand: `python -m bench.bench_rest_latency {count} {rounds}`"
    )
    write_section("REST latency", body)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
