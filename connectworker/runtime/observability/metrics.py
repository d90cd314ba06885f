"""The worker's metrics in Prometheus' format, named after Kafka Connect's metric groups.

Counts are read at scrape time from the state the worker keeps anyway (each task's counters and status,
the topic-creation service), rather than counted again on the record path: a scrape costs a walk over
the tasks, a record costs nothing more. Distributions (poll time, batch size, commit time, topic
creation time) are Prometheus histograms observed once per poll, commit or created topic. Each runtime
has its own registry, so two workers in one process (tests, benchmarks) never mix their numbers. Every
metric, with its Kafka Connect counterpart, is in docs/metrics.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol

from prometheus_client import CollectorRegistry, Counter, Histogram, disable_created_metrics, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from connectworker.api.operator import SnapshotProgress
from connectworker.runtime.observability.snapshot_metrics import snapshot_families
from connectworker.runtime.observability.task_metrics import StartupCounts, TaskMetrics
from connectworker.runtime.observability.task_progress import shown_progress, snapshot_of
from connectworker.runtime.observability.task_stats import TaskStats
from connectworker.runtime.status import State, Status

__all__ = ["CONTENT_TYPE", "WorkerMetrics"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
PREFIX = "connectworker_"
TASK_LABELS = ["connector", "task"]
SECONDS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
RECORDS = (1, 10, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 50000)
STATES = (State.RUNNING, State.PAUSED, State.FAILED, State.UNASSIGNED)


class WatchedTask(Protocol):
    """What a scrape reads of a task (the runners' `TaskHandle` has it, wherever the task runs)."""

    @property
    def connector(self) -> str: ...

    @property
    def task_id(self) -> int: ...

    @property
    def status(self) -> Status: ...

    def stats(self) -> TaskStats: ...


def task_snapshots(tasks: Iterable[WatchedTask]) -> Iterator[tuple[list[str], SnapshotProgress | None]]:
    """Each task's labels (connector, task) and the snapshot its progress shows, if any."""
    for task in tasks:
        yield [task.connector, str(task.task_id)], snapshot_of(shown_progress(task.status.state, task.stats().progress))


class CreatedTopicEvent(Protocol):
    """What the metrics read of a topic the worker created (topic_creation's `CreatedTopic`)."""

    @property
    def connector(self) -> str: ...

    @property
    def seconds(self) -> float:
        """From the existence check of its batch until it was visible."""
        ...


class TopicCount(Protocol):
    def size(self) -> int: ...


class WatchedTopicCreation(Protocol):
    """What a scrape reads of the worker's topic-creation service (topic_creation's `TopicCreationService`;
    named by its shape here, so that observability stays below the runtime's other rooms)."""

    @property
    def created(self) -> int: ...

    @property
    def vetoed(self) -> int: ...

    @property
    def failures(self) -> dict[str, int]: ...

    @property
    def admin_requests(self) -> int: ...

    @property
    def known(self) -> TopicCount: ...

    def add_listener(self, listener: Callable[[CreatedTopicEvent], None]) -> None:
        """Call `listener` after each topic the worker created is visible."""
        ...


StatusSnapshot = Callable[[], Sequence[tuple[str, Status, WatchedTask | None]]]
"""`Worker.status_snapshot`: every connector (task None) and task, read at each scrape."""

# prometheus-client adds a `_created` timestamp series beside every counter and histogram; Kafka Connect
# has nothing like it and it doubles the scrape. (A process-wide switch of the library.)
disable_created_metrics()


class _WorkerCollector(Collector):
    """What is read from the worker when `/metrics` is scraped."""

    def __init__(
        self,
        snapshot: StatusSnapshot,
        topics: WatchedTopicCreation | None,
        connector_startups: StartupCounts,
        task_startups: StartupCounts,
    ) -> None:
        self._snapshot = snapshot
        self._topics = topics
        self._startups = {"connector": connector_startups, "task": task_startups}

    def collect(self) -> Iterator[Metric]:
        snapshot = self._snapshot()  # one walk over the worker per scrape, under its lock once
        tasks = [task for _, _, task in snapshot if task is not None]
        yield from self._worker_group(len(snapshot) - len(tasks), len(tasks))
        yield from self._task_groups(tasks)
        yield from snapshot_families(task_snapshots(tasks), PREFIX, TASK_LABELS)
        if self._topics is not None:
            yield from self._topic_creation(self._topics)

    def _worker_group(self, connectors: int, tasks: int) -> Iterator[Metric]:
        yield _gauge(
            "connector_count", "Connectors on this worker (connect-worker-metrics connector-count).", connectors
        )
        yield _gauge("task_count", "Tasks on this worker (connect-worker-metrics task-count).", tasks)
        for what, counts in self._startups.items():
            for outcome, value in (
                ("attempts", counts.attempts),
                ("success", counts.successes),
                ("failure", counts.failures),
            ):
                family = CounterMetricFamily(
                    f"{PREFIX}{what}_startup_{outcome}",
                    f"{what.capitalize()} start-ups: {outcome} (connect-worker-metrics "
                    f"{what}-startup-{outcome}-total).",
                )
                family.add_metric([], value)
                yield family

    def _task_groups(self, tasks: Sequence[WatchedTask]) -> Iterator[Metric]:
        def counter(name: str, doc: str) -> CounterMetricFamily:
            return CounterMetricFamily(PREFIX + name, doc, labels=TASK_LABELS)

        polled = counter("source_record_poll", "Records the task's poll() returned (source-record-poll-total).")
        written = counter(
            "source_record_write",
            "Records handed to the producer after transforms and conversion (source-record-write-total).",
        )
        committed = counter("source_record_committed", "Records whose offsets are committed.")
        active = GaugeMetricFamily(
            PREFIX + "source_record_active_count",
            "Records produced whose offsets are not committed yet (source-record-active-count).",
            labels=TASK_LABELS,
        )
        bytes_out = counter(
            "converter_bytes_out",
            "Key and value bytes the converters produced for records handed to the producer (beyond Kafka).",
        )
        commit_ok = counter(
            "offset_commit_success",
            "Offset commits that stored the offsets (offset-commit-success-percentage, as a count).",
        )
        commit_failed = counter(
            "offset_commit_failure",
            "Offset commits that failed; the offsets go with the "
            "next one (offset-commit-failure-percentage, as a "
            "count).",
        )
        skipped = counter(
            "total_records_skipped",
            "Records skipped under errors.tolerance=all (task-error-metrics total-records-skipped).",
        )
        retries = counter(
            "total_retries", "Retries of a failed conversion or transform (task-error-metrics total-retries)."
        )
        errors = counter(
            "total_record_errors",
            "Records a conversion or transform finally failed on, "
            "tolerated or not (task-error-metrics total-record-errors).",
        )
        failures = counter(
            "total_record_failures",
            "Failed attempts of a conversion or transform, retries "
            "included (task-error-metrics total-record-failures).",
        )
        status = GaugeMetricFamily(
            PREFIX + "task_status",
            "1 for the task's current state (connector-task-metrics status).",
            labels=[*TASK_LABELS, "state"],
        )
        for task in tasks:
            labels = [task.connector, str(task.task_id)]
            stats = task.stats()
            polled.add_metric(labels, stats.polled)
            written.add_metric(labels, stats.produced)
            committed.add_metric(labels, stats.committed_records)
            active.add_metric(labels, stats.active)
            bytes_out.add_metric(labels, stats.bytes_out)
            commit_ok.add_metric(labels, stats.commits_succeeded)
            commit_failed.add_metric(labels, stats.commits_failed)
            skipped.add_metric(labels, stats.skipped)
            retries.add_metric(labels, stats.retries)
            errors.add_metric(labels, stats.errors)
            failures.add_metric(labels, stats.errors + stats.retries)
            current = task.status.state
            for state in STATES:
                status.add_metric([*labels, state.value.lower()], 1 if current is state else 0)
        yield from (
            polled,
            written,
            committed,
            active,
            bytes_out,
            commit_ok,
            commit_failed,
            skipped,
            retries,
            errors,
            failures,
            status,
        )

    def _topic_creation(self, topics: WatchedTopicCreation) -> Iterator[Metric]:
        created = CounterMetricFamily(PREFIX + "topics_created", "Topics this worker created (beyond Kafka).")
        created.add_metric([], topics.created)
        vetoed = CounterMetricFamily(
            PREFIX + "topics_vetoed",
            "Topics a topic.creation rule matched and the task's settings_for_new_topic vetoed (beyond Kafka).",
        )
        vetoed.add_metric([], topics.vetoed)
        failed = CounterMetricFamily(
            PREFIX + "topic_creation_failures",
            "Topic creations that failed a task, by kind (beyond Kafka).",
            labels=["kind"],
        )
        for kind, count in sorted(topics.failures.items()):
            failed.add_metric([kind], count)
        requests = CounterMetricFamily(
            PREFIX + "topic_admin_requests", "Admin API requests of the topic creation (beyond Kafka)."
        )
        requests.add_metric([], topics.admin_requests)
        yield from (created, vetoed, failed, requests)
        yield _gauge(
            "known_topics",
            "Topics in the worker's known-topic cache: no Admin request is made for them (beyond Kafka).",
            topics.known.size(),
        )


def _gauge(name: str, doc: str, value: float) -> GaugeMetricFamily:
    family = GaugeMetricFamily(PREFIX + name, doc)
    family.add_metric([], value)
    return family


class WorkerMetrics:
    """A worker's registry: `for_task` hands each task its histograms, `watch` adds what is read from the
    worker at scrape time, and `exposition()` is the body of `GET /metrics`."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.connector_startups = StartupCounts()
        self.task_startups = StartupCounts()
        self._poll_time = self._histogram(
            "poll_batch_time_seconds",
            "Time a poll() that returned records took (source-task-metrics poll-batch-avg/max-time-ms).",
        )
        self._batch_size = self._histogram(
            "batch_size",
            "Records per poll that returned records (connector-task-metrics batch-size-avg/max).",
            buckets=RECORDS,
        )
        self._commit_time = self._histogram(
            "offset_commit_time_seconds",
            "Time from the start of an offset commit until the offsets were stored (offset-commit-avg/max-time-ms).",
        )
        self._creation_time = self._histogram(
            "topic_creation_time_seconds",
            "Time from the existence check of a new topic until it was created and visible (beyond Kafka).",
            labels=["connector"],
        )
        self._auto_restarts = Counter(
            PREFIX + "auto_restarts",
            "Automatic restarts of a FAILED connector (task empty) or task, auto.restart.enabled (beyond Kafka).",
            TASK_LABELS,
            registry=self.registry,
        )
        self._auto_restart_give_ups = Counter(
            PREFIX + "auto_restart_give_ups",
            "Connectors (task empty) and tasks left FAILED once auto.restart.max.restarts were made (beyond Kafka).",
            TASK_LABELS,
            registry=self.registry,
        )

    def auto_restarted(self, connector: str, task_id: int | None) -> None:
        self._auto_restarts.labels(connector, "" if task_id is None else str(task_id)).inc()

    def auto_restart_given_up(self, connector: str, task_id: int | None) -> None:
        self._auto_restart_give_ups.labels(connector, "" if task_id is None else str(task_id)).inc()

    def _histogram(
        self, name: str, doc: str, *, labels: Sequence[str] = TASK_LABELS, buckets: Sequence[float] = SECONDS
    ) -> Histogram:
        return Histogram(PREFIX + name, doc, labels, registry=self.registry, buckets=buckets)

    def for_task(self, connector: str, task_id: int) -> TaskMetrics:
        labels = (connector, str(task_id))
        return TaskMetrics(
            self._poll_time.labels(*labels),
            self._batch_size.labels(*labels),
            self._commit_time.labels(*labels),
            self.task_startups,
        )

    def forget_connector(self, connector: str, task_ids: range) -> None:
        """Drop a removed connector's series, so a scrape shows only what runs."""
        self.forget_tasks(connector, task_ids)
        self._creation_time.remove(connector)
        for counter in (self._auto_restarts, self._auto_restart_give_ups):
            for task in ("", *(str(task_id) for task_id in task_ids)):
                counter.remove(connector, task)  # a series it never had is no error

    def forget_tasks(self, connector: str, task_ids: range) -> None:
        """Drop the series of tasks that no longer exist (a reconfiguration left the connector fewer)."""
        for histogram in (self._poll_time, self._batch_size, self._commit_time):
            for task_id in task_ids:
                histogram.remove(connector, str(task_id))  # a series it never had is no error

    def watch(self, snapshot: StatusSnapshot, topics: WatchedTopicCreation | None) -> None:
        """Read the worker's connectors and tasks (`Worker.status_snapshot`) and the topic creation at
        every scrape from now on."""
        self.registry.register(_WorkerCollector(snapshot, topics, self.connector_startups, self.task_startups))
        if topics is not None:
            topics.add_listener(self._topic_created)

    def _topic_created(self, created: CreatedTopicEvent) -> None:
        self._creation_time.labels(created.connector).observe(created.seconds)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
