"""The topic-creation lines of the executors, logged again by the `connectworker spark` driver.

Topics are created where the records are, in the executors' Python workers (`task_poll.py`). Their
log lines ("Created topic ...") would stay in each executor's stderr, which on a cluster is a file on
another machine. So the engine hands the source the id of a Spark accumulator it created on the
driver; in each `read()` the executor collects the INFO-and-above records of the topic-creation logger
into that accumulator, Spark sends them to the driver with the task's result, and the engine logs
each one, once, under the same logger name, so the console reads as in standalone mode.

An accumulator reaches the driver only when its Spark task succeeds: the lines of a failed task are
not shown (the topics it created are still there, and the retried task finds them). The workers
register the accumulator by id with PySpark's own `_deserialize_accumulator`, what PySpark does when
it unpickles an accumulator captured by a function; a data source's `read()` cannot capture one,
because the reader is built in a Python process that has no SparkContext.
"""

from __future__ import annotations

import logging
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from pyspark.accumulators import AccumulatorParam, _deserialize_accumulator

if TYPE_CHECKING:
    from pyspark import Accumulator, SparkContext

CREATION_LOGGER = "connectworker.topics.creation"

Line = tuple[int, str, dict[str, Any]]
"""(level, message, the record's `connector`/`topic` extras) of one executor log line."""


class LinesParam(AccumulatorParam[list[Line]]):
    def zero(self, value: list[Line]) -> list[Line]:
        return []

    def addInPlace(self, value1: list[Line], value2: list[Line]) -> list[Line]:
        value1.extend(value2)
        return value1


class _Collector(logging.Handler):
    """Adds the records of the creation logger to the accumulator of the running `read()`, if any."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.accumulator: Accumulator[list[Line]] | None = None

    def emit(self, record: logging.LogRecord) -> None:
        accumulator = self.accumulator
        if accumulator is None:
            return
        extra = {k: getattr(record, k) for k in ("connector", "topic") if hasattr(record, k)}
        extra["executor"] = socket.gethostname()
        accumulator.add([(record.levelno, record.getMessage(), extra)])


_collector: _Collector | None = None
_collector_lock = threading.Lock()


@contextmanager
def collecting(accumulator_id: int | None) -> Iterator[None]:
    """While in the block (one `read()` in an executor's Python worker), send this process's
    topic-creation lines to the driver through the accumulator `accumulator_id`."""
    global _collector
    if accumulator_id is None:
        yield
        return
    with _collector_lock:
        if _collector is None:
            _collector = _Collector()
            creation = logging.getLogger(CREATION_LOGGER)
            creation.addHandler(_collector)
            if creation.getEffectiveLevel() > logging.INFO:
                creation.setLevel(logging.INFO)  # its INFO lines are what the driver shows
        collector = _collector
    # PySpark clears its accumulator registry at the start of every task and sends what the task
    # registered at its end, so the accumulator is registered again for this task.
    collector.accumulator = _deserialize_accumulator(accumulator_id, [], LinesParam())
    try:
        yield
    finally:
        collector.accumulator = None


class CreationLog:
    """Driver side: the accumulator, and `flush()` to log the lines that arrived since the last call."""

    def __init__(self, context: SparkContext) -> None:
        self.accumulator: Accumulator[list[Line]] = context.accumulator([], LinesParam())
        self._shown = 0
        self._seen: set[str] = set()  # a rule warning comes from every worker process; show it once
        self._log = logging.getLogger(CREATION_LOGGER)

    @property
    def accumulator_id(self) -> int:
        return int(self.accumulator.aid)

    def flush(self) -> None:
        lines = self.accumulator.value  # appended to by PySpark's accumulator server thread
        end = len(lines)
        new, self._shown = lines[self._shown:end], end
        for level, message, extra in new:
            if message in self._seen:
                continue
            self._seen.add(message)
            self._log.log(level, message, extra=extra)
