"""The window of an incremental snapshot's current chunk (DDD-3; the window Debezium's
`IncrementalSnapshotContext` keeps): which chunk it is, whether the stream has passed its open watermark, the
chunk's rows by key, the keys the stream changed since the window opened, and the chunk being read on the
chunk thread (`ChunkFetch`).

A streamed change of a row wins over the chunk's copy whether it comes before the rows are read (a chunk read
on its thread) or after: the window notes its key (`changed`), and `keep` leaves such rows out.
"""

from __future__ import annotations

import uuid
from typing import Any

from .chunk_fetch import ChunkFetch, ChunkFetcher
from .chunk_reader import BufferedRow, Rows, window_key
from .table_shape import TableShape


class SnapshotWindow:
    def __init__(self) -> None:
        self.chunk_id: str | None = None  # the chunk whose watermarks are awaited (None: no window)
        self.open = False  # the stream has passed its open watermark
        self.rows: dict[Any, BufferedRow] = {}  # the chunk's rows by their key, sent at the close
        self.fetch: ChunkFetch | None = None  # the chunk, when it is read on the chunk thread
        self.fetcher = ChunkFetcher()
        self._changed: set[Any] = set()

    def begin(self) -> str:
        """A new chunk's window: its id, which its watermarks carry."""
        self._changed.clear()
        self.chunk_id = str(uuid.uuid4())
        return self.chunk_id

    def carries(self, watermark_id: str | None) -> bool:
        """Whether a watermark is this window's (a stale one, replayed after a restart, is not)."""
        return self.chunk_id is not None and (watermark_id or "").startswith(self.chunk_id)

    def read_on_thread(self, fetch: ChunkFetch) -> None:
        self.fetch = self.fetcher.start(fetch)

    def changed(self, key: dict[str, Any]) -> None:
        """The stream changed the row of `key` (of the window's table): its copy in the chunk is stale."""
        if self.open:
            at = window_key(key)
            self._changed.add(at)
            self.rows.pop(at, None)

    def keep(self, shape: TableShape, rows: Rows) -> None:
        """A chunk's rows, but those the stream changed since the window opened."""
        kept, changed = self.rows, self._changed
        for values, chunk_key in rows:
            row = shape.row(values)
            key = shape.row_key(values, row)  # a keyless table's rows (by a surrogate key): by that key
            at = window_key(key) if key else repr(chunk_key)
            if at not in changed:
                kept[at] = (shape, row, key, chunk_key)

    def end(self) -> ChunkFetch | None:
        """The close watermark came: no window any more; the chunk read on the thread, if it was."""
        fetch, self.fetch = self.fetch, None
        self.open, self.chunk_id = False, None
        return fetch

    def close(self) -> None:
        """The task stops: a chunk being read lets go of the reader's connection first (bounded: a database that
        does not answer is the stream's to report)."""
        if self.fetch is not None:
            self.fetch.wait(10)
        self.fetcher.close()
