from __future__ import annotations

import os
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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tests that run for tens of seconds (Spark clusters, kill loops, an outage, the fuzzer) spread
    evenly through the run: `make test` splits the tests in contiguous shares, one per xdist worker, and
    an idle worker steals from the end of the busiest share (`--dist worksteal`); in collection order
    most of them would sit in the last share and follow each other on one worker."""
    long = [item for item in items if _is_long(item)]
    if not long:
        return
    short = [item for item in items if not _is_long(item)]
    step = len(items) / len(long)
    spread: list[pytest.Item] = []
    for n, item in enumerate(long):
        at = round(n * step) - n  # short tests placed before the n-th long one
        spread.extend(short[len(spread) - n:at])
        spread.append(item)
    spread.extend(short[len(spread) - len(long):])
    items[:] = spread


def _is_long(item: pytest.Item) -> bool:
    return item.get_closest_marker("long") is not None or item.get_closest_marker("spark_cluster") is not None


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
