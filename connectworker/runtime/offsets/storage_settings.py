"""Where committed source offsets live, as settings a task in another process can open: the
`offset.storage.*` keys (of a worker file, or of Spark data source options), opened as an
`OffsetBackingStore`. Task processes, Spark tasks and the DataFrame formats all use it.

On Spark only the driver touches the offsets: the stream reader's `partitions()` reads them to tell
each task where to resume, and the sink's `commit()` saves them once every write task of the batch
was acknowledged by Kafka. Both run in Python processes on the driver host, so:

- `offset.storage.file.filename` (a local run, or a driver that always runs on the same host): the
  standalone worker's JSON file, a `FileOffsetStore` opened ``shared``: every read and flush holds an
  exclusive `flock` and a flush merges into the file as it is then, because the reader and the
  committer are separate processes and several queries (one per connector) may commit to the same
  file at the same time.
- `offset.storage.topic` (a cluster): a compacted Kafka topic, as in Kafka Connect's distributed
  mode (`KafkaOffsetStore`). It survives the driver moving to another host.

The reader calls `refresh()` before every micro-batch, so it sees what the committers wrote; a
commit is `put` then `flush`. Here `offset.storage.partitions` and `offset.storage.replication.factor`
default to 1 and -1 (the broker's default) as data source options; a `connectworker spark` worker file
passes the worker's keys, whose defaults are Kafka's (25 and 3).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from connectworker.api.config_def import ConfigType, read_config
from connectworker.api.errors import ConfigError
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.offsets.backing_store import OffsetBackingStore
from connectworker.runtime.offsets.file_store import FileOffsetStore
from connectworker.runtime.offsets.kafka_store import PARTITIONS_KEY, REPLICATION_KEY, KafkaOffsetStore

FILE_KEY = "offset.storage.file.filename"
TOPIC_KEY = "offset.storage.topic"
TOPIC_PARTITIONS_KEY = PARTITIONS_KEY
TOPIC_REPLICATION_KEY = REPLICATION_KEY
OFFSET_STORAGE_KEYS = (FILE_KEY, TOPIC_KEY, TOPIC_PARTITIONS_KEY, TOPIC_REPLICATION_KEY)


@dataclass(frozen=True)
class OffsetStorageSettings:
    """Which storage the options name; picklable, so executors and the driver can share it."""

    file: str | None = None
    topic: str | None = None
    topic_partitions: int = 1
    topic_replication_factor: int = -1
    kafka: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_options(
        cls, options: Mapping[str, str], kafka: Mapping[str, str], *, required: bool
    ) -> OffsetStorageSettings | None:
        """Parse the `offset.storage.*` options; None when none is given and none is `required`."""
        file, topic = options.get(FILE_KEY) or None, options.get(TOPIC_KEY) or None
        if file and topic:
            raise ConfigError(
                {
                    TOPIC_KEY: f"give either {FILE_KEY} (a local file on the driver host) or "
                    f"{TOPIC_KEY} (a compacted Kafka topic), not both"
                }
            )
        if not file and not topic:
            if required:
                raise ConfigError(
                    {
                        FILE_KEY: f"say where committed source offsets live: {FILE_KEY}=<file "
                        f"on the driver host> for a local run, or {TOPIC_KEY}=<topic> "
                        f"(with kafka.bootstrap.servers) for a cluster"
                    }
                )
            return None
        if topic and not kafka.get("bootstrap.servers"):
            raise ConfigError(
                {"kafka.bootstrap.servers": f"required with {TOPIC_KEY}: the offsets topic lives in that cluster"}
            )
        partitions = read_config(options, TOPIC_PARTITIONS_KEY, ConfigType.INT, 1, minimum=1)
        replication = read_config(options, TOPIC_REPLICATION_KEY, ConfigType.SHORT, -1, minimum=-1)
        if replication == 0:
            raise ConfigError({TOPIC_REPLICATION_KEY: "must be positive, or -1 for the broker's default"})
        return cls(
            file=file, topic=topic, topic_partitions=partitions, topic_replication_factor=replication, kafka=dict(kafka)
        )

    def describe(self) -> str:
        return f"file {self.file}" if self.file else f"Kafka topic {self.topic}"

    def open(self) -> OffsetBackingStore:
        """The store, lazily connected: a Kafka store reads its topic at the first read or refresh."""
        if self.file:
            return FileOffsetStore(self.file, shared=True)
        assert self.topic is not None
        return KafkaOffsetStore(
            self.topic, self.kafka, partitions=self.topic_partitions, replication_factor=self.topic_replication_factor
        )


def offset_storage_settings(config: WorkerConfig) -> OffsetStorageSettings:
    """Where a worker file says committed offsets live: the topic when `offset.storage.topic` is set,
    else the file (opened shared: the worker and its task processes write it)."""
    storage_options = {
        TOPIC_PARTITIONS_KEY: str(config.offset_storage_partitions),
        TOPIC_REPLICATION_KEY: str(config.offset_storage_replication_factor),
    }
    if config.offset_storage_topic:
        storage_options[TOPIC_KEY] = config.offset_storage_topic
    elif config.offset_storage_file_filename:
        storage_options[FILE_KEY] = config.offset_storage_file_filename
    kafka = {**config.client_settings("admin"), "bootstrap.servers": config.bootstrap_servers}
    offsets = OffsetStorageSettings.from_options(storage_options, kafka, required=True)
    assert offsets is not None
    return offsets
