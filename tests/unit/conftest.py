"""Fixtures shared by the unit tests of the Worker's lifecycle."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from connectworker.config.connector_config import ConnectorConfig
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.offsets.file_store import FileOffsetStore
from connectworker.runtime.worker import Worker
from tests.unit.fake_runner import FakeRunner


@pytest.fixture
def runner() -> FakeRunner:
    return FakeRunner()


@pytest.fixture
def worker(tmp_path: Path, runner: FakeRunner) -> Iterator[Worker]:
    config = WorkerConfig.from_properties({"offset.storage.file.filename": str(tmp_path / "offsets.json")})

    def no_gate(_: ConnectorConfig) -> Any:
        raise AssertionError("the fake runner builds no task, so no topic gate")

    w = Worker(config, FileOffsetStore(tmp_path / "offsets.json"), no_gate, runner=runner)
    yield w
    w.stop()
