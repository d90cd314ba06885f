from __future__ import annotations

import gc
import os
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient
from hypothesis import settings

from tests import spark_class_archive
from tests.broker import Broker, running_broker
from tests.mariadb import MariaDb, running_mariadb
from tests.postgres import Postgres, running_postgres
from tests.tcp_proxy import ProxiedBroker, proxied_embedded_broker

# Every JVM the tests start (Spark's drivers, executors, standalone masters and workers) compiles with C1
# only, uses one GC thread, and maps Spark's classes from one shared archive (tests/spark_class_archive.py):
# together they cut the CPU a Spark JVM costs to start by about half, which the suite pays some thirty times
# on two cores. `java` reads JDK_JAVA_OPTIONS itself; a value the environment sets already is kept.
SPARK_CLASS_ARCHIVE = spark_class_archive.archive_path()
os.environ.setdefault("JDK_JAVA_OPTIONS", spark_class_archive.java_options(SPARK_CLASS_ARCHIVE))

# With PYTHONDONTWRITEBYTECODE set (some images and CI runners set it), nothing caches compiled code:
# every xdist worker rewrites and compiles all test modules again (10 s of CPU instead of 5), and every
# `connectworker` process a test starts compiles the package from source (0.6 s instead of 0.4). The tests
# write their bytecode (to the git-ignored __pycache__ folders): this process, and what it starts.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# Hypothesis fails an example that takes longer than 200 ms by default: a timed assertion, which a loaded
# machine trips (seen: 309 ms for one JSON value under a full suite on two cores, 0.1 ms when re-run). The
# properties are about values, not speed; a hang is still bounded by pytest-timeout.
settings.register_profile("connectworker", deadline=None)
settings.load_profile("connectworker")

DEFAULT_TIMEOUT_S = 300
"""pytest-timeout's bound for one test (setup and teardown included): a hang fails that test by name. A
`long` test gets four times its expected seconds, if that is more."""


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which names each test's group in its node id
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test gets its pytest-timeout bound. Under xdist (`--dist loadgroup`, `make test`), the modules
    marked `heavy` (each keeps a core busy: JVMs, a browser, a fuzzer, kill loops) are dealt into one lane
    per core, heaviest first to the lightest lane, and each lane runs on one worker, its modules one after
    another: no more of them run at once than there are cores. The lanes start first. Every other module
    runs whole on one worker (its module fixtures start once), modules with `long` tests first."""
    for item in items:
        long_s = _long_seconds(item)
        if long_s and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(max(DEFAULT_TIMEOUT_S, 4 * long_s)))
    if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) <= 1:
        return
    modules: dict[str, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.nodeid.split("::")[0], []).append(item)
    # The modules on the shared Spark standalone cluster (tests/integration/conftest.py) go to one lane together.
    units: dict[str, list[list[pytest.Item]]] = {}
    for path, tests in modules.items():
        if _heavy_seconds(tests[0]):
            shared = tests[0].get_closest_marker("spark_cluster") is not None
            units.setdefault("spark_cluster" if shared else path, []).append(tests)
    heavy = sorted(units.values(), key=lambda unit: -sum(_heavy_seconds(tests[0]) for tests in unit))
    lanes: list[list[pytest.Item]] = [[] for _ in range(min(os.cpu_count() or 1, len(heavy)))]
    load = [0.0] * len(lanes)
    for unit in heavy:
        lane = min(range(len(lanes)), key=lambda n: load[n])
        for tests in unit:
            lanes[lane].extend(tests)
            load[lane] += _heavy_seconds(tests[0])
    for n, tests in enumerate(lanes):
        tests.sort(key=lambda item: item.get_closest_marker("spark") is not None)  # stable: the class archive
        # (tests/spark_class_archive.py) is made while a lane's other modules run
        for item in tests:
            item.add_marker(pytest.mark.xdist_group(f"heavy-lane-{n}"))
    rest = [tests for tests in modules.values() if not _heavy_seconds(tests[0])]
    for tests in rest:
        for item in tests:
            item.add_marker(pytest.mark.xdist_group(tests[0].nodeid.split("::")[0]))
    rest.sort(key=lambda tests: -sum(map(_long_seconds, tests)))  # stable: the others stay in order
    items[:] = [item for tests in [*lanes, *rest] for item in tests]


def pytest_collection_finish(session: pytest.Session) -> None:
    # What collection left alive (the product's, the tests' and their libraries' modules, every test item:
    # millions of objects) is never scanned by the collector again, as `connectworker` does after start-up.
    # Each full collection otherwise walked all of it: 1-3.7 s each on a loaded machine, over a hundred of
    # them in a run.
    gc.collect()
    gc.freeze()
    if SPARK_CLASS_ARCHIVE is not None and any(item.get_closest_marker("spark") for item in session.items):
        spark_class_archive.prepare_in_background(SPARK_CLASS_ARCHIVE)


@pytest.hookimpl(tryfirst=True)  # before any fixture of the test: a session-scoped SparkSession included
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test that starts Spark JVMs first has the class archive made (by whichever test process comes first)."""
    if item.get_closest_marker("spark") and SPARK_CLASS_ARCHIVE is not None:
        spark_class_archive.ensure(SPARK_CLASS_ARCHIVE)


@pytest.hookimpl(optionalhook=True)  # xdist's hook: `pytest -p no:xdist` runs without it
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """Under `--dist loadgroup` every test carries a group, which xdist appends to the ids a worker collected:
    without it (pytest 9.2 with pytest-xdist 3.8, pytest-dev/pytest-xdist#1386) xdist would deal the tests one
    by one, and the heavy lanes and module fixtures would run on every worker at once. Refuse, saying why."""
    if node.config.getoption("dist") == "loadgroup" and ids and "@" not in ids[0]:
        pytest.exit(
            f"--dist loadgroup does not group tests with pytest {pytest.__version__} and this pytest-xdist "
            "(pytest-dev/pytest-xdist#1386): install the versions that pyproject.toml's `test` extra names",
            returncode=pytest.ExitCode.USAGE_ERROR,
        )


def _heavy_seconds(item: pytest.Item) -> float:
    """A `heavy` module's run time, alone on a 2-core machine (`@pytest.mark.heavy(seconds=…)`); 0 for the rest."""
    marker = item.get_closest_marker("heavy")
    return float(marker.kwargs.get("seconds", 60)) if marker is not None else 0.0


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


@pytest.fixture(scope="session")
def mariadb() -> Iterator[MariaDb]:
    """A MariaDB server with a row-based binary log for this test process (see tests/mariadb.py)."""
    with running_mariadb() as server:
        yield server
