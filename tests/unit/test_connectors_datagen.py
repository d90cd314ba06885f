"""DataGen: determinism, topic expansion, limits, resuming, rate limiting, formats, config errors."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Collection, Mapping
from typing import Any

import pytest

import connectworker
from connectworker import connectors
from connectworker.api.errors import ConfigError, ConnectError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import SchemaType
from connectworker.connectors.datagen import VALUE_SCHEMA_JSON, DataGenConnector, DataGenTask, region_name
from connectworker.connectors.mysql_cdc.connector import MySqlCdcConnector
from connectworker.connectors.postgres_cdc import PostgresCdcConnector
from connectworker.connectors.sql import SqlSourceConnector
from tests.unit.task_context_fake import FakeContext


class FakeOffsetReader:
    def __init__(self, committed: dict[int, dict[str, Any]] | None = None) -> None:
        self.committed = committed or {}

    def offset(self, partition: dict[str, Any]) -> dict[str, Any] | None:
        return self.committed.get(partition["task"])

    def offsets(self, partitions: Collection[dict[str, Any]]) -> dict[str, dict[str, Any] | None]:
        return {str(p): self.offset(p) for p in partitions}


class FakeClock:
    """Time that only moves when the task sleeps, so rate limiting can be checked exactly."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now


class FakeStopEvent:
    """Stands in for the task's stop event: a wait advances the fake clock instead of sleeping."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.stopped = False

    def wait(self, timeout: float) -> bool:
        self.clock.sleeps.append(timeout)
        self.clock.now += timeout
        return self.stopped

    def is_set(self) -> bool:
        return self.stopped

    def set(self) -> None:
        self.stopped = True

    def clear(self) -> None:
        self.stopped = False


BASE = {"rate": "0", "seed": "7"}


def start_task(
    props: Mapping[str, str], committed: dict[int, dict[str, Any]] | None = None, clock: FakeClock | None = None
) -> DataGenTask:
    task = DataGenTask()
    task.idle_wait_s = 0.01
    if clock is not None:
        task.clock = clock
    task.initialize(FakeContext(FakeOffsetReader(committed)))
    task.start({**BASE, **props})
    if clock is not None:
        task._stop_event = FakeStopEvent(clock)  # type: ignore[assignment]
    return task


def take(task: DataGenTask, polls: int) -> list[SourceRecord]:
    out: list[SourceRecord] = []
    for _ in range(polls):
        out.extend(task.poll() or [])
    return out


def triples(records: list[SourceRecord]) -> list[tuple[str, Any, Any]]:
    return [(r.topic, r.key, r.value) for r in records]


def test_same_seed_gives_the_same_records() -> None:
    first = take(start_task({"topic.count": "5"}), 3)
    second = take(start_task({"topic.count": "5"}), 3)
    assert len(first) == 300
    assert triples(first) == triples(second)
    other = take(start_task({"topic.count": "5", "seed": "8"}), 3)
    assert triples(other) != triples(first)
    assert [r.key for r in other] == [r.key for r in first]  # keys are the sequence numbers


def test_keys_offsets_and_shared_partition() -> None:
    records = take(start_task({"batch.size": "10", "task.id": "3"}), 2)
    assert [r.key for r in records] == [str(i) for i in range(20)]
    assert [r.source_offset for r in records] == [{"seq": i + 1} for i in range(20)]
    assert records[0].source_partition == {"task": 3}
    assert all(r.source_partition is records[0].source_partition for r in records)
    assert len({id(r.source_offset) for r in records}) == 20


def test_default_pattern_expands_to_three_region_topics_spread_evenly() -> None:
    records = take(start_task({}), 3)
    counts: dict[str, int] = {}
    for record in records:
        counts[record.topic] = counts.get(record.topic, 0) + 1
    assert set(counts) == {"orders.us-east", "orders.us-west", "orders.eu-west"}
    assert set(counts.values()) == {100}
    # Every window of topic.count consecutive records covers each topic once.
    assert len({r.topic for r in records[:3]}) == 3


def test_region_names_extend_with_numbered_suffixes() -> None:
    topics = {r.topic for r in take(start_task({"topic.count": "20", "batch.size": "20"}), 1)}
    assert len(topics) == 20
    assert "orders.us-east" in topics and "orders.us-east-2" in topics and "orders.us-east-3" in topics
    assert region_name(8) == "us-east-2"


def test_n_and_task_placeholders() -> None:
    props = {"topic.pattern": "bench.t{task}.p{n:03d}", "topic.count": "4", "task.id": "2", "batch.size": "8"}
    topics = {r.topic for r in take(start_task(props), 1)}
    assert topics == {"bench.t2.p000", "bench.t2.p001", "bench.t2.p002", "bench.t2.p003"}


def test_records_limit_then_idle() -> None:
    task = start_task({"records": "250"})
    sizes = [len(task.poll() or []) for _ in range(3)]
    assert sizes == [100, 100, 50]
    assert task.poll() is None
    assert task.poll() is None


def test_resume_from_committed_seq_continues_the_sequence() -> None:
    props = {"topic.count": "7", "batch.size": "50"}
    uninterrupted = take(start_task(props), 5)
    resumed = take(start_task(props, committed={0: {"seq": 120}}), 2)
    assert len(resumed) == 100
    assert triples(resumed) == triples(uninterrupted[120:220])
    assert resumed[0].source_offset == {"seq": 121}


def test_resume_counts_towards_the_records_limit() -> None:
    task = start_task({"records": "130"}, committed={0: {"seq": 100}})
    assert [r.key for r in task.poll() or []] == [str(i) for i in range(100, 130)]
    assert task.poll() is None


def test_invalid_committed_seq_is_an_error() -> None:
    with pytest.raises(ConnectError, match="seq"):
        start_task({}, committed={0: {"seq": -4}})


def test_rate_limit_bounds_each_batch_and_the_total() -> None:
    clock = FakeClock()
    task = start_task({"rate": "50", "batch.size": "100"}, clock=clock)
    began = clock.now
    emitted = 0
    for _ in range(200):
        batch = task.poll() or []
        assert len(batch) <= 50  # one second's worth at most, although batch.size allows 100
        emitted += len(batch)
    elapsed = clock.now - began
    assert elapsed > 0
    assert emitted <= 50 * elapsed + 3  # the few records allowed up front
    assert emitted >= 50 * elapsed - 3
    # It waited instead of spinning: every empty-handed poll slept, and no sleep was a busy zero.
    assert clock.sleeps and min(clock.sleeps) > 0


def test_rate_limit_with_slow_caller_bursts_at_most_one_batch() -> None:
    clock = FakeClock()
    task = start_task({"rate": "1000", "batch.size": "100"}, clock=clock)
    clock.now += 60.0  # the worker was busy for a minute
    assert len(task.poll() or []) == 100
    assert len(task.poll() or []) <= 100


def test_real_rate_limited_poll_waits_interruptibly() -> None:
    task = start_task({"rate": "0.001"})
    assert len(task.poll() or []) == 1  # the first record is allowed at once
    results: list[Any] = []
    poller = threading.Thread(target=lambda: results.append(task.poll()))
    poller.start()
    task.stop()
    poller.join(timeout=30)
    assert not poller.is_alive()
    assert results == [None]


def test_string_values_have_value_size_bytes() -> None:
    records = take(start_task({"value.size": "64", "batch.size": "1000"}), 11)
    assert all(isinstance(r.value, str) and len(r.value.encode()) == 64 for r in records)
    assert all(r.value.endswith(";id=" + r.key) for r in records)
    assert records[0].value_schema is not None and records[0].value_schema.type is SchemaType.STRING
    tiny = take(start_task({"value.size": "3", "batch.size": "200"}), 1)
    assert [len(r.value) for r in tiny[:3]] == [3, 3, 3]
    assert tiny[150].value == "150"


def test_json_values_match_their_schema() -> None:
    records = take(start_task({"format": "json", "value.size": "200", "topic.count": "4"}), 2)
    field_names = [f.name for f in VALUE_SCHEMA_JSON.fields]
    python_types = {SchemaType.INT64: int, SchemaType.STRING: str, SchemaType.FLOAT64: float}
    for record in records:
        assert record.value_schema == VALUE_SCHEMA_JSON
        assert list(record.value) == field_names
        for f in VALUE_SCHEMA_JSON.fields:
            assert type(record.value[f.name]) is python_types[f.schema.type]
        assert record.value["id"] == int(record.key)
        assert record.topic == f"orders.{record.value['region']}"
    assert {"id", "region", "amount", "ts"} <= set(field_names)


def test_json_values_are_deterministic_apart_from_ts() -> None:
    def stable(records: list[SourceRecord]) -> list[tuple[str, dict[str, Any]]]:
        return [(r.topic, {k: v for k, v in r.value.items() if k != "ts"}) for r in records]

    assert stable(take(start_task({"format": "JSON"}), 2)) == stable(take(start_task({"format": "json"}), 2))


def test_connector_task_configs_carry_ids() -> None:
    connector = DataGenConnector()
    connector.start({"name": "gen", "topic.count": "2"})
    configs = connector.task_configs(3)
    assert [c["task.id"] for c in configs] == ["0", "1", "2"]
    assert all(c["topic.count"] == "2" and c["name"] == "gen" for c in configs)
    assert connector.task_class() is DataGenTask
    assert connector.version() == connectworker.__version__
    assert all(key.documentation for key in connector.config_def().keys.values())


@pytest.mark.parametrize(
    ("props", "key", "fragment"),
    [
        ({"format": "xml"}, "format", "string, json"),
        ({"topic.pattern": "orders.{city}"}, "topic.pattern", "{region}, {n}, {task}"),
        ({"topic.pattern": "orders.{"}, "topic.pattern", "literal brace"),
        ({"topic.pattern": "orders.{0}"}, "topic.pattern", "Unknown placeholder {0}"),
        ({"topic.pattern": "orders"}, "topic.pattern", "topic.count=1"),
        ({"topic.pattern": "orders/{region}"}, "topic.pattern", "not a legal Kafka topic name"),
        ({"topic.count": "0"}, "topic.count", "between 1"),
        ({"rate": "-1"}, "rate", "at least 0"),
        ({"rate": "fast"}, "rate", "number"),
        ({"records": "-2"}, "records", "at least -1"),
        ({"batch.size": "0"}, "batch.size", "at least 1"),
        ({"value.size": "-5"}, "value.size", "between 0"),
        ({"seed": "x"}, "seed", "integer"),
    ],
)
def test_config_errors_name_the_key(props: dict[str, str], key: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        DataGenConnector().start(props)
    assert fragment in info.value.problems[key]
    assert any(fragment in e for e in DataGenConnector().validate(props)[key].errors)


def test_single_topic_pattern_with_count_one() -> None:
    records = take(start_task({"topic.pattern": "demo", "topic.count": "1"}), 1)
    assert {r.topic for r in records} == {"demo"}


def test_builtin_aliases_resolve_to_the_connector_classes() -> None:
    expected = {
        "FileStreamSource": connectors.FileStreamSourceConnector,
        "FileStreamSourceConnector": connectors.FileStreamSourceConnector,
        "org.apache.kafka.connect.file.FileStreamSourceConnector": connectors.FileStreamSourceConnector,
        "DataGen": connectors.DataGenConnector,
        "DataGenConnector": connectors.DataGenConnector,
        "SqlSource": SqlSourceConnector,
        "SqlSourceConnector": SqlSourceConnector,
        "io.confluent.connect.jdbc.JdbcSourceConnector": SqlSourceConnector,
        "PostgresCdc": PostgresCdcConnector,
        "PostgresCdcConnector": PostgresCdcConnector,
        "io.debezium.connector.postgresql.PostgresConnector": PostgresCdcConnector,
        "MySqlCdc": MySqlCdcConnector,
        "MySqlCdcConnector": MySqlCdcConnector,
        "io.debezium.connector.mysql.MySqlConnector": MySqlCdcConnector,
        "io.debezium.connector.mariadb.MariaDbConnector": MySqlCdcConnector,
    }
    assert set(connectors.BUILTIN_CONNECTORS) == set(expected)
    for alias, dotted in connectors.BUILTIN_CONNECTORS.items():
        module_name, _, class_name = dotted.rpartition(".")
        assert getattr(importlib.import_module(module_name), class_name) is expected[alias]
