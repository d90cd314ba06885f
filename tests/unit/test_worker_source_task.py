"""The record path under failure: every test asserts exactly which source offsets were committed.

The task runs its real loop on its own thread, against `FakeProducer` and a real offsets file, so a
committed offset here is one a restarted worker would resume from.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import KafkaError

from connectworker.api import RecordMetadata, RetriableError, SourceRecord, SourceRecordBatch, SourceTask
from connectworker.config.error_handling import ErrorHandling, Tolerance
from connectworker.config.transforms import TransformsConfig
from connectworker.converters.header_converters import HeaderConverter, SimpleHeaderConverter
from connectworker.converters.string import StringConverter
from connectworker.runtime.offsets.file_store import FileOffsetStore
from connectworker.runtime.offsets.flusher import OffsetFlusher
from connectworker.runtime.status import State
from connectworker.runtime.tasks.source_task import TaskTimeouts, WorkerSourceTask
from connectworker.runtime.tasks.task_parts import TaskParts
from connectworker.runtime.topic_creation.service import AutoCreateGate
from tests.integration.harness import wait_until
from tests.unit.fake_producer import FakeMessage, FakeProducer

PARTITION = {"p": 0}


def rec(n: int, value: str | None = None) -> SourceRecord:
    return SourceRecord(PARTITION, {"n": n}, "t", f"v{n}" if value is None else value, f"k{n}")


class ScriptedTask(SourceTask):
    """Returns (or raises) what the test puts in `polls`, one item per poll."""

    def __init__(self) -> None:
        self.polls: queue.Queue[Any] = queue.Queue()

    def version(self) -> str:
        return "test"

    def start(self, props: Mapping[str, str]) -> None:
        return None

    def poll(self) -> Any:
        try:
            item = self.polls.get(timeout=0.02)
        except queue.Empty:
            return None
        if isinstance(item, BaseException):
            raise item
        return item

    def stop(self) -> None:
        return None


class AckingTask(ScriptedTask):
    """Overrides commit_record, so the worker tracks acknowledgements record by record."""

    def __init__(self) -> None:
        super().__init__()
        self.acked: list[tuple[str, RecordMetadata | None]] = []

    def commit_record(self, record: SourceRecord, metadata: RecordMetadata | None) -> None:
        self.acked.append((record.value, metadata))


class PickyConverter(StringConverter):
    """Refuses the value 'bad'; raises RetriableError for 'flaky' the first `flaky_failures` times."""

    def __init__(self, flaky_failures: int = 0) -> None:
        super().__init__()
        self.flaky_failures = flaky_failures

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        super().configure(configs, is_key)
        self.str_encoding = None  # every value goes through from_connect_data

    def from_connect_data(self, topic: str, schema: Any, value: Any) -> bytes | None:
        if value == "bad":
            raise self._error(topic, "the value 'bad' is not allowed here")
        if value == "flaky" and self.flaky_failures > 0:
            self.flaky_failures -= 1
            raise RetriableError("schema registry unavailable")
        return super().from_connect_data(topic, schema, value)


class Harness:
    def __init__(
        self,
        tmp_path: Path,
        task: ScriptedTask,
        *,
        errors: ErrorHandling | None = None,
        value_converter: StringConverter | None = None,
        store: FileOffsetStore | None = None,
        connector: str = "c",
        flush_interval_s: float = 0.05,
        producer_setup: Callable[[FakeProducer], None] = lambda p: None,
        flusher: OffsetFlusher | None = None,
        transforms: TransformsConfig | None = None,
        header_converter: HeaderConverter | None = None,
    ) -> None:
        self.task = task
        self.store = store or FileOffsetStore(tmp_path / "offsets.json")
        self.producer: FakeProducer | None = None
        key_converter, value = StringConverter(), value_converter or StringConverter()
        key_converter.configure({}, True)
        value.configure({}, False)

        def factory(config: dict[str, Any]) -> FakeProducer:
            self.producer = FakeProducer(config)
            producer_setup(self.producer)
            return self.producer

        self.worker_task = WorkerSourceTask(
            connector=connector,
            task_id=0,
            task=task,
            props={},
            producer_config={},
            parts=TaskParts(
                key_converter,
                value,
                header_converter or SimpleHeaderConverter(),
                errors or ErrorHandling(),
                transforms or TransformsConfig(),
                AutoCreateGate(),
            ),
            offset_store=self.store,
            timeouts=TaskTimeouts(flush_interval_s, 0.2, 1.0),
            offset_flusher=flusher,
            producer_factory=factory,
        )  # type: ignore[arg-type]
        self.connector = connector

    def start(self) -> Harness:
        threading.Thread(target=self.worker_task.run, daemon=True).start()
        wait_until(lambda: self.worker_task.status.state is not State.UNASSIGNED, 5, "task start")
        return self

    def committed(self) -> Any:
        return self.store.offset(self.connector, PARTITION)

    def state(self) -> tuple[State, str | None]:
        return self.worker_task.status.snapshot()

    def wait_failed(self) -> str:
        wait_until(lambda: self.state()[0] is State.FAILED, 10, "the task to fail")
        assert self.worker_task.join(5)
        trace = self.state()[1]
        assert trace is not None
        return trace

    def wait_committed(self, offset: dict[str, int]) -> None:
        wait_until(lambda: self.committed() == offset, 10, f"offset {offset} committed")

    def stop(self) -> None:
        self.worker_task.stop()
        assert self.worker_task.join(10)

    def sent(self) -> list[str]:
        assert self.producer is not None
        return self.producer.values()


def kafka_error(code: int) -> KafkaError:
    return KafkaError(code)


# -- conversion ----------------------------------------------------------------------------------
def test_a_record_that_cannot_be_converted_fails_the_task_before_anything_of_its_poll_is_sent(tmp_path: Path) -> None:
    h = Harness(tmp_path, ScriptedTask(), value_converter=PickyConverter()).start()
    h.task.polls.put([rec(1)])
    h.wait_committed({"n": 1})
    h.task.polls.put([rec(2), rec(3, "bad"), rec(4)])
    trace = h.wait_failed()
    assert "value converter failed" in trace and "source offset {'n': 3}" in trace
    assert "errors.tolerance=all" in trace  # says how to skip such records instead
    assert h.sent() == ["v1"]  # record 2 was converted but never sent: its poll had a bad record
    assert h.committed() == {"n": 1}


def test_with_errors_tolerance_all_an_unconvertible_record_is_skipped_and_its_offset_advances(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    errors = ErrorHandling(tolerance=Tolerance.ALL, log_enable=True)
    h = Harness(tmp_path, AckingTask(), value_converter=PickyConverter(), errors=errors).start()
    with caplog.at_level(logging.ERROR, "connectworker.runtime.tasks.error_tolerance"):
        h.task.polls.put([rec(1), rec(2, "bad"), rec(3)])
        h.wait_committed({"n": 3})
    h.stop()
    assert h.sent() == ["v1", "v3"]
    assert h.worker_task.tolerance.skipped == 1
    assert ("bad", None) in h.task.acked  # a skipped record is reported done without metadata, as in Kafka
    assert any("source offset {'n': 2}" in r.getMessage() for r in caplog.records)


def test_a_retriable_conversion_error_is_retried_within_errors_retry_timeout(tmp_path: Path) -> None:
    errors = ErrorHandling(retry_timeout_ms=10_000, retry_delay_max_ms=100)
    h = Harness(tmp_path, ScriptedTask(), value_converter=PickyConverter(flaky_failures=3), errors=errors).start()
    h.task.polls.put([rec(1), rec(2, "flaky"), rec(3)])
    h.wait_committed({"n": 3})
    h.stop()
    assert h.sent() == ["v1", "flaky", "v3"]  # once each, in order
    assert h.worker_task.tolerance.retries == 2  # the poll-wide attempt failed once, then record by record


def test_without_errors_retry_timeout_a_retriable_conversion_error_fails_the_task(tmp_path: Path) -> None:
    h = Harness(tmp_path, ScriptedTask(), value_converter=PickyConverter(flaky_failures=100)).start()
    h.task.polls.put([rec(1, "flaky")])
    trace = h.wait_failed()
    assert "schema registry unavailable" in trace
    assert h.sent() == [] and h.committed() is None


# -- production ----------------------------------------------------------------------------------
def refuse_large(topic: str, value: bytes | None) -> KafkaError | None:
    return kafka_error(KafkaError.MSG_SIZE_TOO_LARGE) if value is not None and len(value) > 100 else None


@pytest.mark.parametrize("task_class", [ScriptedTask, AckingTask])
def test_a_record_the_producer_refuses_commits_exactly_the_records_before_it(
    tmp_path: Path, task_class: type[ScriptedTask]
) -> None:
    h = Harness(tmp_path, task_class(), producer_setup=lambda p: setattr(p, "refuse", refuse_large)).start()
    h.task.polls.put([rec(1), rec(2), rec(3, "x" * 500), rec(4)])
    trace = h.wait_failed()
    assert "source offset {'n': 3}" in trace and "message.max.bytes" in trace and "500 bytes" in trace
    assert h.sent() == ["v1", "v2"]
    assert h.committed() == {"n": 2}  # not 4: records 3 and 4 never reached Kafka


def test_a_columnar_poll_refused_midway_commits_exactly_the_records_before_it(tmp_path: Path) -> None:
    h = Harness(tmp_path, ScriptedTask(), producer_setup=lambda p: setattr(p, "refuse", refuse_large)).start()
    values = ["a", "b", "y" * 200, "d"]
    h.task.polls.put(SourceRecordBatch(PARTITION, [{"n": i} for i in range(1, 5)], ["t"] * 4, [None] * 4, values))
    h.wait_failed()
    assert h.sent() == ["a", "b"]
    assert h.committed() == {"n": 2}


def fail_value(bad: str) -> Callable[[FakeMessage], KafkaError | None]:
    return lambda msg: kafka_error(KafkaError.INVALID_RECORD) if msg.value() == bad.encode() else None


def test_an_asynchronous_delivery_failure_commits_the_acknowledged_prefix_only(tmp_path: Path) -> None:
    h = Harness(tmp_path, AckingTask(), producer_setup=lambda p: setattr(p, "fail", fail_value("v3"))).start()
    h.task.polls.put([rec(1), rec(2)])
    h.wait_committed({"n": 2})
    h.task.polls.put([rec(3), rec(4)])
    trace = h.wait_failed()
    assert "Kafka rejected a record" in trace
    assert h.committed() == {"n": 2}


def test_without_per_record_reports_a_delivery_failure_commits_nothing_unproven(tmp_path: Path) -> None:
    h = Harness(tmp_path, ScriptedTask(), producer_setup=lambda p: setattr(p, "fail", fail_value("v3"))).start()
    h.task.polls.put([rec(1), rec(2)])
    h.wait_committed({"n": 2})
    h.task.polls.put([rec(3), rec(4)])
    h.wait_failed()
    assert h.committed() == {"n": 2}


def test_with_errors_tolerance_all_a_delivery_failure_is_skipped(tmp_path: Path) -> None:
    h = Harness(
        tmp_path,
        AckingTask(),
        errors=ErrorHandling(tolerance=Tolerance.ALL),
        producer_setup=lambda p: setattr(p, "fail", fail_value("v2")),
    ).start()
    h.task.polls.put([rec(1), rec(2), rec(3)])
    h.wait_committed({"n": 3})
    h.stop()
    assert h.state()[0] is State.STOPPED
    assert h.worker_task.tolerance.skipped == 1
    assert ("v2", None) in h.task.acked


def test_records_still_unacknowledged_at_shutdown_are_not_committed(tmp_path: Path) -> None:
    h = Harness(tmp_path, ScriptedTask()).start()
    h.task.polls.put([rec(1)])
    h.wait_committed({"n": 1})
    assert h.producer is not None
    h.producer.hold.set()  # the broker stops answering
    h.task.polls.put([rec(2), rec(3)])
    wait_until(lambda: h.worker_task.stats().produced == 3, 5, "records handed to the producer")
    h.stop()
    assert h.committed() == {"n": 1}


def test_shutdown_commits_everything_acknowledged(tmp_path: Path) -> None:
    h = Harness(tmp_path, ScriptedTask(), flush_interval_s=3600).start()
    h.task.polls.put([rec(1), rec(2)])
    wait_until(lambda: h.worker_task.stats().produced == 2, 5, "records handed to the producer")
    assert h.committed() is None
    h.stop()
    assert h.committed() == {"n": 2} and h.state()[0] is State.STOPPED


def test_pausing_commits_what_was_acknowledged_and_resuming_continues(tmp_path: Path) -> None:
    h = Harness(tmp_path, ScriptedTask(), flush_interval_s=3600).start()
    h.task.polls.put([rec(1)])
    wait_until(lambda: h.worker_task.stats().produced == 1, 5, "record handed to the producer")
    h.worker_task.pause()
    h.wait_committed({"n": 1})
    assert h.state()[0] is State.PAUSED
    h.worker_task.resume()
    h.task.polls.put([rec(2)])
    wait_until(lambda: h.worker_task.stats().produced == 2, 5, "record after resume")
    h.stop()
    assert h.committed() == {"n": 2} and h.sent() == ["v1", "v2"]


# -- poll() ----------------------------------------------------------------------------------------
def test_a_retriable_error_from_poll_is_retried_and_loses_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    h = Harness(tmp_path, ScriptedTask(), errors=ErrorHandling(retry_delay_max_ms=50)).start()
    with caplog.at_level(logging.WARNING, "connectworker.runtime.tasks.poll_retry"):
        h.task.polls.put([rec(1)])
        for _ in range(3):
            h.task.polls.put(RetriableError("source briefly unavailable"))
        h.task.polls.put([rec(2)])
        h.wait_committed({"n": 2})
    h.stop()
    assert h.state()[0] is State.STOPPED
    assert h.sent() == ["v1", "v2"]
    warnings = [r for r in caplog.records if "source briefly unavailable" in r.getMessage()]
    assert len(warnings) == 1  # the first failure is logged; the next ones fall in the same interval


def test_a_non_retriable_error_from_poll_fails_the_task_and_keeps_what_was_acknowledged(tmp_path: Path) -> None:
    h = Harness(tmp_path, ScriptedTask(), flush_interval_s=3600).start()
    h.task.polls.put([rec(1)])
    h.task.polls.put(ValueError("the source is gone"))
    trace = h.wait_failed()
    assert "the source is gone" in trace
    assert h.committed() == {"n": 1}


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        (["a", "b"], "item 0 of the list it returned is a str ('a')"),
        ([{"topic": "t", "value": "v"}], "item 0 of the list it returned is a dict"),
        ("abc", "it returned a str"),
        ((r for r in [rec(1)]), "it returned a generator"),
    ],
)
def test_poll_returning_something_other_than_records_says_what_is_expected(
    tmp_path: Path, result: object, expected: str
) -> None:
    h = Harness(tmp_path, ScriptedTask()).start()
    h.task.polls.put(result)
    trace = h.wait_failed()
    first_line = trace.splitlines()[0]
    assert "must return a list of SourceRecord, a SourceRecordBatch, or None" in first_line
    assert expected in first_line and "c-0" in first_line


# -- offsets -------------------------------------------------------------------------------------
def test_an_offset_that_cannot_be_stored_fails_only_its_own_task(tmp_path: Path) -> None:
    store = FileOffsetStore(tmp_path / "offsets.json")
    healthy = Harness(tmp_path, ScriptedTask(), store=store, connector="healthy").start()
    broken = Harness(tmp_path, ScriptedTask(), store=store, connector="broken").start()
    broken.task.polls.put([SourceRecord(PARTITION, {"when": object()}, "t", "x")])
    trace = broken.wait_failed()
    assert "broken-0" in trace and "source_offset['when'] is a object" in trace
    assert broken.sent() == []
    for n in (1, 2):  # the healthy task keeps committing, to the same file
        healthy.task.polls.put([rec(n)])
        healthy.wait_committed({"n": n})
    healthy.stop()
    assert FileOffsetStore(tmp_path / "offsets.json").offset("healthy", PARTITION) == {"n": 2}


def test_a_source_partition_that_is_not_a_dict_fails_the_task_with_its_type(tmp_path: Path) -> None:
    h = Harness(tmp_path, ScriptedTask()).start()
    h.task.polls.put([SourceRecord(["p"], {"n": 1}, "t", "x")])  # type: ignore[arg-type]
    assert "a source_partition is a list" in h.wait_failed()


def test_the_offset_store_refuses_offsets_that_json_cannot_hold(tmp_path: Path) -> None:
    store = FileOffsetStore(tmp_path / "offsets.json")
    store.put("a", {"k": {"n": 1}})
    with pytest.raises(Exception, match="cannot be stored as JSON"):
        store.put("b", {"k": {"when": threading.Event()}})
    store.flush()
    assert FileOffsetStore(tmp_path / "offsets.json").offsets("a") == {"k": {"n": 1}}
    assert FileOffsetStore(tmp_path / "offsets.json").offsets("b") == {}


# -- the offsets writer and the cluster's reachability -------------------------------------------


class CommitWatchingTask(ScriptedTask):
    """Reads the offsets file each time the worker calls its commit() hook."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self.file_at_commit: list[str] = []

    def commit(self) -> None:
        self.file_at_commit.append(self.path.read_text())


