"""From the write tasks' acknowledged rows to committed source offsets, on the driver.

Each write task returns, for every source partition it wrote, the offset of its newest row (the one
with the highest `source_index`); it returns at all only after Kafka acknowledged every row it wrote.
Spark calls the writer's `commit()` only when every write task of the batch succeeded, so there the
newest offset of each source partition across all messages is safe to commit: every earlier record
of that partition in the batch was acknowledged, and every record of earlier batches was committed
before this batch was planned.

Spark runs every `commit()` of a query in one long-lived Python process on the driver, so that process
keeps its offset storage open (`committer_storage`, see `connectworker/process_cache.py`) instead of opening it per
micro-batch: for an offsets topic, opening means a producer, a consumer and reading the topic to its
end. A commit that fails closes it; the next one opens it again.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from pyspark.sql.datasource import WriterCommitMessage

from connectworker.api.errors import ConnectError
from connectworker.api.record import SourceOffset
from connectworker.process_cache import ProcessCache
from connectworker.runtime.offsets import OffsetBackingStore, OffsetStorageSettings, newest_indexed

log = logging.getLogger(__name__)

Newest = dict[tuple[str, str], tuple[int, str]]
"""(connector, canonical source partition JSON) -> (source_index, offset JSON) of the newest row."""


class SinkCommitMessage(WriterCommitMessage):
    """What one write task acknowledged: a record count and the newest offset per source partition."""

    def __init__(self, records: int, newest: Newest) -> None:
        self.records = records
        self.newest = newest


def merge_newest(messages: Sequence[WriterCommitMessage | None]) -> dict[str, dict[str, SourceOffset]]:
    """The newest offset of every source partition over all messages, by connector."""
    newest = newest_indexed(
        (key, index, offset)
        for message in messages
        if isinstance(message, SinkCommitMessage)
        for key, (index, offset) in message.newest.items()
    )
    by_connector: dict[str, dict[str, Any]] = {}
    for (connector, partition), (_, offset) in newest.items():
        by_connector.setdefault(connector, {})[partition] = json.loads(offset)
    return by_connector


def commit_offsets(
    settings: OffsetStorageSettings | None, messages: Sequence[WriterCommitMessage | None], what: str
) -> None:
    """Commit the newest offsets of `messages` to the storage `settings` names (driver side)."""
    records = sum(m.records for m in messages if isinstance(m, SinkCommitMessage))
    offsets = merge_newest(messages)
    if not offsets:
        log.debug("%s: %d records written, no source offsets to commit", what, records)
        return
    if settings is None:
        raise ConnectError(
            f"{what}: rows carry source offsets but no offset.storage.* option says where to commit them"
        )
    storage = committer_storage(settings)
    try:
        for connector, partitions in offsets.items():
            storage.put(connector, partitions)
        storage.flush()  # durable (written, or acknowledged by the offsets topic) before Spark goes on
    except BaseException:
        close_committer_storage(settings)
        raise
    for connector, partitions in offsets.items():
        log.info(
            "%s: committed offsets of %d source partition(s) of connector %s to %s (%d records acknowledged)",
            what,
            len(partitions),
            connector,
            storage.describe(),
            records,
        )


_stores: ProcessCache[OffsetBackingStore] = ProcessCache()


def _key(settings: OffsetStorageSettings) -> tuple[object, ...]:
    return (
        settings.file,
        settings.topic,
        settings.topic_partitions,
        settings.topic_replication_factor,
        tuple(sorted(settings.kafka.items())),
    )


def committer_storage(settings: OffsetStorageSettings) -> OffsetBackingStore:
    """This process's open storage for `settings` (opened on first use)."""
    return _stores.get(_key(settings), settings.open)


def close_committer_storage(settings: OffsetStorageSettings) -> None:
    """Close and forget this process's storage for `settings`, if open."""
    storage = _stores.pop(_key(settings))
    if storage is not None:
        storage.close()
