"""The standalone worker the CDC benches run their connector in: JsonConverter without schemas, offsets in
a file of its own, flushed every second."""

from __future__ import annotations

from pathlib import Path

from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.herder.standalone import StandaloneRuntime

JSON = "org.apache.kafka.connect.json.JsonConverter"


def start_worker(workdir: Path, bootstrap: str, name: object, processes: str | None = "0") -> StandaloneRuntime:
    """A started worker; `processes` is its task.processes (None: the worker's default, task processes)."""
    extra = {} if processes is None else {"task.processes": processes}
    config = WorkerConfig.from_properties(
        {
            **extra,
            "bootstrap.servers": bootstrap,
            "offset.storage.file.filename": str(workdir / f"offsets-{name}.json"),
            "key.converter": JSON,
            "value.converter": JSON,
            "key.converter.schemas.enable": "false",
            "value.converter.schemas.enable": "false",
            "offset.flush.interval.ms": "1000",
        }
    )
    return StandaloneRuntime(config).start()
