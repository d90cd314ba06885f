"""A deleted connector leaves nothing behind: its tasks (and their librdkafka producers) are freed when
it is removed, even with the collector thresholds the worker command sets for throughput, under which
reference cycles wait for a full collection that may not come for hours."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from connectworker.config.connector_config import parse_connector_config
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.clients.gc_tuning import tune_gc_for_throughput
from connectworker.runtime.herder.standalone import StandaloneRuntime
from tests.broker import Broker
from tests.integration.harness import wait_until


@pytest.fixture
def command_gc_settings() -> Iterator[None]:
    """The collector as `connectworker standalone` sets it, restored after the test."""
    thresholds = gc.get_threshold()
    frozen_before = gc.get_freeze_count() > 0  # tests/conftest.py freezes what collection left
    tune_gc_for_throughput()
    try:
        yield
    finally:
        if not frozen_before:
            gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_removed_and_restarted_tasks_are_freed_at_once(
    broker: Broker, tmp_path: Path, unique: str, command_gc_settings: None
) -> None:
    config = WorkerConfig.from_properties(
        {
            "bootstrap.servers": broker.bootstrap_servers,
            "offset.storage.file.filename": str(tmp_path / "offsets.json"),
            "offset.flush.interval.ms": "200",
            "task.processes": "0",
        }
    )  # the task objects live here
    with StandaloneRuntime(config) as runtime:
        worker = runtime.worker
        assert worker is not None
        gone: list[weakref.ref[object]] = []
        for cycle in range(3):
            name = f"life-{unique}-{cycle}"
            worker.start_connector(
                parse_connector_config(
                    {
                        "name": name,
                        "connector.class": "DataGen",
                        "tasks.max": "2",
                        "topic.pattern": name,
                        "topic.count": "1",
                        "rate": "200",
                        "format": "string",
                    }
                )
            )
            running = worker.get(name)
            wait_until(
                lambda running=running: all(t.stats().committed_records for t in running.tasks),
                30,  # type: ignore[misc]
                what="both tasks producing",
            )
            first = running.tasks[0]
            worker.restart_task(name, 0)  # a restarted task's old instance is freed too
            gone.append(weakref.ref(first))
            gone.extend(weakref.ref(task) for task in running.tasks)
            del first, running
            worker.remove_connector(name)
        # the offsets flusher may still hold the last commit's callback for a moment
        wait_until(
            lambda: all(ref() is None for ref in gone),
            5,
            what=lambda: f"stopped tasks {[i for i, r in enumerate(gone) if r() is not None]} to be freed",
        )
