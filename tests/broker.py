"""Which broker the integration tests use, in order: a cluster named by CONNECTWORKER_TEST_BOOTSTRAP,
Apache Kafka through testcontainers when a Docker daemon answers, else the embedded Tansu broker."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from connectworker.embedded_broker import EmbeddedBroker

log = logging.getLogger(__name__)

BOOTSTRAP_ENV = "CONNECTWORKER_TEST_BOOTSTRAP"
FLAVOR_ENV = "CONNECTWORKER_TEST_BROKER_FLAVOR"  # "apache" (default for a named cluster) or "tansu"


@dataclass(frozen=True)
class Broker:
    bootstrap_servers: str
    flavor: str  # "apache" or "tansu"

    @property
    def is_tansu(self) -> bool:
        return self.flavor == "tansu"


def _docker_answers() -> bool:
    try:
        import docker  # type: ignore[import-untyped]

        docker.from_env(timeout=2).ping()
        return True
    except Exception as exc:  # any failure means "no usable daemon"; say why at debug level
        log.debug("No Docker daemon: %s", exc)
        return False


@contextmanager
def running_broker() -> Iterator[Broker]:
    named = os.environ.get(BOOTSTRAP_ENV)
    if named:
        yield Broker(named, os.environ.get(FLAVOR_ENV, "apache"))
        return
    if _docker_answers():
        from testcontainers.kafka import KafkaContainer  # type: ignore[import-untyped]

        with KafkaContainer() as kafka:
            yield Broker(kafka.get_bootstrap_server(), "apache")
        return
    with EmbeddedBroker() as tansu:
        yield Broker(tansu.bootstrap_servers, "tansu")
