"""`connectworker spark`'s task runner: each connector task is one long-lived Spark task.

`start(spec)` submits a Spark job of one task (`sc.parallelize([task], 1).mapPartitions(...)`) from a
driver thread, under a job group named after the attempt, so a task that does not stop in time can be
cancelled alone. Spark places the task on a free slot, re-runs it if its executor or Python worker
dies (up to `spark.task.maxFailures`), and the task resumes from the committed offsets; when Spark
gives up, the task is FAILED with Spark's reason. One job per task (rather than one per connector)
lets a single task be restarted, paused and watched on its own, as the Worker asks of every runner.
"""

from __future__ import annotations

import logging
import threading
import traceback
from collections.abc import Callable

from pyspark import SparkContext

from connectworker.config.worker_config import WorkerConfig
from connectworker.runtime import State
from connectworker.runtime.offsets import OffsetStorageSettings
from connectworker.runtime.runners import (
    RemoteStarts,
    RemoteTask,
    RemoteTaskHandle,
    TaskChannel,
    ended_failure,
    run_remote_tasks,
)
from connectworker.runtime.tasks import TaskMetricsFactory, TaskSpec, TopicGateFactory

log = logging.getLogger(__name__)

PLACEMENT = "a Spark task"


class SparkTaskRunner:
    def __init__(
        self,
        context: SparkContext,
        worker: WorkerConfig,
        offsets: OffsetStorageSettings,
        channel: TaskChannel,
        topic_gates: TopicGateFactory,
        task_metrics: TaskMetricsFactory | None = None,
    ) -> None:
        self.context = context
        self.channel = channel
        self._starts = RemoteStarts(worker, offsets, channel, topic_gates, task_metrics, PLACEMENT, shows_host=True)
        self._running: dict[str, RemoteTaskHandle] = {}
        self._lock = threading.Lock()

    @property
    def slots(self) -> int:
        """Task slots the cluster offers now (Spark's default parallelism: cores of the executors)."""
        return max(1, self.context.defaultParallelism)

    def start(self, spec: TaskSpec, *, paused: bool, on_topics: Callable[[set[str]], None]) -> RemoteTaskHandle:
        handle, payload = self._starts.prepare(
            spec, paused=paused, on_topics=on_topics, waiting_note="Submitted to Spark; waiting for its task to start"
        )
        self.channel.register(handle.attempt, handle)
        with self._lock:
            self._running[handle.attempt] = handle
            tasks, waiting = len(self._running), list(self._running.values())
        slots = self.slots
        if tasks > slots:
            log.warning(
                "Task %s may wait for a Spark task slot: the worker runs %d task(s) and the cluster offers "
                "%d; add executors or cores, or lower tasks.max",
                spec.name,
                tasks,
                slots,
            )
            note = (
                f"Waiting for a Spark task slot: the worker runs {tasks} task(s) and the cluster offers {slots} "
                f"slot(s) (spark.default.parallelism / executor cores)"
            )
            for other in waiting:  # those not started yet say why (Spark decides which ones wait)
                other.status.annotate(State.UNASSIGNED, note)
        threading.Thread(
            target=self._run_job, args=(handle, payload), name=f"spark-job-{spec.name}", daemon=True
        ).start()
        return handle

    def _run_job(self, handle: RemoteTaskHandle, payload: RemoteTask) -> None:
        failure: str | None = None
        try:
            self.context.setJobGroup(handle.attempt, f"connectworker task {handle.name}", interruptOnCancel=True)
            ended = self.context.parallelize([payload], 1).mapPartitions(run_remote_tasks).collect()
            failure = next(filter(None, map(ended_failure, ended)), None)  # see ended_failure
        except Exception as exc:
            failure = _spark_failure(exc)
            log.error("Task %s FAILED: Spark gave up on the task: %s", handle.name, failure.splitlines()[0])
        finally:
            self.channel.unregister(handle.attempt)
            with self._lock:
                self._running.pop(handle.attempt, None)
            handle.ended_with(failure)

    def cancel(self, handle: RemoteTaskHandle) -> None:
        """End a task's Spark job now (its process is interrupted: what it did not commit is redone)."""
        self.context.cancelJobGroup(handle.attempt)

    def close(self) -> None:
        """Cancel the jobs of tasks that did not stop (the Worker gave up waiting for them)."""
        with self._lock:
            left = list(self._running.values())
        for handle in left:
            log.warning("Task %s did not stop in time: cancelling its Spark job", handle.name)
            self.cancel(handle)


def _spark_failure(exc: Exception) -> str:
    """Spark's reason for giving up on a task: the Python error of its last attempt when there is one."""
    text = str(exc)
    marker = text.find("Traceback (most recent call last)")
    if marker >= 0:
        return text[marker:].strip()
    return "".join(traceback.format_exception(exc))
