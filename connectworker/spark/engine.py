"""`connectworker spark WORKER CONNECTOR...`: the connectors of the standalone files, run on Spark.

Each connector becomes one streaming query, ``connect-source`` → ``connect-kafka``:

- the source runs the connector's tasks on the executors, one input partition per task, and creates
  new topics there with the live task's `settings_for_new_topic` (the worker's
  `topic.creation.enable` and the connector's rules apply as in standalone mode);
- the sink produces the rows with the worker's producer settings (and the connector's
  `producer.override.*`) and commits source offsets on the driver once Kafka acknowledged them.

`spark.checkpoint.location` holds Spark's own progress (one sub-directory per connector); without it
a temporary directory is used, and a restart still resumes from the committed source offsets.
`spark.trigger.interval.ms` sets the micro-batch interval, and each task polls for up to that long
per micro-batch. Stopping drains first: no new micro-batch starts, the running one commits, then the
queries stop (see `drain.py`).
"""

from __future__ import annotations

import logging
import re
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pyspark.sql import SparkSession
from pyspark.sql.streaming import StreamingQuery

from connectworker.api.config_def import config_text
from connectworker.api.errors import ConfigError
from connectworker.config.connector_config import ConnectorConfig
from connectworker.config.loading import load_connector_configs
from connectworker.config.topic_policy import policy_options
from connectworker.converters.registry import converter_config_for
from connectworker.embedded_broker import EmbeddedBroker
from connectworker.spark import SINK_FORMAT, SOURCE_FORMAT, register
from connectworker.spark.columns import SOURCE_SCHEMA_DDL
from connectworker.spark.creation_log import CreationLog
from connectworker.spark.drain import DrainSignal
from connectworker.spark.executor_check import check_executors, runs_driver_python
from connectworker.spark.options import (
    CREATION_LOG_KEY,
    CREATION_TIMEOUT_KEY,
    DEFAULT_MAX_MS,
    DRAIN_FILE_KEY,
    MAX_MS_KEY,
    PLUGIN_PATH_KEY,
)
from connectworker.spark.plugin_shipping import ship_plugin_paths
from connectworker.spark.session import open_session
from connectworker.spark.worker_settings import SparkWorker
from connectworker.topics.config_keys import WORKER_ENABLE_KEY

log = logging.getLogger(__name__)

DRAIN_TIMEOUT_S = 120.0


@dataclass
class ConnectorQuery:
    name: str
    query: StreamingQuery
    drain: DrainSignal


def converter_options(worker: SparkWorker, props: dict[str, str]) -> dict[str, str]:
    """The worker's converter and its settings for each side the connector does not override."""
    options: dict[str, str] = {}
    config = worker.config
    sides = (("key.converter", config.key_converter), ("value.converter", config.value_converter))
    for key, worker_class in sides:
        if props.get(key):
            continue  # as in Kafka, the connector's own class comes with only its own settings
        options[key] = worker_class
        options.update({f"{key}.{k}": v for k, v in converter_config_for(key, config.pass_through).items()})
    return options


def source_options(worker: SparkWorker, connector: ConnectorConfig, drain: DrainSignal,
                   creation_log: int | None = None) -> dict[str, str]:
    config = worker.config
    interval = config.spark_trigger_interval_ms
    return {
        **({CREATION_LOG_KEY: str(creation_log)} if creation_log is not None else {}),
        **connector.props,
        **converter_options(worker, connector.props),
        **{f"kafka.{k}": v for k, v in config.prefixed("admin.").items()},
        "kafka.bootstrap.servers": config.bootstrap_servers,
        WORKER_ENABLE_KEY: config_text(config.topic_creation_enable),
        CREATION_TIMEOUT_KEY: str(config.topic_creation_timeout_ms),
        **policy_options(config),  # the same create-topic policy as in standalone, on the executors
        MAX_MS_KEY: str(interval if interval > 0 else DEFAULT_MAX_MS),
        PLUGIN_PATH_KEY: ",".join(plugin_paths(worker)),
        DRAIN_FILE_KEY: str(drain.path),
        **worker.offsets.as_options(),
    }


