"""The Spark session `connectworker spark` runs in (`open_context`: a SparkContext alone, which is all
the worker needs) and the one the DataFrame formats' users get (`open_session`).

`spark.master` (default `local[*]`) and every `spark.conf.<spark key>` of the worker file configure
it. The JVM is started in its own session (process group): a Ctrl-C in the terminal then reaches only
the Python driver, which stops the tasks gracefully, instead of also interrupting the Python workers
in the middle of a poll (PySpark's workers re-enable SIGINT).

The console shows connectworker's lines, not Spark's chatter: progress bars are off unless
`spark.conf.spark.ui.showConsoleProgress=true`, and the WARN Spark's streaming trigger logs when a
micro-batch took longer than its interval ("Current batch is falling behind") is turned off: with the
DataFrame formats each task polls for up to the interval, so the warning would come every batch.
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from py4j.java_gateway import JavaGateway
from pyspark import SparkConf, SparkContext
from pyspark.java_gateway import launch_gateway
from pyspark.sql import SparkSession

from connectworker.config.worker_config import WorkerConfig
from connectworker.spark.runner.python_launcher import runs_this_interpreter, write_launcher

log = logging.getLogger(__name__)

APP_NAME = "connectworker"
SUBMIT_GATEWAY_ENV = "PYSPARK_GATEWAY_PORT"  # set when spark-submit runs this process
CONSOLE_DEFAULTS = {"spark.ui.showConsoleProgress": "false"}
"""Settings of our own sessions unless the worker file's `spark.conf.*` names them."""
DAEMON_MODULE_KEY = "spark.python.daemon.module"
PRELOADING_DAEMON = "connectworker.spark.runner.worker_daemon"
"""The Python worker daemon of a local master, which imports the task runtime once, before it forks."""
QUIET_LOGGERS = (  # the trigger's "Current batch is falling behind" (Spark 4.1+, then Spark 4.0)
    "org.apache.spark.sql.execution.streaming.runtime.ProcessingTimeExecutor",
    "org.apache.spark.sql.execution.streaming.ProcessingTimeExecutor",
)


def spark_conf(config: WorkerConfig) -> SparkConf:
    conf = SparkConf().setAppName(APP_NAME)
    # Under spark-submit the master comes from its --master, unless the worker file names one.
    if "spark_master" in config.model_fields_set or SUBMIT_GATEWAY_ENV not in os.environ:
        conf.setMaster(config.spark_master)
    for key, value in CONSOLE_DEFAULTS.items():
        conf.set(key, value)
    if _local_workers_run_this_python(config):  # they have connectworker: their daemon preloads it
        conf.set(DAEMON_MODULE_KEY, PRELOADING_DAEMON)
    for key, value in config.prefixed("spark.conf.").items():
        conf.set(key, value)
    return conf


def _local_workers_run_this_python(config: WorkerConfig) -> bool:
    """Whether the master is local and its Python workers will run this interpreter: neither
    spark-submit nor the user (`PYSPARK_PYTHON`, `spark.pyspark.python`) chose another."""
    given = os.environ.get("PYSPARK_PYTHON")
    chosen = "spark.pyspark.python" in config.prefixed("spark.conf.") or not (
        given is None or runs_this_interpreter(given)
    )
    return config.spark_master.startswith("local") and SUBMIT_GATEWAY_ENV not in os.environ and not chosen


def open_session(config: WorkerConfig, work_dir: Path) -> tuple[SparkSession, bool]:
    """The active session if there is one (not ours to stop), else a new one (ours: True).
    `work_dir` holds what the session needs while it runs (the Python launcher of a local master)."""
    active = SparkSession.getActiveSession()
    if active is not None:
        log.info(
            "Using the active Spark session (master %s); spark.master and spark.conf.* of the worker "
            "file do not apply to it",
            active.sparkContext.master,
        )
        return active, False
    context, owned = open_context(config, work_dir)
    return SparkSession(context), owned


