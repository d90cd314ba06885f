from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from confluent_kafka.admin import AdminClient

from tests.broker import Broker, running_broker
from tests.postgres import Postgres, running_postgres
from tests.tcp_proxy import ProxiedBroker, proxied_embedded_broker


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`make test` runs `-n 2 --dist loadgroup`) every Spark test goes to one worker
    process, which then opens the one shared SparkSession (a JVM of its own) for them all (the Spark
    cluster tests, each module with a cluster of its own, run there too: two Spark groups at once on two
    cores made executor-loss recovery time out); every test of a PostgreSQL server goes to one process,
    sharing one server."""
    for item in items:
        if item.get_closest_marker("spark") is not None:
            item.add_marker(pytest.mark.xdist_group("spark"))
        elif "postgres" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("postgres"))


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
