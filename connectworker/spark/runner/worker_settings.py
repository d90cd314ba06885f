"""The worker file of `connectworker spark`: the standalone worker's keys, plus where offsets live.

A Spark run keeps committed offsets in `offset.storage.file.filename` (a file on the driver host) or
in `offset.storage.topic` (a compacted Kafka topic, for clusters; with `offset.storage.partitions`
and `offset.storage.replication.factor`, Kafka Connect's distributed-mode keys), exactly one of them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path

from connectworker.config.properties import load_properties
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.offsets.storage_settings import TOPIC_KEY, OffsetStorageSettings, offset_storage_settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SparkWorker:
    config: WorkerConfig
    offsets: OffsetStorageSettings

    def with_bootstrap(self, bootstrap_servers: str) -> SparkWorker:
        """The same worker pointed at `bootstrap_servers` (the embedded broker's real address)."""
        config = self.config.model_copy(update={"bootstrap_servers": bootstrap_servers})
        offsets = replace(self.offsets, kafka={**self.offsets.kafka, "bootstrap.servers": bootstrap_servers})
        return SparkWorker(config, offsets)


def load_spark_worker(path: str | Path) -> SparkWorker:
    config = WorkerConfig.from_properties(load_properties(path), source=str(path))  # plugin.path importable
    offsets = offset_storage_settings(config)
    if offsets.file and not config.spark_master.startswith("local"):
        log.warning(
            "Offsets are kept in %s on the driver host: a restarted driver must run on the same "
            "host with the same file. On a cluster, set %s instead.",
            offsets.file,
            TOPIC_KEY,
        )
    return SparkWorker(config, offsets)
