"""The exactly-once keys: worker (`exactly.once.source.support`, `group.id`), connector
(`exactly.once.support`, `transaction.boundary`, `transaction.boundary.interval.ms`), Kafka's
validation messages, the Java partitioner offset records use, and the task's transaction requests."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from connectworker.api import ConnectorTransactionBoundaries, ExactlyOnceSupport, SourceRecord
from connectworker.api.errors import ConfigError
from connectworker.config.connector_config import parse_connector_config
from connectworker.config.connector_reading import read_connector_config
from connectworker.config.exactly_once import TransactionBoundary, TransactionSettings
from connectworker.config.worker_config import WorkerConfig
from connectworker.connectors.datagen import DataGenConnector
from connectworker.connectors.file_source import FileStreamSourceConnector
from connectworker.runtime.clients.java_partitioner import java_partition, murmur2
from connectworker.runtime.tasks.exactly_once_task import transactional_id
from connectworker.runtime.tasks.transaction_context import Boundary, WorkerTransactionContext
from connectworker.runtime.tasks.vanished_topics import TaskFailure


class SilentConnector(DataGenConnector):
    """Says nothing about exactly-once (Kafka's default)."""

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        return None


class BoundaryConnector(DataGenConnector):
    def can_define_transaction_boundaries(self, props: Mapping[str, str]) -> ConnectorTransactionBoundaries:
        return ConnectorTransactionBoundaries.SUPPORTED


DATAGEN = {"name": "c", "connector.class": "DataGen", "topic.pattern": "t", "topic.count": "1"}


def errors(props: dict[str, str], worker: bool | None = None) -> dict[str, list[str]]:
    reports = read_connector_config(
        {"name": "c", "topic.pattern": "t", "topic.count": "1", **props}, exactly_once_worker=worker
    ).reports
    return {key: r.value.errors for key, r in reports.items() if r.value.errors}


def test_exactly_once_needs_the_offsets_topic_and_names_the_key() -> None:
    with pytest.raises(ConfigError) as info:
        WorkerConfig.from_properties(
            {"exactly.once.source.support": "enabled", "offset.storage.file.filename": "/tmp/o.json"},
            source="w.properties",
        )
    assert list(info.value.problems) == ["exactly.once.source.support"]
    assert "needs offset.storage.topic" in str(info.value) and "w.properties" in str(info.value)
    with pytest.raises(ConfigError) as bad:
        WorkerConfig.from_properties({"exactly.once.source.support": "preparing"})
    assert "'enabled' or 'disabled'" in bad.value.problems["exactly.once.source.support"]
    config = WorkerConfig.from_properties(
        {"exactly.once.source.support": "enabled", "offset.storage.topic": "o", "group.id": "etl"}
    )
    assert config.exactly_once_enabled and config.group_id == "etl" and config.unknown_keys == []


def test_transactional_ids_follow_kafka_connect() -> None:
    assert transactional_id("connect-standalone", "orders", 2) == "connect-standalone-orders-2"


def test_required_exactly_once_needs_the_connector_and_the_worker_to_support_it() -> None:
    assert errors({"connector.class": "DataGen", "exactly.once.support": "required"}, worker=True) == {}
    silent = f"{SilentConnector.__module__}.{SilentConnector.__qualname__}"
    found = errors({"connector.class": silent, "exactly.once.support": "required"}, worker=False)
    assert found == {
        "exactly.once.support": [
            "This worker does not have exactly-once source support enabled (exactly.once.source.support=disabled). "
            "The connector does not say whether it supports exactly-once semantics with this configuration; use "
            "exactly.once.support=requested to run it without this check."
        ]
    }
    assert errors({"connector.class": silent, "exactly.once.support": "requested"}, worker=True) == {}
    stdin = errors({"connector.class": "FileStreamSource", "topic": "t", "exactly.once.support": "required"}, True)
    assert stdin["exactly.once.support"][0].startswith("The connector does not support exactly-once")
    assert FileStreamSourceConnector().exactly_once_support({"file": "/x"}) is ExactlyOnceSupport.SUPPORTED


def test_transaction_boundaries_are_checked_against_the_connector() -> None:
    assert errors({"connector.class": "DataGen", "transaction.boundary": "connector"}) == {
        "transaction.boundary": [
            "The connector does not support connector-defined transaction boundaries with "
            "this configuration; use 'poll' or 'interval'"
        ]
    }
    able = f"{BoundaryConnector.__module__}.{BoundaryConnector.__qualname__}"
    assert errors({"connector.class": able, "transaction.boundary": "connector"}) == {}
    assert errors({"connector.class": "DataGen", "transaction.boundary": "batch"}) == {
        "transaction.boundary": [
            "Invalid value 'batch' for configuration transaction.boundary: Value must be one "
            "of poll, interval, connector; got 'batch'"
        ]
    }
    assert "transaction.boundary.interval.ms" in errors(
        {"connector.class": "DataGen", "transaction.boundary.interval.ms": "-5"}
    )
    settings = parse_connector_config(
        {**DATAGEN, "transaction.boundary": "Interval", "transaction.boundary.interval.ms": "1000"}
    ).transactions
    assert settings == TransactionSettings(TransactionBoundary.INTERVAL, 1000)
    assert parse_connector_config(DATAGEN).transactions == TransactionSettings(TransactionBoundary.POLL, None)


@pytest.mark.parametrize(
    ("key", "expected"),
    [  # Kafka's UtilsTest.testMurmur2, as signed ints
        (b"21", -973932308),
        (b"foobar", -790332482),
        (b"a-little-bit-long-string", -985981536),
        (b"a-little-bit-longer-string", -1486304829),
        (b"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58897971),
        (b"abc", 479470107),
    ],
)
def test_murmur2_matches_kafkas_java_implementation(key: bytes, expected: int) -> None:
    value = murmur2(key)
    assert (value - 2**32 if value >= 2**31 else value) == expected
    assert java_partition(key, 25) == (value & 0x7FFFFFFF) % 25


def test_transaction_requests_are_read_once_at_the_record_or_batch_they_name() -> None:
    context = WorkerTransactionContext()
    first, second = (SourceRecord({"p": 0}, {"n": n}, "t", str(n)) for n in (1, 2))
    context.commit_transaction(second)
    context.abort_transaction()
    assert context.for_record(first) is None
    assert context.for_record(second) is Boundary.COMMIT and context.for_record(second) is None
    assert context.for_batch() is Boundary.ABORT and context.for_batch() is None
    context.commit_transaction(first)
    context.abort_transaction(first)
    with pytest.raises(
        TaskFailure, match="asked both to commit and to abort the transaction after the same record on topic 't'"
    ):
        context.for_record(first)


def test_the_testing_kit_records_the_boundaries_a_task_asks_for() -> None:
    from connectworker.testing import InMemoryTaskContext, RecordedTransactions
    from tests.integration.counting_source import CountingTask

    transactions = RecordedTransactions()
    task = CountingTask()
    task.initialize(InMemoryTaskContext({}, [({"counter": 0}, {"next": 5})], transaction_context=transactions))
    task.start({"topic": "t", "records": "40", "batch.size": "40", "commit.every": "10", "abort.every": "3"})
    records = task.poll() or []
    assert [int(r.key) for r in records] == list(range(5, 40))
    assert [(kind, int(r.key) if r else None) for kind, r in transactions.requests] == [
        ("commit", 9),
        ("commit", 19),
        ("abort", 29),
        ("commit", 39),
    ]


def test_a_transactional_call_failing_retriably_is_retried_with_a_pause_not_in_a_spin(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fenced or not-yet-ready coordinator answers at once; retried without a pause, one stalled task
    made millions of failed calls (and their error objects: gigabytes) until the deadline."""
    from types import SimpleNamespace

    from confluent_kafka import KafkaError, KafkaException

    from connectworker.runtime.tasks import exactly_once_task

    monkeypatch.setattr(exactly_once_task, "TRANSACTION_CALL_TIMEOUT_S", 0.5)
    calls: list[float] = []

    def commit(timeout: float) -> None:
        calls.append(timeout)
        raise KafkaException(KafkaError(KafkaError._TIMED_OUT, "coordinator not ready", retriable=True))

    with pytest.raises(KafkaException):
        exactly_once_task.ExactlyOnceWorkerSourceTask._call_until_done(SimpleNamespace(name="t-0"), commit, "commit")  # type: ignore[arg-type]
    assert 2 <= len(calls) <= 0.5 / exactly_once_task.TRANSACTION_RETRY_BACKOFF_S + 2
