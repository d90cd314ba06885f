"""A worker's committed offsets as its next run would read them, read without writing anything: for the
dry runs (`connectworker plan`, `connectworker topics drift`), which must not touch the offsets file,
the offsets topic or the cluster.

The worker itself opens its store (`storage_settings.py`), which creates a missing offsets topic and
writes read barriers into it; here a missing topic or file means no offsets, and the topic is read up
to the end offsets its broker reports.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from confluent_kafka import Message

from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.clients.compacted_topic import read_without_writing
from connectworker.runtime.offsets.file_store import FileOffsetStore, OffsetStoreError
from connectworker.runtime.offsets.kafka_store import parse_record

log = logging.getLogger(__name__)

__all__ = ["committed_offsets_read_only"]


def committed_offsets_read_only(config: WorkerConfig, connector: str) -> dict[str, Any]:
    """`connector`'s committed offsets, keyed by canonical partition JSON, as a run of the worker that
    `config` describes would start from."""
    if config.uses_embedded_broker:
        log.info(
            "bootstrap.servers=embedded: a run starts every connector from the beginning (the embedded broker "
            "starts empty), so the dry run of %s reads no committed offsets",
            connector,
        )
        return {}
    if config.offset_storage_topic:
        return _from_topic(config, connector)
    if config.offset_storage_file_filename and Path(config.offset_storage_file_filename).exists():
        return FileOffsetStore(config.offset_storage_file_filename).offsets(connector)
    return {}


def _from_topic(config: WorkerConfig, connector: str) -> dict[str, Any]:
    topic = config.offset_storage_topic
    assert topic is not None
    offsets: dict[str, Any] = {}

    def apply(msg: Message) -> None:
        try:
            owner, key, offset = parse_record(msg.key(), msg.value())
        except ValueError:  # not an offset record (the store logs those when it reads them)
            return
        if owner != connector:
            return
        if offset is None:
            offsets.pop(key, None)
        else:
            offsets[key] = offset

    kafka = {**config.client_settings("admin"), "bootstrap.servers": config.bootstrap_servers}
    found = read_without_writing(
        topic, kafka, apply, label="offsets topic", error=OffsetStoreError, read_committed=True
    )
    if not found:
        log.info("The offsets topic %s does not exist yet: %s has no committed offsets", topic, connector)
    return offsets
