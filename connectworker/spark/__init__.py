"""Connectors on Spark, two ways.

`runner/`, the worker on Spark, `connectworker spark WORKER [CONNECTOR...]`: the standalone worker
whose tasks run as long-lived Spark tasks. `runner/spark_runtime.py` (the driver: the standalone
runtime, herder, REST and offsets, with a `SparkPlacement` of its tasks) → `runner/task_runner.py` (one
Spark job per task, each running the runtime's remote task loop, which reports to the driver over the
same channel as a standalone worker's task processes); the session, its Python workers and the
executors' checks. The runtime is used only through its packages' public surfaces
(`connectworker.runtime.runners`, `.offsets`, `.tasks`, ...).

`formats/`, the DataFrame formats, for PySpark code (Python Data Source API, Spark 4):
- ``connect-source``: a connector's tasks as a streaming source (`source.py`, `task_poll.py`);
- ``connect-kafka``: any DataFrame with Spark's Kafka-sink columns written to Kafka with
  confluent-kafka, creating missing topics by the connector's rules (`sink.py`, `kafka_writer.py`).

Call `register(spark)` once per session before using the two formats; any thread may then use them
(`formats/active_session.py` says why that needs doing). PySpark is an optional
dependency (``pip install connectworker[spark]``), imported only when this package is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SOURCE_FORMAT = "connect-source"
SINK_FORMAT = "connect-kafka"


def register(spark: SparkSession) -> None:
    """Make ``connect-source`` and ``connect-kafka`` available as formats in `spark`, to queries built
    on any thread: Spark finds a written-to Python data source only through the calling JVM thread's
    active session, which PySpark's writers now set to their own session (`formats/active_session.py`)."""
    from connectworker.spark.formats import active_session
    from connectworker.spark.formats.sink import ConnectKafka
    from connectworker.spark.formats.source import ConnectSource

    spark.dataSource.register(ConnectSource)
    spark.dataSource.register(ConnectKafka)
    active_session.install()


__all__ = ["SINK_FORMAT", "SOURCE_FORMAT", "register"]
