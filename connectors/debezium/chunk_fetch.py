"""A table's next chunk read between its watermarks on a thread of its own, while the task sends the rows of
the window before it.

Each chunk costs three round trips to the database (INSERT the open watermark, SELECT, INSERT or DELETE the
close one): a task doing them itself spends that time waiting, with the previous window's rows not yet
converted nor produced. A `ChunkFetch` does them, in that order and on the reader's connection alone, on a
thread; the task learns the chunk's rows when the stream brings the close watermark back (`result`). The
windows stay as DDD-3 draws them: the stream's changes between the two watermarks are the ones that win over
the chunk's copies (`IncrementalSnapshot.seen` notes them whether or not the rows have arrived yet).

A watermark that cannot be written leaves no close to wait for: `failure` says so at the task's next look, and
the task fails rather than stalling.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from datetime import UTC, datetime

from connectworker.api.errors import ConnectError

from .chunk_reader import ChunkQuery, ChunkReader, Rows
from .setup_errors import first_line
from .snapshot_requests import CLOSE, OPEN, watermark_data
from .table_shape import TableShape

Watermark = tuple[bool, str, str, str]
"""What `ChunkReader.write_watermark` takes: INSERT (or DELETE), id, kind, data."""


def window_watermarks(
    chunk_id: str, correlation_id: str | None, table: str, insert_delete: bool
) -> tuple[Watermark, Callable[[], Watermark]]:
    """A chunk's open watermark, and how to make its close (stamped when it is written), as Debezium writes
    them: INSERT `<chunk id>-open` then `<chunk id>-close`, or (`insert_delete`) DELETE the open one."""
    meta = {"openWindowTimestamp": _now(), "correlationId": correlation_id, "dataCollectionId": table}

    def closing() -> Watermark:
        if insert_delete:
            return False, f"{chunk_id}-open", OPEN, ""
        return True, f"{chunk_id}-close", CLOSE, watermark_data({**meta, "closeWindowTimestamp": _now()})

    return (True, f"{chunk_id}-open", OPEN, watermark_data(meta)), closing


def _now() -> str:
    return datetime.now(UTC).isoformat().replace("+00:00", "Z")


def watermark_error(signal_table: str, insert_delete: bool, exc: Exception) -> ConnectError:
    """Why the task fails when a watermark cannot be written, naming the grant it needs."""
    return ConnectError(
        f"The incremental snapshot cannot write its watermark to the signal table {signal_table} "
        f"(signal.data.collection): {first_line(exc)}. The connector's user needs INSERT"
        f"{' and DELETE' if insert_delete else ''} on it; the snapshot resumes at its next chunk once the task "
        "is restarted."
    )


class ChunkFetch:
    """One chunk between its watermarks, read by a `ChunkFetcher`'s thread."""

    def __init__(
        self,
        reader: ChunkReader,
        shape: TableShape,
        query: ChunkQuery,
        opening: Watermark,
        closing: Callable[[], Watermark],
    ) -> None:
        self.shape, self.query = shape, query
        self._reader, self._opening, self._closing = reader, opening, closing
        self._rows: Rows = []
        self._select_error: Exception | None = None
        self._watermark_error: Exception | None = None
        self._done = threading.Event()

    def run(self) -> None:
        reader = self._reader
        try:
            reader.write_watermark(*self._opening)
            try:
                self._rows = reader.chunk(self.shape, self.query)
            except Exception as exc:  # a table dropped meanwhile, say: the task skips the table at the close
                self._select_error = exc
            reader.write_watermark(*self._closing())
        except Exception as exc:  # reported by `failure`: the task fails naming the grant
            self._watermark_error = exc
        finally:
            self._done.set()

    def failure(self) -> Exception | None:
        """Once it is done: why a watermark was not written, if one was not (no close will come)."""
        return self._watermark_error if self._done.is_set() else None

    def result(self) -> Rows | Exception:
        """The chunk's rows (as `ChunkReader.chunk` gives them), or why the SELECT failed; waits for the
        thread, which has written the close watermark the stream just brought back (`failure` then says
        whether it has not)."""
        self._done.wait()
        return self._select_error or self._rows

    def wait(self, timeout: float) -> None:
        """Let the thread finish with the reader's connection (the task is stopping and will close it)."""
        self._done.wait(timeout)


class ChunkFetcher:
    """The thread the chunks are read on, one per snapshot engine: started at a chunk (starting a thread costs
    the task more than a chunk's watermark), gone after IDLE_S without one, or at `close`."""

    IDLE_S = 5.0

    def __init__(self) -> None:
        self._jobs: deque[ChunkFetch] = deque()
        self._ready = threading.Condition()
        self._running = self._closed = False

    def start(self, job: ChunkFetch) -> ChunkFetch:
        """`job` read on the thread (started if it is not running)."""
        with self._ready:
            self._jobs.append(job)
            self._closed = False
            if not self._running:
                self._running = True
                threading.Thread(target=self._run, name="incremental-snapshot-chunks", daemon=True).start()
            self._ready.notify()
        return job

    def _run(self) -> None:
        while True:
            with self._ready:
                if not self._jobs and not self._closed:
                    self._ready.wait(self.IDLE_S)
                if not self._jobs:
                    self._running = False
                    return
                job = self._jobs.popleft()
            job.run()

    @property
    def running(self) -> bool:
        """Whether the thread is there (reading a chunk, or waiting IDLE_S for the next)."""
        with self._ready:
            return self._running

    def close(self) -> None:
        """The thread ends once its chunk (if any) is read."""
        with self._ready:
            self._closed = True
            self._ready.notify()
