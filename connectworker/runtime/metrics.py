"""The worker's metrics in Prometheus' format, named after Kafka Connect's metric groups.

Read at scrape time from the state the worker keeps anyway (each task's counters and status, the
topic-creation service), rather than counted again on the record path: a scrape costs a walk over the
tasks, a record costs nothing more. Each runtime has its own registry, so two workers in one process
(tests, benchmarks) never mix their numbers. Every metric, with its Kafka Connect counterpart, is in
docs/metrics.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.registry import Collector

from connectworker.runtime.status import State
from connectworker.runtime.worker import Worker
from connectworker.topics.creation import TopicCreationService

__all__ = ["CONTENT_TYPE", "WorkerMetrics"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
PREFIX = "connectworker_"
TASK_LABELS = ["connector", "task"]


class _WorkerCollector(Collector):
    def __init__(self, worker: Worker, topics: TopicCreationService | None) -> None:
        self._worker = worker
        self._topics = topics

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        def gauge(name: str, doc: str, labels: list[str] | None = None) -> GaugeMetricFamily:
            return GaugeMetricFamily(PREFIX + name, doc, labels=labels)

        def counter(name: str, doc: str) -> CounterMetricFamily:
            return CounterMetricFamily(PREFIX + name, doc, labels=TASK_LABELS)

        snapshot = self._worker.status_snapshot()
        tasks = [task for _, _, task in snapshot if task is not None]
        connectors = gauge("connector_count", "Connectors on this worker (connect-worker-metrics connector-count).")
        connectors.add_metric([], len(snapshot) - len(tasks))
        task_count = gauge("task_count", "Tasks on this worker (connect-worker-metrics task-count).")
        task_count.add_metric([], len(tasks))
        polled = counter("source_record_poll", "Records the task's poll() returned (source-record-poll-total).")
        written = counter("source_record_write", "Records handed to the producer after transforms and "
                                                 "conversion (source-record-write-total).")
        committed = counter("source_record_committed", "Records whose offsets are committed.")
        active = gauge("source_record_active_count", "Records produced whose offsets are not committed yet "
                                                     "(source-record-active-count).", TASK_LABELS)
        skipped = counter("total_records_skipped", "Records skipped under errors.tolerance=all "
                                                   "(task-error-metrics total-records-skipped).")
        retries = counter("total_retries", "Retries of a failed conversion or transform "
                                           "(task-error-metrics total-retries).")
        status = gauge("task_status", "1 for the task's current state (connector-task-metrics status).",
                       [*TASK_LABELS, "state"])
        for task in tasks:
            labels = [task.connector, str(task.task_id)]
            polled.add_metric(labels, task.polled)
            written.add_metric(labels, task.produced)
            committed.add_metric(labels, task.committed_records)
            active.add_metric(labels, max(0, task.produced - task.committed_records))
            skipped.add_metric(labels, task.tolerance.skipped)
            retries.add_metric(labels, task.tolerance.retries)
            current = task.status.state
            for state in (State.RUNNING, State.PAUSED, State.FAILED, State.UNASSIGNED):
                status.add_metric([*labels, state.value.lower()], 1 if current is state else 0)
        yield from (connectors, task_count, polled, written, committed, active, skipped, retries, status)
        if self._topics is not None:
            created = CounterMetricFamily(PREFIX + "topics_created", "Topics this worker created "
                                                                     "(beyond Kafka).")
            created.add_metric([], self._topics.created)
            known = gauge("known_topics", "Topics in the worker's known-topic cache: no Admin request is "
                                          "made for them (beyond Kafka).")
            known.add_metric([], self._topics.known.size())
            yield from (created, known)


class WorkerMetrics:
    """A registry with the worker's metrics; `exposition()` is the body of `GET /metrics`."""

    def __init__(self, worker: Worker, topics: TopicCreationService | None) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(_WorkerCollector(worker, topics))

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
