"""`connectworker.testing`: what a connector author sees when testing a task with the kit."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest

from connectworker.api import (
    CleanupPolicy,
    ConfigError,
    ConnectError,
    DryRunUnsupported,
    RecordMetadata,
    RetriableError,
    SourceRecord,
    SourceRecordBatch,
    SourceTask,
    TopicSettings,
)
from connectworker.connectors.datagen import DataGenConnector, DataGenTask
from connectworker.connectors.file_source import FileStreamSourceConnector, FileStreamSourceTask
from connectworker.testing import (
    BadPollResultError,
    InMemoryTaskContext,
    InvalidSourceOffsetError,
    TaskHarness,
    TopicCreationError,
    TopicPlan,
    connector_task_props,
    offsets_by_key,
    parse_rules,
    partition_key,
)
from tests.unit.test_package_borders import offending

DATAGEN = {"rate": "0", "seed": "7", "topic.pattern": "orders.{region}", "topic.count": "3"}
KAFKA_RULES = {
    "topic.creation.groups": "compacted,eu",
    "topic.creation.default.replication.factor": "1",
    "topic.creation.default.partitions": "3",
    "topic.creation.compacted.include": r"orders\.eu-.*",
    "topic.creation.compacted.exclude": r"orders\.eu-central",
    "topic.creation.compacted.partitions": "6",
    "topic.creation.compacted.cleanup.policy": "compact",
    "topic.creation.eu.include": r"orders\.eu-.*",
    "topic.creation.eu.partitions": "2",
}


class ScriptedTask(SourceTask):
    """Returns the scripted poll results in order, then None; records every call the worker makes."""

    script: list[object] = []

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.acked: list[tuple[object, RecordMetadata | None]] = []
        self.polls = iter(list(type(self).script))

    def version(self) -> str:
        return "1.0"

    def start(self, props: Mapping[str, str]) -> None:
        self.calls.append("start")

    def dry_start(self, props: Mapping[str, str]) -> None:
        self.calls.append("dry_start")

    def poll(self) -> list[SourceRecord] | SourceRecordBatch | None:
        self.calls.append("poll")
        item = next(self.polls, None)
        if isinstance(item, BaseException):
            raise item
        return item  # type: ignore[return-value]  # bad results are scripted on purpose

    def stop(self) -> None:
        self.calls.append("stop")

    def commit(self) -> None:
        self.calls.append("commit")

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        self.acked.append((record.value, metadata))


def scripted(*results: object, task_class: type[ScriptedTask] = ScriptedTask) -> ScriptedTask:
    task = task_class()
    task.polls = iter(results)
    return task


def record(value: object, topic: str = "t", offset: int | None = None) -> SourceRecord:
    return SourceRecord({"p": 1}, None if offset is None else {"n": offset}, topic, value)


# -- records from both poll shapes ------------------------------------------------------------------
def test_records_of_a_columnar_poll_are_collected_as_source_records() -> None:
    harness = TaskHarness(DataGenTask, {**DATAGEN, "batch.size": "4"})
    records = harness.run(records=10)
    assert all(isinstance(poll, SourceRecordBatch) for poll in harness.polls)  # datagen's string format
    assert len(harness.polls) == 3 and len(records) == 12  # whole polls: at least the records asked for
    assert [r.key for r in records] == [str(seq) for seq in range(12)]
    assert all(isinstance(r, SourceRecord) and r.source_partition == {"task": 0} for r in records)
    assert harness.records == records
    assert sorted(harness.topics) == ["orders.eu-west", "orders.us-east", "orders.us-west"]
    assert harness.committed_offset({"task": 0}) == {"seq": 12}


def test_records_of_a_list_poll_are_collected() -> None:
    harness = TaskHarness(DataGenTask, {**DATAGEN, "format": "json", "batch.size": "5"})
    records = harness.run(polls=2)
    assert all(isinstance(poll, list) for poll in harness.polls)
    assert [r.value["id"] for r in records] == list(range(10))
    assert harness.committed_offsets == {partition_key({"task": 0}): {"seq": 10}}


def test_file_source_records_and_their_byte_offsets(tmp_path: Path) -> None:
    path = tmp_path / "in.txt"
    path.write_text("a\nbb\nccc\n")
    harness = TaskHarness(FileStreamSourceTask, {"file": str(path), "topic": "lines"})
    records = harness.run(records=3)
    assert [(r.topic, r.value) for r in records] == [("lines", "a"), ("lines", "bb"), ("lines", "ccc")]
    assert harness.committed_offset({"filename": str(path)}) == {"position": 9}


def test_empty_and_none_polls_give_no_records_and_poll_counts_are_honoured() -> None:
    task = scripted(None, [], [record("x")])
    with TaskHarness(task) as harness:
        assert harness.poll_until(polls=2) == []
        assert [r.value for r in harness.poll()] == ["x"]
    assert task.calls == ["start", "poll", "poll", "poll", "stop", "commit"]
    assert harness.polls == [[record("x")]]


# -- offsets ----------------------------------------------------------------------------------------
def test_offsets_given_to_the_harness_are_what_the_task_reads(tmp_path: Path) -> None:
    datagen = TaskHarness(DataGenTask, DATAGEN, offsets=[({"task": 0}, {"seq": 5})])
    assert [r.key for r in datagen.run(records=3)][:3] == ["5", "6", "7"]

    path = tmp_path / "in.txt"
    path.write_text("a\nbb\nccc\n")
    key = partition_key({"filename": str(path)})
    files = TaskHarness(FileStreamSourceTask, {"file": str(path), "topic": "t"}, offsets={key: {"position": 2}})
    assert [r.value for r in files.run(records=2)] == ["bb", "ccc"]


def test_a_second_harness_resumes_from_the_offsets_the_first_committed() -> None:
    first = TaskHarness(DataGenTask, {**DATAGEN, "batch.size": "5"})
    first.run(records=5)
    second = TaskHarness(DataGenTask, {**DATAGEN, "batch.size": "5"}, offsets=first.committed_offsets)
    assert [r.key for r in second.run(records=5)] == ["5", "6", "7", "8", "9"]


def test_starting_the_harness_again_restarts_a_new_task_from_the_committed_offsets() -> None:
    harness = TaskHarness(DataGenTask, {**DATAGEN, "batch.size": "3"})
    first_task = harness.task
    assert [r.key for r in harness.run(records=3)] == ["0", "1", "2"]
    assert [r.key for r in harness.run(records=3)] == ["3", "4", "5"]
    assert harness.task is not first_task
    assert [r.key for r in harness.records] == [str(n) for n in range(6)]


def test_a_task_whose_start_fails_is_stopped_and_the_error_propagates() -> None:
    class FailingStart(ScriptedTask):
        def start(self, props: Mapping[str, str]) -> None:
            raise ConfigError({"url": "unreachable"})

    task = FailingStart()
    with pytest.raises(ConfigError, match="url: unreachable"):
        TaskHarness(task).run()
    assert task.calls == ["stop"]


def test_the_in_memory_context_reads_offsets_by_partition_whatever_the_key_order() -> None:
    context = InMemoryTaskContext({"topic": "t"}, {'{"b": 2, "a": 1}': {"pos": 3}, '{"x":0}': None})
    reader = context.offset_storage_reader
    assert reader.offset({"a": 1, "b": 2}) == {"pos": 3}
    assert reader.offset({"x": 0}) is None
    assert reader.offsets([{"a": 1, "b": 2}, {"c": 0}]) == {'{"a":1,"b":2}': {"pos": 3}, '{"c":0}': None}
    assert context.configs() == {"topic": "t"}
    assert offsets_by_key([(None, {"n": 1})]) == {"null": {"n": 1}}
    with pytest.raises(ValueError, match="not the JSON of a source partition"):
        offsets_by_key({"file=a": {"n": 1}})


# -- delivery ---------------------------------------------------------------------------------------
def test_commit_acknowledges_each_record_with_metadata_then_calls_commit() -> None:
    task = scripted([record("a", offset=1), record("b", "u", offset=2)], [record("c", offset=3)])
    harness = TaskHarness(task)
    assert [r.value for r in harness.run(records=3)] == ["a", "b", "c"]
    assert task.acked == [
        ("a", RecordMetadata("t", 0, 0)),
        ("b", RecordMetadata("u", 0, 0)),
        ("c", RecordMetadata("t", 0, 1)),
    ]
    assert task.calls[-2:] == ["stop", "commit"]
    assert harness.committed_offset({"p": 1}) == {"n": 3}


def test_a_retriable_error_is_polled_again_and_other_errors_fail() -> None:
    task = scripted(RetriableError("source busy"), [record("a")])
    harness = TaskHarness(task)
    assert [r.value for r in harness.run(records=1)] == ["a"]
    assert [str(e) for e in harness.retriable_errors] == ["source busy"]

    failing = scripted(ConnectError("source gone"))
    with pytest.raises(ConnectError, match="source gone"):
        TaskHarness(failing).run(records=1)
    assert failing.calls == ["start", "poll", "stop"]  # stopped, nothing committed


def test_poll_results_the_worker_refuses_fail_as_in_the_worker() -> None:
    with pytest.raises(BadPollResultError, match="returned a dict"):
        TaskHarness(scripted({"value": 1})).run()
    with pytest.raises(BadPollResultError, match="item 1 of the list it returned is a str"):
        TaskHarness(scripted([record("a"), "b"])).run()
    with pytest.raises(InvalidSourceOffsetError, match="cannot be stored"):
        TaskHarness(scripted([SourceRecord({"p": 1}, {"at": object()}, "t", "v")])).run()


def test_waiting_for_records_that_never_come_times_out() -> None:
    with pytest.raises(TimeoutError, match="returned 0 of 1 records"):
        TaskHarness(scripted()).run(records=1, timeout=0.05)


# -- topic creation ---------------------------------------------------------------------------------
class HookTask(ScriptedTask):
    """Vetoes tmp.* topics, gives audit.* topics 12 partitions and keeps the rest as the rule says."""

    def settings_for_new_topic(self, settings: TopicSettings) -> TopicSettings | None:
        if settings.name.startswith("tmp."):
            return None
        if settings.name.startswith("audit."):
            return settings.with_partitions(12).with_cleanup_policy(CleanupPolicy.COMPACT)
        return settings


RULES = {"topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "3"}


def test_settings_for_new_topic_overrides_partitions_and_vetoes_a_topic() -> None:
    task = scripted([record(1, "audit.log"), record(2, "tmp.scratch"), record(3, "plain")], task_class=HookTask)
    with TaskHarness(task, RULES) as harness:
        harness.poll()
        plan = harness.plan_topics()
    assert list(plan) == ["audit.log", "tmp.scratch", "plain"]
    audit = plan["audit.log"]
    assert audit.create and audit.rule == "default" and not audit.vetoed
    assert audit.settings == TopicSettings("audit.log", 12, 1, {"cleanup.policy": "compact"})
    scratch = plan["tmp.scratch"]
    assert scratch == TopicPlan("tmp.scratch", "default", None, scratch.reason, vetoed=True)
    assert not scratch.create and "auto-create" in scratch.reason
    assert plan["plain"].settings == TopicSettings("plain", 3, 1)


def test_planning_after_the_run_dry_starts_a_task_for_the_plan_as_connectworker_plan_does() -> None:
    harness = TaskHarness(HookTask, RULES)
    harness.run(polls=1)
    assert not harness.started
    plan = harness.plan_topics(["audit.x", "tmp.y"])
    assert plan["audit.x"].settings is not None and plan["audit.x"].settings.partitions == 12
    assert plan["tmp.y"].vetoed


def test_planning_a_task_without_dry_start_says_that_connectworker_plan_would_not_ask_it() -> None:
    class StartOnly(HookTask):
        dry_start = SourceTask.dry_start  # the API's default: refuses

    with pytest.raises(DryRunUnsupported, match="StartOnly does not implement dry_start"):
        TaskHarness(StartOnly, RULES).plan_topics(["audit.x"])


def test_the_first_matching_group_wins_else_the_default_group() -> None:
    topics = ["orders.eu-west", "orders.eu-central", "orders.us-east"]
    plan = TaskHarness(DataGenTask, {**DATAGEN, **KAFKA_RULES}).plan_topics(topics)
    assert {t: (p.rule, p.settings.partitions if p.settings else None) for t, p in plan.items()} == {
        "orders.eu-west": ("compacted", 6),  # listed first: wins over "eu", which matches too
        "orders.eu-central": ("eu", 2),  # excluded from "compacted" only
        "orders.us-east": ("default", 3),
    }
    assert plan["orders.eu-west"].settings == TopicSettings("orders.eu-west", 6, 1, {"cleanup.policy": "compact"})
    assert plan["orders.eu-central"].settings == TopicSettings("orders.eu-central", 2, 1)  # configs not inherited


def test_rules_of_the_kip_draft_and_rules_given_to_the_plan() -> None:
    harness = TaskHarness(HookTask)  # the props define no rules: the broker's auto-create applies
    assert harness.plan_topics(["a"])["a"] == TopicPlan(
        "a", None, None, "the connector defines no topic.creation rules; the broker's auto-create applies"
    )
    draft = {"topic.creation": "big", "topic.creation.big.regex": "big\\..*", "topic.creation.big.partitions": "9"}
    plan = harness.plan_topics(["big.one", "small"], rules=draft)
    assert plan["big.one"].rule == "big" and plan["big.one"].settings == TopicSettings("big.one", 9, 3)
    assert plan["small"].rule is None and plan["small"].settings is None and not plan["small"].vetoed
    assert harness.plan_topics(["big.two"], rules=parse_rules(draft))["big.two"].rule == "big"


def test_a_bad_rule_config_is_a_config_error_naming_the_key() -> None:
    with pytest.raises(ConfigError) as bad_count:
        TaskHarness(HookTask, {**RULES, "topic.creation.default.partitions": "0"})
    assert list(bad_count.value.problems) == ["topic.creation.default.partitions"]
    assert "topic.creation.default.partitions" in str(bad_count.value)

    with pytest.raises(ConfigError) as missing:
        TaskHarness(HookTask).plan_topics(["t"], rules={"topic.creation.default.partitions": "1"})
    assert list(missing.value.problems) == ["topic.creation.default.replication.factor"]

    with pytest.raises(ConfigError) as bad_pattern:
        connector_task_props(DataGenConnector, {**DATAGEN, **KAFKA_RULES, "topic.creation.eu.include": "("})
    assert list(bad_pattern.value.problems) == ["topic.creation.eu.include"]


def test_a_hook_that_raises_or_answers_for_another_topic_fails_the_plan() -> None:
    class Raising(HookTask):
        def settings_for_new_topic(self, settings: TopicSettings) -> TopicSettings | None:
            raise KeyError(settings.name)

    class Renaming(HookTask):
        def settings_for_new_topic(self, settings: TopicSettings) -> TopicSettings | None:
            return TopicSettings("other")

    with pytest.raises(KeyError, match="t1"):
        TaskHarness(Raising, RULES).plan_topics(["t1"])
    with pytest.raises(TopicCreationError, match="returned settings for topic 'other' when asked about 't1'"):
        TaskHarness(Renaming, RULES).plan_topics(["t1"])


def test_an_illegal_topic_name_is_planned_as_not_created() -> None:
    plan = TaskHarness(HookTask, RULES).plan_topics(["bad topic"])["bad topic"]
    assert plan.rule is None and plan.settings is None and "invalid topic name" in plan.reason


# -- connectors -------------------------------------------------------------------------------------
def test_a_harness_for_each_task_of_a_connector() -> None:
    props = {"name": "gen", "connector.class": "DataGen", "tasks.max": "2", **DATAGEN}
    assert [p["task.id"] for p in connector_task_props(DataGenConnector, props)] == ["0", "1"]
    harness = TaskHarness.for_connector(DataGenConnector, props, task=1)
    assert harness.name == "gen-1"
    assert {r.source_partition["task"] for r in harness.run(records=2)} == {1}  # type: ignore[index]
    with pytest.raises(IndexError, match="no task 2"):
        TaskHarness.for_connector(DataGenConnector, props, task=2)


def test_connector_config_errors_name_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as exc:
        connector_task_props(FileStreamSourceConnector, {"file": str(tmp_path / "x"), "batch.size": "0"})
    assert sorted(exc.value.problems) == ["batch.size", "topic"]


def test_the_kit_imports_only_the_api_topics_and_runtime() -> None:
    assert offending("testing", allowed={"api", "runtime", "topics"}) == []
