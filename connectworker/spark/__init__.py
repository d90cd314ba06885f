"""The connector pipeline on Spark through PySpark's Python Data Source API (Spark 4).

- ``connect-source``: a connector's tasks as a streaming source (`source.py`);
- ``connect-kafka``: any DataFrame with Spark's Kafka-sink columns written to Kafka with
  confluent-kafka, creating missing topics by the connector's rules (`sink.py`);
- `connectworker spark WORKER CONNECTOR...` wires the two from the standalone files (`engine.py`).

Call `register(spark)` once per session before using the two formats. PySpark is an optional
dependency (``pip install connectworker[spark]``), imported only when this package is used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

SOURCE_FORMAT = "connect-source"
SINK_FORMAT = "connect-kafka"


def register(spark: SparkSession) -> None:
    """Make ``connect-source`` and ``connect-kafka`` available as formats in `spark`."""
    from connectworker.spark.sink import ConnectKafka
    from connectworker.spark.source import ConnectSource

    spark.dataSource.register(ConnectSource)
    spark.dataSource.register(ConnectKafka)


__all__ = ["SINK_FORMAT", "SOURCE_FORMAT", "register"]
