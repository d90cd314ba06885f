"""`connectworker spark`: the standalone worker (herder, REST, metrics, offsets, topic creation on the
driver) whose tasks run as long-lived Spark tasks (`task_runner.py`) instead of threads: the standalone
runtime with a `SparkPlacement`.

The driver opens the Spark session before any connector starts, and a channel the tasks report to
(`task_channel.py`). With `offset.storage.file.filename` (a local master) the executors write the
same offsets file as the driver, each flush merging under a lock; on a cluster, `offset.storage.topic`
is where the tasks commit, as Kafka Connect's distributed workers do, and `config.storage.topic` keeps
the connectors created through the REST API, so that a driver restarted on another host finds them.
"""

from __future__ import annotations

import logging
import signal
from collections.abc import Sequence
from pathlib import Path

from pyspark import SparkContext

from connectworker.api.errors import ConnectError
from connectworker.config.connector_config import ConnectorConfig
from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime.herder import StandaloneRuntime
from connectworker.runtime.offsets import offset_storage_settings
from connectworker.runtime.runners import LOOPBACK, RunnerNeeds, TaskChannel, TaskRunner
from connectworker.spark.runner.executor_check import check_executors, runs_driver_python
from connectworker.spark.runner.plugin_shipping import ship_plugin_paths
from connectworker.spark.runner.session import JvmLaunch, open_context
from connectworker.spark.runner.state_dirs import StateDir
from connectworker.spark.runner.task_runner import SparkTaskRunner

log = logging.getLogger(__name__)

__all__ = ["SparkPlacement", "spark_runtime"]


def spark_runtime(config: WorkerConfig, file_connectors: Sequence[ConnectorConfig] = ()) -> StandaloneRuntime:
    """The worker `connectworker spark` runs: the standalone runtime, its tasks placed in Spark."""
    return StandaloneRuntime(config, file_connectors, placement=SparkPlacement())


class SparkPlacement:
    """Tasks as long-lived Spark tasks (a `TaskPlacement`). Spark's JVM is launched in `prepare`, on a
    thread: its start-up overlaps the embedded broker's, the cluster check and the offsets' reading."""

    def __init__(self) -> None:
        self.context: SparkContext | None = None
        self._owns_session = False
        self._jvm: JvmLaunch | None = None
        self._runner: SparkTaskRunner | None = None
        self._channel: TaskChannel | None = None
        self._state: StateDir | None = None

    def prepare(self, config: WorkerConfig) -> None:
        self._jvm = JvmLaunch.begin(config)

    def spans_hosts(self, config: WorkerConfig) -> bool:
        return not config.spark_master.startswith("local")

    def shares_offsets_file(self, config: WorkerConfig) -> bool:
        return True  # the executors' tasks write it too

    def open_runner(self, needs: RunnerNeeds) -> TaskRunner:
        config = needs.config
        self._state = StateDir.create()
        sigint = signal.getsignal(signal.SIGINT)
        self.context, self._owns_session = open_context(config, self._state.path, self._jvm)
        # The SparkContext installs a SIGINT handler that cancels every job: the tasks would be killed
        # without committing. Ctrl-C stops the worker as in standalone mode instead.
        signal.signal(signal.SIGINT, sigint)
        context = self.context
        ship_plugin_paths(context, config.plugin_path, self._state.path)
        if not runs_driver_python(context):  # a local master's workers import what this process does
            check_executors(context, needs.file_connectors, [str(Path(p).resolve()) for p in config.plugin_path])
        host = LOOPBACK if config.spark_master.startswith("local") else context.getConf().get("spark.driver.host")
        self._channel = TaskChannel(host or LOOPBACK)
        self._runner = SparkTaskRunner(
            context, config, offset_storage_settings(config), self._channel, needs.gates, needs.task_metrics
        )
        log.info(
            "Tasks run as Spark tasks (master %s, %d task slot(s)); they report to %s:%d",
            context.master,
            self._runner.slots,
            *self._channel.address,
        )
        return self._runner

    def close(self) -> None:
        jvm, self._jvm = self._jvm, None
        if jvm is not None:
            jvm.discard()
        if self._runner is not None:
            self._runner.close()
            self._runner = None
        if self._channel is not None:
            self._channel.close()
            self._channel = None
        if self.context is not None and self._owns_session:
            try:
                self.context.stop()
            except Exception as exc:  # the JVM may already be gone (killed with the process group)
                raise ConnectError(f"Stopping the Spark session failed: {exc}") from exc
            finally:
                self.context = None
        state, self._state = self._state, None
        if state is not None:
            state.remove()
