"""`TaskHarness`: run a `SourceTask` in a unit test, without a worker or a broker.

The harness drives the task through the calls the worker makes (`initialize`, `start`, `poll` in a
loop, `stop`, then `commit_record` and `commit` for what was "delivered"), checks each poll result as
the worker checks it, collects the records, keeps the offsets the worker would commit, and plans the
task's topics with the connector's `topic.creation.*` rules and the task's `settings_for_new_topic`.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator, Mapping
from types import TracebackType

from connectworker.api.connector import SourceConnector
from connectworker.api.errors import ConfigError, DryRunUnsupported
from connectworker.api.record import RecordMetadata, SourceOffset, SourcePartition, SourceRecord, SourceRecordBatch
from connectworker.api.task import SourceTask
from connectworker.runtime.offsets.source_offsets import newest_offsets
from connectworker.runtime.tasks.poll_results import BadPollResultError, bad_item_message, check_poll_result
from connectworker.runtime.tasks.poll_retry import is_retriable
from connectworker.testing.context import (
    InMemoryTaskContext,
    Offsets,
    RecordedConnectorContext,
    offsets_by_key,
    partition_key,
)
from connectworker.testing.topic_plan import TopicPlan, parse_rules, plan_topics
from connectworker.topics.decisions import NewTopicHook
from connectworker.topics.rules import TopicCreationRules

__all__ = ["TaskHarness", "connector_task_props"]

PollResult = list[SourceRecord] | SourceRecordBatch
"""A non-empty poll result as the task returned it."""


def connector_task_props(
    connector: type[SourceConnector] | SourceConnector, props: Mapping[str, str], *, max_tasks: int | None = None
) -> list[dict[str, str]]:
    """The props of each task of `connector`, as the worker builds them: the connector's keys are
    validated (`validate`, plus the `topic.creation.*` rules), the connector is started with `props`,
    and each of its `task_configs(max_tasks)` is laid over `props`; the connector is stopped again.

    `max_tasks` defaults to the `tasks.max` of `props` (1 without it). Raises `ConfigError` naming
    every offending key.
    """
    return _start_connector(connector, props, max_tasks)[1]


def _start_connector(
    connector: type[SourceConnector] | SourceConnector, props: Mapping[str, str], max_tasks: int | None
) -> tuple[type[SourceTask], list[dict[str, str]]]:
    """The task class and task props of `connector`, started with `props` and stopped again."""
    instance = connector() if isinstance(connector, type) else connector
    source = type(instance).__name__
    problems = {name: "; ".join(value.errors) for name, value in instance.validate(props).items() if value.errors}
    if problems:
        raise ConfigError(problems, source=source)
    parse_rules(props, source=source)
    if max_tasks is None:
        try:
            max_tasks = int(props.get("tasks.max", "1"))
        except ValueError:
            raise ConfigError(
                {"tasks.max": f"Invalid value {props['tasks.max']!r}: not an integer"}, source=source
            ) from None
    context = RecordedConnectorContext()
    instance.initialize(context)
    instance.start(props)
    try:
        if context.errors:
            raise context.errors[0]
        task_class = instance.task_class()  # some connectors only know their task class once started
        task_props = [{**props, **own} for own in instance.task_configs(max_tasks)][:max_tasks]
    finally:
        instance.stop()
    return task_class, task_props


class TaskHarness:
    """Runs one source task the way the worker does, in the test's thread.

    ``TaskHarness(MyTask, {"topic": "t"}).run(records=10)`` starts the task, polls it until at least
    10 records came back, stops it and returns the records. For finer control use it as a context
    manager (start on entry; stop and a final commit on exit) and call `poll` yourself.

    `task` is a `SourceTask` class (instantiated with no arguments) or instance; `props` are the task's
    props (a connector's keys, as the worker passes them, including any `topic.creation.*` rules);
    `offsets` are what an earlier run committed (see `connectworker.testing.Offsets`). A bad
    `topic.creation.*` rule raises `ConfigError` here, as the worker refuses such a connector.
    """

    def __init__(
        self,
        task: type[SourceTask] | SourceTask,
        props: Mapping[str, str] | None = None,
        *,
        offsets: Offsets | None = None,
        name: str | None = None,
    ) -> None:
        self._task_class: type[SourceTask] | None = task if isinstance(task, type) else None
        self.task: SourceTask = task() if isinstance(task, type) else task
        self.props: dict[str, str] = dict(props or {})
        self.name = name or f"{type(self.task).__name__}-0"
        self.rules: TopicCreationRules = parse_rules(self.props, source=self.name)
        self.context = InMemoryTaskContext(self.props, offsets)
        self.records: list[SourceRecord] = []
        """Every record polled so far, in order (a `SourceRecordBatch` is unpacked into records)."""
        self.polls: list[PollResult] = []
        """Every non-empty poll result, as the task returned it."""
        self.retriable_errors: list[BaseException] = []
        """The retriable errors `poll` raised; the worker backs off and polls again, so does the harness."""
        self.started = False
        self._starts = 0
        self._committed: dict[str, SourceOffset] = offsets_by_key(offsets)
        self._pending_offsets: dict[str, SourceOffset] = {}
        self._pending_records: list[SourceRecord] = []
        self._next_offset: dict[tuple[str, int], int] = {}

    @classmethod
    def for_connector(
        cls,
        connector: type[SourceConnector] | SourceConnector,
        props: Mapping[str, str],
        *,
        task: int = 0,
        max_tasks: int | None = None,
        offsets: Offsets | None = None,
    ) -> TaskHarness:
        """A harness for task number `task` of `connector`, with the props the worker would give it
        (see `connector_task_props`)."""
        task_class, all_props = _start_connector(connector, props, max_tasks)
        if not 0 <= task < len(all_props):
            raise IndexError(f"the connector made {len(all_props)} task config(s); there is no task {task}")
        return cls(task_class, all_props[task], offsets=offsets, name=f"{props.get('name', 'connector')}-{task}")

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self) -> None:
        """`initialize` the task with a context over the offsets committed so far, then `start` it.

        Starting again after `stop` restarts the task as the worker does: with a new instance (when
        the harness was given a class) that reads the offsets committed by the earlier runs. If
        `start` raises, the task is stopped (as the worker stops a task that failed) and the error
        propagates.
        """
        if self.started:
            raise RuntimeError(f"task {self.name} is already started")
        if self._task_class is not None and self._starts:
            self.task = self._task_class()
        self._starts += 1
        self.context = InMemoryTaskContext(self.props, self._committed)
        self.task.initialize(self.context)
        try:
            self.task.start(self.props)
        except BaseException:
            with contextlib.suppress(Exception):
                self.task.stop()
            raise
        self.started = True

    def stop(self) -> None:
        """`stop` the task, then commit what it polled (as the worker does on a graceful stop)."""
        if not self.started:
            return
        self.started = False
        self.task.stop()
        self.commit()

    def __enter__(self) -> TaskHarness:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc is None:
            self.stop()
        else:
            self._abort()

    def _abort(self) -> None:
        """Stop the task after a failure, committing nothing (as the worker does for a failed task)."""
        if self.started:
            self.started = False
            self.task.stop()

    # -- polling -------------------------------------------------------------------------------
    def poll(self) -> list[SourceRecord]:
        """Call `poll()` once; its records (empty for None, [] or a retriable error).

        The result is checked as the worker checks it: anything but a list of `SourceRecord`, a
        `SourceRecordBatch` or None raises `BadPollResultError`, and offsets the worker could not store
        raise `InvalidSourceOffsetError`. A non-retriable error from `poll()` propagates.
        """
        if not self.started:
            raise RuntimeError(f"task {self.name} is not started (use start(), run() or a with block)")
        try:
            result = self.task.poll()
        except Exception as exc:
            if not is_retriable(exc):
                raise
            self.retriable_errors.append(exc)
            return []
        if result is None:
            return []
        checked = check_poll_result(result, self.name)
        polled: PollResult
        if isinstance(checked, SourceRecordBatch):
            polled = checked
        else:
            if any(not isinstance(item, SourceRecord) for item in checked):
                raise BadPollResultError(bad_item_message(checked, self.name))
            polled = list(checked)
        if not polled:
            return []
        self._pending_offsets.update(newest_offsets(polled))
        records = list(polled)
        self.polls.append(polled)
        self.records.extend(records)
        self._pending_records.extend(records)
        return records

    def poll_until(
        self, records: int | None = None, *, polls: int | None = None, timeout: float = 10.0
    ) -> list[SourceRecord]:
        """Poll until at least `records` more records came back, or `polls` polls were made, whichever
        comes first (one poll when neither is given); the records of these polls.

        Raises TimeoutError when `records` were asked for and did not come within `timeout` seconds
        (unless `polls` ran out first).
        """
        if records is None and polls is None:
            polls = 1
        collected: list[SourceRecord] = []
        deadline = time.monotonic() + timeout
        made = 0
        while (records is None or len(collected) < records) and (polls is None or made < polls):
            if records is not None and time.monotonic() >= deadline:
                raise TimeoutError(
                    f"task {self.name} returned {len(collected)} of {records} records in {timeout} s ({made} polls)"
                )
            collected.extend(self.poll())
            made += 1
        return collected

    def run(self, records: int | None = None, *, polls: int | None = None, timeout: float = 10.0) -> list[SourceRecord]:
        """Start the task, `poll_until(records, polls=polls, timeout=timeout)`, stop it (committing what
        it polled) and return the records of this run. The task is stopped even if polling fails."""
        self.start()
        try:
            collected = self.poll_until(records, polls=polls, timeout=timeout)
        except BaseException:
            self._abort()
            raise
        self.stop()
        return collected

    # -- delivery and offsets ------------------------------------------------------------------
    def commit(self) -> None:
        """Pretend Kafka acknowledged every record polled since the last commit: `commit_record` is
        called for each (with made-up `RecordMetadata`: partition 0 unless the record names one, offsets
        counting up per topic partition), their newest offsets become committed, then `commit()`."""
        for record in self._pending_records:
            partition = record.partition if record.partition is not None else 0
            offset = self._next_offset.get((record.topic, partition), 0)
            self._next_offset[(record.topic, partition)] = offset + 1
            self.task.commit_record(record, RecordMetadata(record.topic, partition, offset, record.timestamp))
        self._pending_records = []
        if self._pending_offsets:
            self._committed.update(self._pending_offsets)
            self._pending_offsets = {}
        self.task.commit()

    @property
    def committed_offsets(self) -> dict[str, SourceOffset]:
        """The offsets the worker would have committed (those given, then the newest per source partition
        of what was committed since), keyed by canonical partition JSON. Pass them as `offsets` to a new
        harness to test that the task resumes where it stopped."""
        return dict(self._committed)

    def committed_offset(self, partition: SourcePartition | None) -> SourceOffset | None:
        """The committed offset of one source partition, or None."""
        return self._committed.get(partition_key(partition))

    # -- topics --------------------------------------------------------------------------------
    @property
    def topics(self) -> list[str]:
        """The distinct topics of the records polled so far, in order of first appearance."""
        return list(dict.fromkeys(record.topic for record in self.records))

    def plan_topics(
        self, topics: Iterable[str] | None = None, *, rules: Mapping[str, str] | TopicCreationRules | None = None
    ) -> dict[str, TopicPlan]:
        """What the worker (with `topic.creation.enable=true`) would do with each topic, by topic.

        `topics` default to the topics polled so far; `rules` to those of the harness's props, and may
        be other connector props (their `topic.creation.*` keys are read) or parsed rules. The task's
        `settings_for_new_topic` is asked about each topic a rule matches, on the running task, or, if
        the harness is not started, on a task dry-started for the plan (`dry_start`) and stopped again, as
        `connectworker plan` does. Raises `ConfigError` for bad rules, `DryRunUnsupported` for a task without
        `dry_start` (`connectworker plan` would then not ask it: start the harness first to ask the running
        task), and whatever the hook raises.
        """
        chosen = self.rules if rules is None else parse_rules(rules, source=self.name)
        return plan_topics(
            chosen, self.topics if topics is None else topics, self._hook(), hook_owner=f"task {self.name}"
        )

    @contextlib.contextmanager
    def _hook(self) -> Iterator[NewTopicHook]:
        if self.started:
            yield self.task.settings_for_new_topic
            return
        task = self._task_class() if self._task_class is not None else self.task
        task.initialize(InMemoryTaskContext(self.props, self._committed))
        try:
            task.dry_start(self.props)
        except DryRunUnsupported:  # refused before it started: nothing to stop
            raise
        except BaseException:
            task.stop()
            raise
        try:
            yield task.settings_for_new_topic
        finally:
            task.stop()