def plugin_paths(worker: SparkWorker) -> list[str]:
    """The `plugin.path` entries as absolute paths: executors run in other working directories."""
    return [str(Path(p).resolve()) for p in worker.config.plugin_path]


def sink_options(worker: SparkWorker, connector: ConnectorConfig) -> dict[str, str]:
    config = worker.config
    producer = {**config.prefixed("producer."), **connector.producer_overrides,
                "bootstrap.servers": config.bootstrap_servers,
                "client.id": f"connector-producer-{connector.name}"}
    return {
        **{f"kafka.{k}": v for k, v in producer.items()},
        # The source already created the topics, with the task's settings_for_new_topic.
        WORKER_ENABLE_KEY: "false",
        **worker.offsets.as_options(),
    }


def checkpoint_dirs(connectors: Sequence[ConnectorConfig]) -> list[str]:
    """A stable directory name per connector (its name, with characters unsafe in paths replaced)."""
    names = [re.sub(r"[^A-Za-z0-9._-]", "_", c.name) for c in connectors]
    clashes = sorted({n for n in names if names.count(n) > 1})
    if clashes:
        raise ConfigError({"name": f"connector names map to the same checkpoint directory {clashes}: rename "
                                   f"them so they differ in letters, digits, '.', '_' or '-'"})
    return names


