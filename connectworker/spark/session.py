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
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pyspark import SparkConf, SparkContext
from pyspark.java_gateway import launch_gateway
from pyspark.sql import SparkSession

from connectworker.config.worker_config import WorkerConfig
from connectworker.spark.python_launcher import runs_this_interpreter, write_launcher

log = logging.getLogger(__name__)

APP_NAME = "connectworker"
SUBMIT_GATEWAY_ENV = "PYSPARK_GATEWAY_PORT"  # set when spark-submit runs this process
CONSOLE_DEFAULTS = {"spark.ui.showConsoleProgress": "false"}
"""Settings of our own sessions unless the worker file's `spark.conf.*` names them."""
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
    for key, value in config.prefixed("spark.conf.").items():
        conf.set(key, value)
    return conf


def open_session(config: WorkerConfig, work_dir: Path) -> tuple[SparkSession, bool]:
    """The active session if there is one (not ours to stop), else a new one (ours: True).
    `work_dir` holds what the session needs while it runs (the Python launcher of a local master)."""
    active = SparkSession.getActiveSession()
    if active is not None:
        log.info("Using the active Spark session (master %s); spark.master and spark.conf.* of the worker "
                 "file do not apply to it", active.sparkContext.master)
        return active, False
    context, owned = open_context(config, work_dir)
    return SparkSession(context), owned


def open_context(config: WorkerConfig, work_dir: Path) -> tuple[SparkContext, bool]:
    """The running SparkContext if there is one (not ours to stop), else a new one (ours: True). Without
    a SparkSession, which costs seconds more to create and which `connectworker spark` does not need."""
    running = SparkContext._active_spark_context
    if running is not None:
        log.info("Using the running SparkContext (master %s); spark.master and spark.conf.* of the worker "
                 "file do not apply to it", running.master)
        return running, False
    conf = spark_conf(config)
    # PySpark keeps the first JVM gateway of the process for every later SparkContext, so a second
    # session in the same process (tests, benchmarks) must not launch a JVM it would never use.
    gateway = SparkContext._gateway or launch_gateway(conf, popen_kwargs={"start_new_session": True})
    with _python_workers(config, work_dir):
        context = SparkContext(conf=conf, gateway=gateway)
    quiet_jvm_loggers(context)
    log.info("Spark session started: master %s, Spark %s", context.master, context.version)
    return context, True


@contextmanager
def _python_workers(config: WorkerConfig, work_dir: Path) -> Iterator[None]:
    """While the SparkContext is created (it reads `PYSPARK_PYTHON` once): on a local master, Python
    workers run this interpreter, through the launcher of `python_launcher.py` when it applies."""
    given = os.environ.get("PYSPARK_PYTHON")
    local = config.spark_master.startswith("local") and SUBMIT_GATEWAY_ENV not in os.environ
    chosen = "spark.pyspark.python" in config.prefixed("spark.conf.") or not (
        given is None or runs_this_interpreter(given))  # the user named another interpreter
    if not local or chosen:
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
