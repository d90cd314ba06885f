"""Where committed source offsets live: the `OffsetBackingStore` protocol, the file store, the
compacted-topic store (Kafka Connect's format), the writer thread that flushes a store off the task
thread, and the checks on the offsets a task returns.

May import: api, topics (admin), and runtime's `clients`.

Its public surface (`__all__`) is what other packages (Spark's among them) use; names resolve on
first use, so importing the package imports none of its modules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from connectworker.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from connectworker.runtime.offsets.backing_store import OffsetBackingStore, read_committed
    from connectworker.runtime.offsets.file_store import FileOffsetStore, partition_key
    from connectworker.runtime.offsets.source_offsets import newest_indexed, newest_offsets
    from connectworker.runtime.offsets.storage_settings import (
        FILE_KEY,
        OFFSET_STORAGE_KEYS,
        TOPIC_KEY,
        OffsetStorageSettings,
        offset_storage_settings,
    )

_EXPORTS = {
    "FILE_KEY": "storage_settings",
    "FileOffsetStore": "file_store",
    "OFFSET_STORAGE_KEYS": "storage_settings",
    "OffsetBackingStore": "backing_store",
    "OffsetStorageSettings": "storage_settings",
    "TOPIC_KEY": "storage_settings",
    "newest_indexed": "source_offsets",
    "newest_offsets": "source_offsets",
    "offset_storage_settings": "storage_settings",
    "partition_key": "file_store",
    "read_committed": "backing_store",
}
__all__ = [
    "FILE_KEY",
    "OFFSET_STORAGE_KEYS",
    "TOPIC_KEY",
    "FileOffsetStore",
    "OffsetBackingStore",
    "OffsetStorageSettings",
    "newest_indexed",
    "newest_offsets",
    "offset_storage_settings",
    "partition_key",
    "read_committed",
]
__getattr__ = lazy_exports(__name__, _EXPORTS)