def test_with_the_offsets_writer_commit_runs_only_once_the_file_holds_the_offsets(tmp_path: Path) -> None:
    store = FileOffsetStore(tmp_path / "offsets.json")
    flusher = OffsetFlusher(store)
    task = CommitWatchingTask(store.path)
    h = Harness(tmp_path, task, store=store, flusher=flusher).start()
    task.polls.put([rec(1), rec(2)])
    wait_until(lambda: task.file_at_commit, 10, "the task's commit() hook")
    assert '"n": 2' in task.file_at_commit[0]
    assert FileOffsetStore(store.path).offset("c", PARTITION) == {"n": 2}  # what a restart reads
    h.stop()
    flusher.close()


def test_an_offsets_file_that_cannot_be_written_keeps_the_offsets_for_the_next_write(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = FileOffsetStore(tmp_path / "dir" / "offsets.json")
    flusher = OffsetFlusher(store)
    (tmp_path / "dir").write_text("a file where the directory should be")
    store.put("c", {"k": {"n": 1}})
    written: list[bool] = []
    with caplog.at_level(logging.ERROR):
        flusher.request(lambda: written.append(True))
        wait_until(lambda: "Could not write the offsets to file" in caplog.text, 5, "the error line")
    assert written == []  # the callback (the task's commit()) waits for a durable write
    (tmp_path / "dir").unlink()
    flusher.request(lambda: written.append(True))
    flusher.close()
    assert written == [True]
    assert FileOffsetStore(store.path).offsets("c") == {"k": {"n": 1}}


def test_an_unreachable_cluster_shows_in_a_running_tasks_status_until_kafka_takes_records_again(tmp_path: Path) -> None:
    task = ScriptedTask()
    h = Harness(tmp_path, task).start()
    h.worker_task.connectivity.error_cb(KafkaError(KafkaError._ALL_BROKERS_DOWN, "1/1 brokers are down"))
    wait_until(lambda: "Kafka cluster unreachable" in (h.state()[1] or ""), 5, "the outage note")
    state, note = h.state()
    assert state is State.RUNNING
    assert note is not None and "1/1 brokers are down" in note
    task.polls.put([rec(1)])  # delivered: the cluster answers again
    wait_until(lambda: h.state() == (State.RUNNING, None), 5, "the note to clear")
    h.stop()
    assert h.committed() == {"n": 1}


def test_commits_that_cannot_be_written_are_counted_failed_then_succeeded_once_the_file_can_be(tmp_path: Path) -> None:
    """What `connectworker_offset_commit_failure_total` / `_success_total` read."""
    store = FileOffsetStore(tmp_path / "dir" / "offsets.json")
    flusher = OffsetFlusher(store)
    (tmp_path / "dir").write_text("a file where the directory should be")
    h = Harness(tmp_path, ScriptedTask(), store=store, flusher=flusher).start()
    h.task.polls.put([rec(1), rec(2)])
    task = h.worker_task
    wait_until(lambda: task.stats().commits_failed >= 1, 10, "a failed commit")
    assert task.stats().commits_succeeded == 0 and task.committed_records == 0
    (tmp_path / "dir").unlink()
    wait_until(lambda: task.committed_records == 2, 10, "the next commit to write what the failed one left")
    assert FileOffsetStore(store.path).offset("c", PARTITION) == {"n": 2}
    h.task.polls.put([rec(3)])
    wait_until(lambda: task.committed_records == 3, 10, "the third record committed")
    assert task.stats().commits_succeeded >= 1
    assert FileOffsetStore(store.path).offset("c", PARTITION) == {"n": 3}
    h.stop()
    flusher.close()
