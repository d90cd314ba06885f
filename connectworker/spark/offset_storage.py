"""Where a Spark run keeps committed source offsets, and how the driver reads and commits them.

On Spark only the driver touches the offsets: the stream reader's `partitions()` reads them to tell
each task where to resume, and the sink's `commit()` saves them once every write task of the batch
was acknowledged by Kafka. Both run in Python processes on the driver host, so:

- `offset.storage.file.filename` (a local run, or a driver that always runs on the same host): the
  standalone worker's JSON file (`FileOffsetStore`), reopened for every read and commit under an
  exclusive `flock`, because the reader and the committer are separate processes and several queries
  (one per connector) may commit to the same file at the same time.
- `offset.storage.topic` (a cluster): a compacted Kafka topic, as in Kafka Connect's distributed
  mode (see `kafka_offsets.py`). It survives the driver moving to another host.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from connectworker.api.errors import ConfigError
from connectworker.api.record import SourceOffset
from connectworker.runtime.offset_store import FileOffsetStore

FILE_KEY = "offset.storage.file.filename"
TOPIC_KEY = "offset.storage.topic"
TOPIC_PARTITIONS_KEY = "offset.storage.partitions"
TOPIC_REPLICATION_KEY = "offset.storage.replication.factor"
OFFSET_STORAGE_KEYS = (FILE_KEY, TOPIC_KEY, TOPIC_PARTITIONS_KEY, TOPIC_REPLICATION_KEY)


class OffsetStorage(Protocol):
    """Committed offsets of every connector, keyed by canonical partition JSON (`partition_key`)."""

    def read(self, connector: str) -> dict[str, SourceOffset]:
        """The connector's latest committed offsets, including commits made by other processes."""
        ...

    def commit(self, connector: str, offsets: Mapping[str, SourceOffset | None]) -> None:
        """Store `offsets` durably before returning; a None offset forgets its partition."""
        ...

    def close(self) -> None: ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class OffsetStorageSettings:
    """Which storage the options name; picklable, so executors and the driver can share it."""

    file: str | None = None
    topic: str | None = None
    topic_partitions: int = 1
    topic_replication_factor: int = -1
    kafka: dict[str, str] = field(default_factory=dict)

    @classmethod
    def from_options(cls, options: Mapping[str, str], kafka: Mapping[str, str], *,
                     required: bool) -> OffsetStorageSettings | None:
        """Parse the `offset.storage.*` options; None when none is given and none is `required`."""
        file, topic = options.get(FILE_KEY) or None, options.get(TOPIC_KEY) or None
        if file and topic:
            raise ConfigError({TOPIC_KEY: f"give either {FILE_KEY} (a local file on the driver host) or "
                                          f"{TOPIC_KEY} (a compacted Kafka topic), not both"})
        if not file and not topic:
            if required:
                raise ConfigError({FILE_KEY: f"say where committed source offsets live: {FILE_KEY}=<file "
                                             f"on the driver host> for a local run, or {TOPIC_KEY}=<topic> "
                                             f"(with kafka.bootstrap.servers) for a cluster"})
            return None
        if topic and not kafka.get("bootstrap.servers"):
            raise ConfigError({"kafka.bootstrap.servers": f"required with {TOPIC_KEY}: the offsets topic "
                                                          f"lives in that cluster"})
        partitions = _int(options, TOPIC_PARTITIONS_KEY, 1, minimum=1)
        replication = _int(options, TOPIC_REPLICATION_KEY, -1, minimum=-1)
        if replication == 0:
            raise ConfigError({TOPIC_REPLICATION_KEY: "must be positive, or -1 for the broker's default"})
        return cls(file=file, topic=topic, topic_partitions=partitions,
                   topic_replication_factor=replication, kafka=dict(kafka))

    def as_options(self) -> dict[str, str]:
        """The options that name this storage again (the engine hands them to source and sink)."""
        if self.file:
            return {FILE_KEY: self.file}
        assert self.topic is not None
        return {TOPIC_KEY: self.topic, TOPIC_PARTITIONS_KEY: str(self.topic_partitions),
                TOPIC_REPLICATION_KEY: str(self.topic_replication_factor)}

    def describe(self) -> str:
        return f"file {self.file}" if self.file else f"Kafka topic {self.topic}"

    def open(self) -> OffsetStorage:
        if self.file:
            return FileOffsetStorage(self.file)
        from connectworker.spark.kafka_offsets import KafkaOffsetStorage

        assert self.topic is not None
        return KafkaOffsetStorage(self.topic, self.kafka, partitions=self.topic_partitions,
                                  replication_factor=self.topic_replication_factor)


def _int(options: Mapping[str, str], key: str, default: int, *, minimum: int) -> int:
    raw = options.get(key)
    if raw is None or str(raw).strip() == "":
        return default
    try:
        value = int(str(raw).strip())
    except ValueError:
        raise ConfigError({key: f"Expected an integer, got {raw!r}"}) from None
    if value < minimum:
        raise ConfigError({key: f"Value must be at least {minimum}, got {value}"})
    return value


class FileOffsetStorage:
    """The standalone offsets file, shared safely by the driver's reader and committer processes."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock_path = self.path.with_name(self.path.name + ".lock")

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self._lock_path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock_path.open("a") as fh:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)

    def read(self, connector: str) -> dict[str, Any]:
        with self._locked():
            return FileOffsetStore(self.path).offsets(connector)  # a corrupt file raises, never resets

    def commit(self, connector: str, offsets: Mapping[str, SourceOffset | None]) -> None:
        if not offsets:
            return
        with self._locked():
            store = FileOffsetStore(self.path)  # re-read: another query may have committed meanwhile
            store.put(connector, offsets)
            store.flush()

    def close(self) -> None:
        """Nothing stays open between calls."""

    def describe(self) -> str:
        return f"file {self.path}"
