"""`connect-source`: a connector's tasks as a Spark streaming source, one input partition per task.

Spark's offset for this source is only a micro-batch counter; the real positions are the connector's
committed source offsets in the offset storage. Every micro-batch the driver (`partitions()`, in the
query's long-lived Python process) reads them and puts them in each task's input partition; the
executors' `read()` resumes each task from there (see `task_poll.py`). The connector itself is
started once per query, on the driver, to split the work into task configs.

Offsets move only when the `connect-kafka` sink commits a batch, after Kafka acknowledged all of its
rows. So a micro-batch that fails, or is replayed after a crash, reads again from the last committed
offsets: records are delivered at least once and never skipped. Written to another sink, the same
records would be read again every micro-batch; commit them from `foreachBatch` with a batch write to
`connect-kafka` instead (docs/spark.md).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import Any

import pyarrow as pa
from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadLimit
from pyspark.sql.types import StructType

from connectworker.api.connector import SourceConnector
from connectworker.api.required_topics import RequiredTopic
from connectworker.config.connector_config import ConnectorConfig, parse_connector_config
from connectworker.runtime import DetachedConnectorContext
from connectworker.runtime.clients import open_topic_admin
from connectworker.runtime.offsets import OffsetBackingStore, read_committed
from connectworker.runtime.topic_creation import RequiredTopics
from connectworker.spark.formats.columns import SOURCE_SCHEMA_DDL
from connectworker.spark.formats.options import SourceSettings
from connectworker.spark.formats.task_poll import TaskPartition, poll_task

log = logging.getLogger(__name__)

BATCH = "batch"
FIRST_BATCH_MAX_MS = 200
"""The poll time of a query's first micro-batch (when `microbatch.max.ms` is longer): that batch also
starts the Python workers, so a short poll brings the first commit forward; later batches poll fully."""


class ConnectSource(DataSource):
    """``spark.readStream.format("connect-source").options(**connector_config).load()``."""

    @classmethod
    def name(cls) -> str:
        return "connect-source"

    def schema(self) -> str:
        settings = SourceSettings.from_options(self.options)  # bad options fail at load(), on the driver
        parse_connector_config(
            settings.connector, source="connect-source options", extra_topic_configs=settings.extra_topic_configs
        )
        return SOURCE_SCHEMA_DDL

    def streamReader(self, schema: StructType) -> ConnectStreamReader:
        return ConnectStreamReader(SourceSettings.from_options(self.options))


class ConnectStreamReader(DataSourceStreamReader):
    """Plans one `TaskPartition` per task on the driver; `read()` runs the task on an executor.

    Spark pickles this object to the executors for `read()`; the connector and the offset storage
    exist only in the driver's instance and are created on first use there.
    """

    def __init__(self, settings: SourceSettings) -> None:
        self._settings = settings
        self._init_driver_state()

    def _init_driver_state(self) -> None:
        self._config: ConnectorConfig | None = None
        self._connector: SourceConnector | None = None
        self._task_configs: list[dict[str, str]] = []
        self._storage: OffsetBackingStore | None = None
        self._batch = 0
        self._planned = 0  # micro-batches planned by this reader: the first one polls briefly

    def __getstate__(self) -> dict[str, Any]:
        return {"settings": self._settings}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._settings = state["settings"]
        self._init_driver_state()

    # -- offsets (driver) ------------------------------------------------------------------------
    def initialOffset(self) -> dict[str, int]:
        return {BATCH: 0}

    def latestOffset(self, start: dict[str, int] | None = None, limit: ReadLimit | None = None) -> dict[str, int]:
        """One more micro-batch per trigger."""
        current = self._batch if start is None else int(start[BATCH])
        self._batch = current + 1
        return {BATCH: self._batch}

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> Sequence[InputPartition]:
        if start == end:
            return []
        config, task_configs = self._started()
        offsets = read_committed(self._open_storage(), config.name)  # the sink commits in another process
        max_ms = min(FIRST_BATCH_MAX_MS, self._settings.max_ms) if self._planned == 0 else None
        self._planned += 1
        return [
            TaskPartition(int(end[BATCH]), task_id, props, offsets, max_ms)
            for task_id, props in enumerate(task_configs)
        ]

    def _started(self) -> tuple[ConnectorConfig, list[dict[str, str]]]:
        if self._config is None:
            config = parse_connector_config(
                self._settings.connector,
                source="connect-source options",
                extra_topic_configs=self._settings.extra_topic_configs,
            )
            connector = config.connector_class()
            context = DetachedConnectorContext(config.name, "the connect-source DataFrame source")
            connector.initialize(context)
            connector.start(config.props)
            if context.error is not None:
                connector.stop()
                raise context.error
            try:
                self._ensure_required_topics(config.name, connector.required_topics(config.props))
            except BaseException:
                connector.stop()
                raise
            self._connector = connector
            task_configs = connector.task_configs(config.tasks_max)[: config.tasks_max]
            self._task_configs = [{**config.props, **task_props} for task_props in task_configs]
            self._config = config
            log.info(
                "Connector %s started on Spark with %d task(s); offsets in %s",
                config.name,
                len(self._task_configs),
                self._open_storage().describe(),
            )
        return self._config, self._task_configs

    def _ensure_required_topics(self, connector: str, required: Sequence[RequiredTopic]) -> None:
        """The topics the connector requires, made ready before any task runs, as a worker does."""
        if not required:
            return
        kafka = self._settings.kafka
        timeout_s = self._settings.creation_timeout_ms / 1000
        client = {k: v for k, v in kafka.items() if k != "bootstrap.servers"}
        admin = open_topic_admin(kafka["bootstrap.servers"], client, request_timeout_s=min(30.0, timeout_s))
        try:
            RequiredTopics(admin, timeout_s, kafka["bootstrap.servers"]).ensure(connector, required)
        finally:
            admin.close()

    def _open_storage(self) -> OffsetBackingStore:
        if self._storage is None:
            self._storage = self._settings.offsets.open()
        return self._storage

    # -- records (executors) ---------------------------------------------------------------------
    def read(self, partition: InputPartition) -> Iterator[pa.RecordBatch]:
        assert isinstance(partition, TaskPartition)
        return poll_task(self._settings, partition)

    def stop(self) -> None:
        connector, self._connector = self._connector, None
        storage, self._storage = self._storage, None
        try:
            if connector is not None:
                connector.stop()
        finally:
            if storage is not None:
                storage.close()