class SparkEngine:
    """Starts one streaming query per connector; `stop()` drains and stops them."""

    def __init__(self, worker: SparkWorker, connectors: Sequence[ConnectorConfig]) -> None:
        self.worker = worker
        self.connectors = list(connectors)
        self._checkpoint_dirs = checkpoint_dirs(self.connectors)  # a clash fails before Spark starts
        self.queries: list[ConnectorQuery] = []
        self.spark: SparkSession | None = None
        self._owns_session = False
        self._embedded: EmbeddedBroker | None = None
        self._state_dir: Path | None = None
        self._creation_log: CreationLog | None = None
        self.session_ready: float | None = None  # time.monotonic() once the session was up

    def start(self) -> SparkEngine:
        try:
            if self.worker.config.uses_embedded_broker:
                self._embedded = EmbeddedBroker().start()
                self.worker = self.worker.with_bootstrap(self._embedded.bootstrap_servers)
                log.info("bootstrap.servers=embedded: started a memory-only Tansu broker on %s",
                         self._embedded.bootstrap_servers)
            self._state_dir = Path(tempfile.mkdtemp(prefix="connectworker-spark-"))
            self.spark, self._owns_session = open_session(self.worker.config, self._state_dir)
            self.session_ready = time.monotonic()
            context = self.spark.sparkContext
            ship_plugin_paths(context, self.worker.config.plugin_path, self._state_dir)  # before register()
            register(self.spark)
            self._creation_log = CreationLog(context)
            if not runs_driver_python(context):  # a local master's workers import what this process does
                check_executors(self.spark, self.connectors, plugin_paths(self.worker))
            checkpoints = self.worker.config.spark_checkpoint_location
            if not checkpoints:
                checkpoints = str(self._state_dir / "checkpoints")
                log.info("spark.checkpoint.location is not set: Spark's checkpoints go to %s and are deleted "
                         "at exit; source offsets still resume from %s", checkpoints,
                         self.worker.offsets.describe())
            for connector, directory in zip(self.connectors, self._checkpoint_dirs, strict=True):
                self.queries.append(self._start_query(connector, Path(checkpoints) / directory))
        except BaseException:
            self.stop()
            raise
        return self

    def _start_query(self, connector: ConnectorConfig, checkpoint: Path) -> ConnectorQuery:
        assert self.spark is not None and self._state_dir is not None
        drain = DrainSignal(self._state_dir / f"{checkpoint.name}.drain")
        # The schema is known: given here, Spark need not start a Python process to ask the source.
        rows = (self.spark.readStream.format(SOURCE_FORMAT).schema(SOURCE_SCHEMA_DDL)
                .options(**source_options(self.worker, connector, drain, self._creation_log_id())).load())
        writer = (rows.writeStream.format(SINK_FORMAT).options(**sink_options(self.worker, connector))
                  .option("checkpointLocation", str(checkpoint)).queryName(connector.name))
        interval = self.worker.config.spark_trigger_interval_ms
        if interval > 0:
            writer = writer.trigger(processingTime=f"{interval} milliseconds")
        query = writer.start()
        log.info("Connector %s runs on Spark as query %s (checkpoint %s)", connector.name, query.id,
                 checkpoint)
        return ConnectorQuery(connector.name, query, drain)

    def _creation_log_id(self) -> int | None:
        return self._creation_log.accumulator_id if self._creation_log is not None else None

    def show_executor_lines(self) -> None:
        """Log the topic-creation lines the executors sent since the last call (`creation_log.py`)."""
        if self._creation_log is not None:
            self._creation_log.flush()

    def failures(self) -> dict[str, str]:
        """Connectors whose query ended with an error, with the error."""
        failed = {}
        for q in self.queries:
            if not q.query.isActive:
                error = q.query.exception()
                if error is not None:
                    failed[q.name] = str(error)
        return failed

    def running(self) -> bool:
        return any(q.query.isActive for q in self.queries)

    def stop(self, drain_timeout_s: float = DRAIN_TIMEOUT_S) -> None:
        """Let each query finish and commit its micro-batch, then stop it; release everything."""
        try:
            for q in self.queries:
                q.drain.request()
            for q in self.queries:
                if q.query.isActive and not self._drained(q, drain_timeout_s):
                    log.warning("Connector %s did not finish its micro-batch within %.0fs; stopping it "
                                "anyway: records of that batch are delivered again after a restart",
                                q.name, drain_timeout_s)
                q.query.stop()
                log.info("Connector %s stopped", q.name)
            self.show_executor_lines()
        finally:
            self.queries = []
            self._creation_log = None
            if self.spark is not None and self._owns_session:
                self.spark.stop()
            self.spark = None
            if self._embedded is not None:
                self._embedded.stop()
                self._embedded = None
            if self._state_dir is not None:
                shutil.rmtree(self._state_dir, ignore_errors=True)
                self._state_dir = None

    @staticmethod
    def _drained(q: ConnectorQuery, timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while q.query.isActive and time.monotonic() < deadline:
            if q.drain.wait(0.2):
                return True
        return not q.query.isActive


def run_spark(worker: SparkWorker, connector_paths: Sequence[str]) -> int:
    """Run until Ctrl-C (or SIGTERM), or until a query fails; 0 on a clean stop, 1 on a failure."""
    connectors = load_connector_configs(connector_paths)  # every file validated before Spark starts
    try:
        engine = SparkEngine(worker, connectors).start()
    except KeyboardInterrupt:
        log.info("Interrupted while starting; nothing was running yet")
        return 130
    # Installed after the SparkContext, which replaces the SIGINT handler with one that cancels all jobs.
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda signum, frame: stop.set())
    failed: dict[str, str] = {}
    try:
        log.info("Running %d connector(s) on Spark; Ctrl-C stops them after committing offsets",
                 len(connectors))
        while not stop.wait(0.5):
            engine.show_executor_lines()
            failed = engine.failures()
            if failed or not engine.running():
                break
        if not failed:
            log.info("Stopping: letting running micro-batches commit")
    finally:
        engine.stop()
    for name, error in failed.items():
        log.error("Connector %s FAILED on Spark: %s", name, error)
    return 1 if failed else 0
