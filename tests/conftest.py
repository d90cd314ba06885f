from __future__ import annotations

import itertools
import os
import sys
import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka.admin import AdminClient

from tests.broker import Broker, running_broker
from tests.postgres import Postgres, running_postgres
from tests.tcp_proxy import ProxiedBroker, proxied_embedded_broker

# Every JVM the tests start (Spark's drivers, executors, standalone masters and workers) lives for seconds
# and runs little of its own code: JIT-compiling only with C1 and one GC thread cuts the CPU a Spark
# session costs to start by about 40 % (12 -> 7 CPU-seconds measured), which the suite pays some twenty
# times on two cores. `java` reads JDK_JAVA_OPTIONS itself; a value the environment sets already is kept.
os.environ.setdefault("JDK_JAVA_OPTIONS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")

# With PYTHONDONTWRITEBYTECODE set (some images and CI runners set it), nothing caches compiled code:
# every xdist worker rewrites and compiles all test modules again (10 s of CPU instead of 5), and every
# `connectworker` process a test starts compiles the package from source (0.6 s instead of 0.4). The tests
# write their bytecode (to the git-ignored __pycache__ folders): this process, and what it starts.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under xdist, the modules holding tests marked `long` start first, one share each, heaviest first,
    and the other tests come after them.

    `--dist worksteal` hands each worker a contiguous share of the collection (equal counts, in order)
    and lets an idle worker steal the back half of the busiest share. So this lays the collection out
    as those shares: the modules holding long tests dealt heaviest first to the share with the least
    long work, each share opening with them, then the other tests in collection order. What is left
    at the end is short tests, which stealing balances; no worker runs a long test alone while the
    others idle. Without xdist the order stays as collected."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers > 1:
        items[:] = [item for share in _shares(items, workers) for item in share]


def _shares(items: list[pytest.Item], workers: int) -> list[list[pytest.Item]]:
    sizes = []
    left = len(items)
    for n in range(workers, 0, -1):  # the counts xdist's first hand-out gives each worker
        sizes.append(left // n)
        left -= sizes[-1]
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    # A module with long tests goes whole to one share, in its own order: its module and session
    # fixtures (a Spark cluster, a SparkSession) then start once, not once per worker it lands on.
    units = [tests for tests in modules.values() if any(map(_long_seconds, tests))]
    shares: list[list[pytest.Item]] = [[] for _ in sizes]
    load = [0.0] * len(sizes)
    for unit in sorted(units, key=lambda u: -sum(map(_long_seconds, u))):
        fits = [n for n in range(len(shares)) if sizes[n] - len(shares[n]) >= len(unit)]
        target = min(fits or range(len(shares)), key=lambda n: load[n])
        shares[target].extend(unit)
        load[target] += sum(map(_long_seconds, unit))
    placed = {id(item) for share in shares for item in share}
    short = iter([item for item in items if id(item) not in placed])
    for n, share in enumerate(shares):
        share.extend(itertools.islice(short, max(0, sizes[n] - len(share))))
    shares[-1].extend(short)  # only if a unit overfilled its share: nothing is ever dropped
    return shares


def _long_seconds(item: pytest.Item) -> float:
    """A `long` test's expected run time on a loaded 2-core machine (`@pytest.mark.long(seconds=…)`);
    0 for the rest."""
    marker = item.get_closest_marker("long")
    return float(marker.kwargs.get("seconds", 30)) if marker is not None else 0.0


@pytest.fixture(scope="session")
def broker() -> Iterator[Broker]:
    with running_broker() as b:
        yield b


@pytest.fixture(autouse=True)
def _skip_apache_only(request: pytest.FixtureRequest) -> None:
    marker = request.node.get_closest_marker("requires_apache_kafka")
    if marker is None:
        return
    b: Broker = request.getfixturevalue("broker")
    if b.is_tansu:
        reason = marker.args[0] if marker.args else "needs Apache Kafka broker-side behaviour"
        pytest.skip(f"Tansu test broker: {reason}")


@pytest.fixture
def admin(broker: Broker) -> AdminClient:
    return AdminClient({"bootstrap.servers": broker.bootstrap_servers, "allow.auto.create.topics": False})


@pytest.fixture
def unique() -> str:
    """A short unique suffix for topic and connector names, so tests never share state."""
    return uuid.uuid4().hex[:10]


@pytest.fixture
def proxied_broker() -> Iterator[ProxiedBroker]:
    """An embedded broker reached only through a TCP proxy the test can cut (tests/tcp_proxy.py)."""
    with proxied_embedded_broker() as proxied:
        yield proxied


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """A PostgreSQL server for this test process (see tests/postgres.py)."""
    with running_postgres() as server:
        yield server
