"""Writes to `connect-kafka` (and any other Python data source) from whatever thread starts them.

Why this exists. Spark 4 keeps Python data sources per session (`spark.dataSource.register`), but a
writer finds one by name through the *active session of the calling JVM thread*:
`DataSource.lookupDataSource` (behind `DataFrameWriter.save` and `DataStreamWriter.start`) treats a
name as a Python data source only if `SparkSession.getActiveSession` is set on that thread and knows
it, and fails with `DATA_SOURCE_NOT_FOUND` otherwise. A reader's format is resolved later, while the
query is analysed with its own session active, so `spark.readStream.format("connect-source")`
resolves on any thread; a writer's is not.

The active session is a JVM thread-local, and PySpark's Python threads are served by JVM threads
py4j creates: each Python thread gets its own JVM thread on its first call, and that JVM thread
starts with no active session. PySpark sets one only where a session is created and in
`createDataFrame`. So a query started from another Python thread than the one that built the
session (a thread pool, a scheduler, a notebook kernel's executor) does not find `connect-kafka`.
Even the same Python thread can change JVM threads: py4j opens a new connection, hence a new JVM
thread, when its old one was closed, and forking a child that runs Python (a `preexec_fn`, as
`child_processes.spawn` uses for the embedded broker) closes the other threads' connections from
the child (their thread-locals are dropped there, and a py4j connection shuts its socket down when
collected). That is how a test's main thread lost its session after the broker fixture started.

What is done. `register(spark)` wraps PySpark's `DataFrameWriter.save` and `DataStreamWriter.start`
once per process: each call runs with the writer's own session (that of the DataFrame being
written) active on the calling thread, as Spark's `SparkSession.withActive` does around its own
work, and the thread's earlier active session (or none) is put back afterwards. That is at the
moment of the lookup and on the thread that does it, whichever thread that is and however py4j
served it before. Registering again on each thread would not do: registration is per session, not
per thread, and the new JVM thread still has no active session to find it through.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from pyspark.sql import SparkSession
from pyspark.sql.readwriter import DataFrameWriter
from pyspark.sql.streaming.readwriter import DataStreamWriter

__all__ = ["activated", "install"]

Method = TypeVar("Method", bound=Callable[..., Any])

_lock = threading.Lock()
_installed = False


@contextmanager
def activated(session: SparkSession) -> Iterator[None]:
    """`session` is the active session of the JVM thread serving this Python thread while the block
    runs; that thread's earlier active session (or none) is restored after it."""
    jvm = session._jvm
    assert jvm is not None
    sessions = SparkSession._get_j_spark_session_class(jvm)  # the class PySpark itself sets it on
    earlier = sessions.getActiveSession()
    sessions.setActiveSession(session._jsparkSession)
    try:
        yield
    finally:
        if earlier.isDefined():
            sessions.setActiveSession(earlier.get())
        else:
            sessions.clearActiveSession()


def _under_writers_session(method: Method) -> Method:
    @functools.wraps(method)
    def call(writer: DataFrameWriter | DataStreamWriter, *args: Any, **kwargs: Any) -> Any:
        with activated(writer._spark):
            return method(writer, *args, **kwargs)

    return call  # type: ignore[return-value]


def install() -> None:
    """Wrap `DataFrameWriter.save` and `DataStreamWriter.start` (once per process; later calls do
    nothing), so that the data source a write names is looked up through the writer's session."""
    global _installed
    with _lock:
        if _installed:
            return
        DataFrameWriter.save = _under_writers_session(DataFrameWriter.save)  # type: ignore[method-assign]
        DataStreamWriter.start = _under_writers_session(DataStreamWriter.start)  # type: ignore[method-assign]
        _installed = True
