"""Where committed source offsets live: Kafka Connect's `OffsetBackingStore`, one protocol for every mode.

Two implementations:

- `FileOffsetStore` (`file_store.py`): `offset.storage.file.filename`, a JSON file written
  atomically; the standalone default, and Spark's choice for local runs (opened ``shared`` there, as
  the driver's reader and committer are separate processes).
- `KafkaOffsetStore` (`kafka_store.py`): `offset.storage.topic`, a compacted topic in Kafka
  Connect's distributed-mode format; standalone when the key is set, and Spark on a cluster.

Offsets are keyed by connector, then by the canonical JSON of the source partition (`partition_key`);
a None offset removes a partition. `put` and `remove` change the store in memory at once (reads see
them); only `flush` makes them durable, and may be called from another thread than the puts (the
standalone worker's `OffsetFlusher`). A store whose flush fails keeps the changes and writes them at
the next flush.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Protocol

from connectworker.api.record import SourceOffset, SourcePartition


class OffsetBackingStore(Protocol):
    """Committed offsets of every connector of a worker (thread-safe)."""

    def offset(self, connector: str, partition: SourcePartition | None) -> SourceOffset | None:
        """The committed offset of one source partition of `connector`, or None."""
        ...

    def offsets(self, connector: str) -> dict[str, Any]:
        """Every offset of `connector`, keyed by canonical partition JSON (`partition_key`)."""
        ...

    def connectors(self) -> list[str]:
        """The connectors that have offsets."""
        ...

    def put(self, connector: str, offsets: Mapping[str, Any]) -> None:
        """Record `offsets` (keyed by `partition_key`; a None offset removes the partition) in memory;
        `flush` makes them durable. Offsets JSON cannot hold are refused whole (`OffsetStoreError`)."""
        ...

    def remove(self, connector: str, partitions: Collection[str] | None = None) -> None:
        """Forget all offsets of `connector`, or only those of `partitions` (canonical JSON keys)."""
        ...

    def flush(self) -> None:
        """Make every change so far durable before returning (file: written and fsynced; topic:
        produced and acknowledged by all in-sync replicas); raises `OffsetStoreError` otherwise."""
        ...

    def refresh(self) -> None:
        """Read what other writers committed (another process, an earlier instance): the file is read
        again, the topic to its end. Changes not flushed yet stay on top."""
        ...

    def close(self) -> None:
        """Release the store's clients; unflushed changes are lost (flush first)."""
        ...

    def describe(self) -> str:
        """Where the offsets live, for messages: "file /x/offsets.json", "Kafka topic connect-offsets"."""
        ...


def read_committed(store: OffsetBackingStore, connector: str) -> dict[str, Any]:
    """`connector`'s offsets as committed now, by any writer (`refresh`, then `offsets`)."""
    store.refresh()
    return store.offsets(connector)
