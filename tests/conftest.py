from __future__ import annotations

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


DEFAULT_TIMEOUT_S = 300
"""pytest-timeout's bound for one test (setup and teardown included): a hang fails that test by name. A
`long` test gets four times its expected seconds, if that is more."""


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which names each test's group in its node id
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under xdist (`--dist loadgroup`, `make test`): each `lane`'s tests run one after another on one
    worker, so that tests which each keep a core busy (JVMs, a browser, a fuzzer, kill loops) never stack
    on a 2-core machine; the lanes start first, the heaviest first. Every other module runs whole on one
    worker (its module fixtures start once), modules with `long` tests first, so none of them is left
    running alone at the end. Every test gets its pytest-timeout bound."""
    for item in items:
        long_s = _long_seconds(item)
        if long_s and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(max(DEFAULT_TIMEOUT_S, 4 * long_s)))
    if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) <= 1:
        return
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    lanes: dict[str, list[pytest.Item]] = {}
    rest: list[list[pytest.Item]] = []
    for module, tests in modules.items():
        lane = _lane(tests[0])
        group = f"lane-{lane}" if lane else module
        for item in tests:
            item.add_marker(pytest.mark.xdist_group(group))
        if lane:
            lanes.setdefault(lane, []).extend(tests)
        else:
            rest.append(tests)
    ordered = sorted(lanes.values(), key=lambda tests: -sum(map(_expected_seconds, tests)))
    ordered += sorted(rest, key=lambda tests: -sum(map(_long_seconds, tests)))  # stable: the rest in order
    items[:] = [item for tests in ordered for item in tests]


def _lane(item: pytest.Item) -> str | None:
    marker = item.get_closest_marker("lane")
    return str(marker.args[0]) if marker is not None else None


def _long_seconds(item: pytest.Item) -> float:
    """A `long` test's expected run time on a loaded 2-core machine (`@pytest.mark.long(seconds=…)`);
    0 for the rest."""
    marker = item.get_closest_marker("long")
    return float(marker.kwargs.get("seconds", 30)) if marker is not None else 0.0


def _expected_seconds(item: pytest.Item) -> float:
    return _long_seconds(item) or 1.0


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
