"""Shared by the REST tests: a standalone worker serving the REST API on a free loopback port, over
real HTTP. (Named test_rest_* to sit with them; it holds no tests.)"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.rest.server import RestServer
from connectworker.runtime.herder.standalone import StandaloneRuntime
from connectworker.runtime.worker import Worker
from tests.integration.harness import wait_until, worker_config
from tests.kafka_helpers import consume

FREE_PORT = "http://127.0.0.1:0"


@dataclass
class RestWorker:
    runtime: StandaloneRuntime
    server: RestServer
    url: str
    client: httpx.Client

    @property
    def worker(self) -> Worker:
        assert self.runtime.worker is not None
        return self.runtime.worker


def rest_worker_config(bootstrap: str, tmp_path: Path, **overrides: str) -> WorkerConfig:
    return worker_config(bootstrap, tmp_path, listeners=FREE_PORT, **overrides)


@contextmanager
def rest_worker(
    config: WorkerConfig, *file_connectors: Mapping[str, str], **client_options: Any
) -> Iterator[RestWorker]:
    """A started runtime with `file_connectors` running as if named on the command line, plus the API."""
    with StandaloneRuntime(config) as runtime:
        assert runtime.worker is not None
        configs = [parse_connector_config(props) for props in file_connectors]
        rest = RestServer.for_worker(config)
        assert rest is not None
        server = rest.bind().serve(runtime.start_herder(configs))
        try:
            with httpx.Client(base_url=server.urls[0], timeout=60, **client_options) as client:
                yield RestWorker(runtime, server, server.urls[0], client)
        finally:
            server.stop()


def datagen(name: str, topic: str, **extra: str) -> dict[str, str]:
    return {
        "name": name,
        "connector.class": "DataGen",
        "topic.pattern": topic,
        "topic.count": "1",
        "rate": "200",
        "batch.size": "20",
        "format": "string",
        **extra,
    }


def status_of(api: RestWorker, name: str) -> dict[str, Any]:
    response = api.client.get(f"/connectors/{name}/status")
    assert response.status_code == 200, response.text
    return response.json()


def wait_for_states(
    api: RestWorker, name: str, connector: str, tasks: Sequence[str], timeout: float = 30
) -> dict[str, Any]:
    """Wait until the connector's status shows `connector` and exactly `tasks`; return that status."""
    seen: dict[str, Any] = {}

    def matches() -> bool:
        seen.update(status_of(api, name))
        return seen["connector"]["state"] == connector and [t["state"] for t in seen["tasks"]] == list(tasks)

    wait_until(matches, timeout, what=f"{name} {connector} with tasks {list(tasks)} (last: {seen})")
    return seen


def count_records(bootstrap: str, topic: str, settle: float = 2.0) -> int:
    """Every record now in `topic`: its partitions assigned (no group join to wait for, which a loaded
    machine can stretch past `settle`), read until nothing new arrives for `settle` seconds; a topic
    whose watermarks say it holds records is read until its first one arrived (at most 30 s)."""
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"count-{uuid.uuid4().hex}", "enable.auto.commit": False}
    )
    try:
        partitions = [
            TopicPartition(topic, p, OFFSET_BEGINNING)
            for p in consumer.list_topics(topic, timeout=10).topics[topic].partitions
        ]
        holds_records = any(consumer.get_watermark_offsets(p, timeout=10)[1] > 0 for p in partitions)
        consumer.assign(partitions)
        count, first_by = 0, time.monotonic() + 30
        quiet_until = time.monotonic() + settle
        while time.monotonic() < quiet_until or (holds_records and count == 0 and time.monotonic() < first_by):
            read = sum(1 for message in consumer.consume(10_000, timeout=0.2) if message.error() is None)
            if read:
                count += read
                quiet_until = time.monotonic() + settle
        return count
    finally:
        consumer.close()


def wait_for_records(bootstrap: str, topic: str, at_least: int, timeout: float = 30) -> int:
    """How many records `topic` holds once it holds `at_least` (or `timeout` passed)."""
    return len(consume(bootstrap, [topic], expected=at_least, timeout=timeout))
