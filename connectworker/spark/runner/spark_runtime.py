"""`connectworker spark`: the standalone worker (herder, REST, metrics, offsets, topic creation on the
driver) whose tasks run as long-lived Spark tasks (`task_runner.py`) instead of threads.

The driver opens the Spark session before any connector starts, and a channel the tasks report to
(`task_channel.py`). With `offset.storage.file.filename` (a local master) the executors write the
same offsets file as the driver, each flush merging under a lock; on a cluster, `offset.storage.topic`
is where the tasks commit, as Kafka Connect's distributed workers do, and `config.storage.topic` keeps
the connectors created through the REST API, so that a driver restarted on another host finds them.
"""

from __future__ import annotations

import logging
import shutil
import signal
import tempfile
from collections.abc import Callable
from pathlib import Path

from pyspark import SparkContext

from connectworker.api.errors import ConnectError
from connectworker.runtime.herder.connector_store import ConnectorStoreBase
from connectworker.runtime.herder.standalone import StandaloneRuntime
from connectworker.runtime.offsets.backing_store import OffsetBackingStore
from connectworker.runtime.offsets.file_store import FileOffsetStore
from connectworker.runtime.offsets.storage_settings import offset_storage_settings
from connectworker.runtime.runners.task_channel import TaskChannel
from connectworker.runtime.runners.task_runner import TaskRunner
from connectworker.spark.runner.executor_check import check_executors, runs_driver_python
from connectworker.spark.runner.plugin_shipping import ship_plugin_paths
from connectworker.spark.runner.session import JvmLaunch, open_context
from connectworker.spark.runner.task_runner import SparkTaskRunner

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"


class SparkRuntime(StandaloneRuntime):
    runs_task_processes = False  # its tasks are Spark tasks
    context: SparkContext | None = None
    _owns_session = False
    _runner: SparkTaskRunner | None = None
    _state_dir: Path | None = None
    _jvm: JvmLaunch | None = None

    def start(self, *, interrupt: Callable[[], None] | None = None) -> SparkRuntime:
        """As the standalone runtime's, with Spark's JVM launched first, on a thread: its start-up
        overlaps the embedded broker's, the cluster check and the offsets' reading."""
        self._jvm = JvmLaunch.begin(self.config)
        try:
            super().start(interrupt=interrupt)
        except BaseException:
            self._discard_jvm()
            raise
        return self

    def _discard_jvm(self) -> None:
        jvm, self._jvm = self._jvm, None
        if jvm is not None:
            jvm.discard()

    def _open_file_store(self, path: str) -> OffsetBackingStore:
        if not self.config.spark_master.startswith("local"):
            log.warning(
                "Offsets are kept in %s, which the executors write: on a cluster every executor must "
                "see the same file. Set offset.storage.topic instead.",
                path,
            )
        return FileOffsetStore(path, shared=True)  # the executors' tasks write it too

    def _open_connector_store(self) -> ConnectorStoreBase:
        store = super()._open_connector_store()
        if not self.config.spark_master.startswith("local") and not self.config.config_storage_topic:
            log.warning(
                "Connectors created through the REST API are kept in %s, on this host only: a driver "
                "started on another host would not find them. Set config.storage.topic to keep them in "
                "Kafka.",
                store.describe(),
            )
        return store

    def _task_runner(self) -> TaskRunner:
        self._state_dir = Path(tempfile.mkdtemp(prefix="connectworker-spark-"))
        sigint = signal.getsignal(signal.SIGINT)
        self.context, self._owns_session = open_context(self.config, self._state_dir, self._jvm)
        # The SparkContext installs a SIGINT handler that cancels every job: the tasks would be killed
        # without committing. Ctrl-C stops the worker as in standalone mode instead.
        signal.signal(signal.SIGINT, sigint)
        context = self.context
        ship_plugin_paths(context, self.config.plugin_path, self._state_dir)
        if not runs_driver_python(context):  # a local master's workers import what this process does
            check_executors(context, self.file_connectors, [str(Path(p).resolve()) for p in self.config.plugin_path])
        local = self.config.spark_master.startswith("local")
        host = LOOPBACK if local else context.getConf().get("spark.driver.host", LOOPBACK)
        self._channel = TaskChannel(host)
        assert self.gates is not None
        self._runner = SparkTaskRunner(
            context, self.config, offset_storage_settings(self.config), self._channel, self.gates, self.metrics.for_task
        )
        log.info(
            "Tasks run as Spark tasks (master %s, %d task slot(s)); they report to %s:%d",
            context.master,
            self._runner.slots,
            *self._channel.address,
        )
        return self._runner

    def _release_runner(self) -> None:
        self._discard_jvm()
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
        if self._state_dir is not None:
            shutil.rmtree(self._state_dir, ignore_errors=True)
            self._state_dir = None