def open_context(config: WorkerConfig, work_dir: Path, jvm: JvmLaunch | None = None) -> tuple[SparkContext, bool]:
    """The running SparkContext if there is one (not ours to stop), else a new one (ours: True), on the
    JVM `jvm` launched ahead of time when given. Without a SparkSession, which costs seconds more to
    create and which `connectworker spark` does not need."""
    running = SparkContext._active_spark_context
    if running is not None:
        log.info(
            "Using the running SparkContext (master %s); spark.master and spark.conf.* of the worker "
            "file do not apply to it",
            running.master,
        )
        return running, False
    conf = jvm.conf if jvm is not None else spark_conf(config)  # the one the JVM was launched with
    # PySpark keeps the first JVM gateway of the process for every later SparkContext, so a second
    # session in the same process (tests, benchmarks) must not launch a JVM it would never use.
    gateway = SparkContext._gateway or (jvm.gateway() if jvm is not None else _launch_jvm(conf))
    with _python_workers(config, work_dir):
        context = SparkContext(conf=conf, gateway=gateway)
    quiet_jvm_loggers(context)
    log.info("Spark session started: master %s, Spark %s", context.master, context.version)
    return context, True


def _launch_jvm(conf: SparkConf) -> JavaGateway:
    return launch_gateway(conf, popen_kwargs={"start_new_session": True})


class JvmLaunch:
    """Spark's JVM (the py4j gateway), launched on a thread as soon as the worker's config is known, so
    that its seconds of start-up overlap the driver's own (the embedded broker, the cluster check, the
    offsets) instead of following them. `open_context` takes it over; `discard()` ends one never used."""

    def __init__(self, config: WorkerConfig) -> None:
        self.conf = spark_conf(config)
        self._gateway: JavaGateway | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._launch, name="spark-jvm-launch", daemon=True)
        self._thread.start()

    @classmethod
    def begin(cls, config: WorkerConfig) -> JvmLaunch | None:
        """None when there is nothing to launch: this process has its JVM already, or spark-submit's."""
        if SparkContext._gateway is not None or SUBMIT_GATEWAY_ENV in os.environ:
            return None
        return cls(config)

    def _launch(self) -> None:
        try:
            self._gateway = _launch_jvm(self.conf)
        except BaseException as exc:  # raised to whoever asks for the gateway
            self._error = exc

    def gateway(self) -> JavaGateway:
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._gateway is not None
        return self._gateway

    def discard(self) -> None:
        """End the JVM unless a SparkContext runs on it (start-up stopped before the session opened)."""
        self._thread.join()
        gateway, self._gateway = self._gateway, None
        if gateway is None or gateway is SparkContext._gateway:
            return
        gateway.shutdown()
        process: subprocess.Popen[bytes] | None = getattr(gateway, "proc", None)
        if process is None:
            return
        if process.stdin is not None:
            process.stdin.close()  # the gateway server exits when its stdin closes
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def _python_workers(config: WorkerConfig, work_dir: Path) -> Iterator[None]:
    """While the SparkContext is created (it reads `PYSPARK_PYTHON` once): on a local master, Python
    workers run this interpreter, through the launcher of `python_launcher.py` when it applies."""
    given = os.environ.get("PYSPARK_PYTHON")
    if not _local_workers_run_this_python(config):
        yield
        return
    # Local executors must run this interpreter, which has connectworker and the connectors.
    os.environ["PYSPARK_PYTHON"] = write_launcher(work_dir) or sys.executable
    try:
        yield
    finally:
        if given is None:
            del os.environ["PYSPARK_PYTHON"]
        else:
            os.environ["PYSPARK_PYTHON"] = given


def quiet_jvm_loggers(context: SparkContext) -> None:
    """Only errors from the `QUIET_LOGGERS`, set through the driver JVM's log4j2 `Configurator`."""
    jvm = context._jvm
    assert jvm is not None
    error = jvm.org.apache.logging.log4j.Level.ERROR
    for name in QUIET_LOGGERS:
        jvm.org.apache.logging.log4j.core.config.Configurator.setLevel(name, error)
