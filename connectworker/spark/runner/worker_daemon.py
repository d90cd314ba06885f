"""PySpark's Python worker daemon, with the modules a connector task needs imported before it forks.

Spark starts one daemon per executor (`spark.python.daemon.module`, default `pyspark.daemon`) and forks
a Python worker from it for each task. Every worker of `connectworker spark` then imports the task
runtime (`remote_task`: the worker config, the task loop, converters, confluent-kafka): about 0.45 s
of CPU each, paid on the way to the first record, by every worker at once. Imported here, in the
daemon, it is paid once and inherited by each fork. Nothing imported here may start a thread (a fork
keeps only the forking thread); `test_spark.py` checks the daemon's threads.

Set by `session.spark_conf` only where the executors run the driver's own interpreter (a local
master): elsewhere their Python may lack connectworker, which the executor check reports clearly.
"""

from __future__ import annotations

import pyspark.daemon

from connectworker.runtime.clients import tune_gc_for_throughput
from connectworker.runtime.runners import run_remote_tasks  # noqa: F401  (imported for the forks to inherit)

if __name__ == "__main__":
    tune_gc_for_throughput()  # the forked workers run record paths, as a worker's task processes do
    pyspark.daemon.manager()
