"""Failures inside a poll, against the real broker: what the task's status says, what reached Kafka,
and which offsets a restart would resume from."""

from __future__ import annotations

from pathlib import Path

from connectworker.runtime.offsets.file_store import FileOffsetStore
from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.harness import running_worker, task_state, wait_committed, wait_until, worker_config
from tests.integration.scripted_source import PARTITION
from tests.kafka_helpers import consume

SCRIPTED = "tests.integration.scripted_source.ScriptedSource"


def scripted(name: str, topic: str, values: str, **extra: str) -> dict[str, str]:
    return {"name": name, "connector.class": SCRIPTED, "topic": topic, "values": values, **extra}


def committed(tmp_path: Path, connector: str) -> object:
    return FileOffsetStore(tmp_path / "connect.offsets").offset(connector, PARTITION)


def test_an_oversized_record_fails_the_task_and_commits_exactly_the_records_before_it(
    broker: Broker, tmp_path: Path, unique: str
) -> None:
    topic, name = f"big-{unique}", f"big-{unique}"
    with running_worker(
        worker_config(broker.bootstrap_servers, tmp_path), scripted(name, topic, "a,b,@big,c")
    ) as runtime:
        assert runtime.worker is not None
        wait_until(lambda: task_state(runtime.worker, name)[0] is State.FAILED, 30, "the task to fail")  # type: ignore[union-attr]
        trace = task_state(runtime.worker, name)[1] or ""
    first_line = trace.splitlines()[0]
    assert "source offset {'n': 3}" in first_line and "message.max.bytes" in first_line
    assert "2,000,000 bytes" in first_line
    assert committed(tmp_path, name) == {"n": 2}
    assert sorted(m.value() for m in consume(broker.bootstrap_servers, [topic], 2)) == [b"a", b"b"]


def test_a_record_pinned_to_a_partition_the_topic_lacks_fails_the_task_naming_it_and_is_never_rerouted(
    broker: Broker, tmp_path: Path, unique: str
) -> None:
    """With topic creation on, "unknown partition" must not pass for a vanished topic: that would wait
    out topic.creation.timeout.ms and then send the record to a partition the task did not choose."""
    topic, name = f"pin-{unique}", f"pin-{unique}"
    connector = scripted(
        name,
        topic,
        "a,b,@p5,c",
        **{"topic.creation.default.partitions": "1", "topic.creation.default.replication.factor": "1"},
    )
    config = worker_config(broker.bootstrap_servers, tmp_path, **{"topic.creation.enable": "true"})
    with running_worker(config, connector) as runtime:
        assert runtime.worker is not None
        wait_until(lambda: task_state(runtime.worker, name)[0] is State.FAILED, 20, "the task to fail")  # type: ignore[union-attr]
        trace = task_state(runtime.worker, name)[1] or ""
    first_line = trace.splitlines()[0]
    assert f"topic '{topic}', partition 5" in first_line, first_line
    assert "Unknown partition" in first_line and "does not have" in first_line, first_line
    assert committed(tmp_path, name) in (None, {"n": 2})  # never past the refused record
    delivered = [m.value() for m in consume(broker.bootstrap_servers, [topic], 4, timeout=5)]
    assert b"a" in delivered and b"b" in delivered and b"@p5" not in delivered


def test_with_errors_tolerance_all_an_unconvertible_record_is_skipped_and_the_rest_delivered(
    broker: Broker, tmp_path: Path, unique: str
) -> None:
    topic, name = f"skip-{unique}", f"skip-{unique}"
    config = worker_config(
        broker.bootstrap_servers,
        tmp_path,
        **{"value.converter": "org.apache.kafka.connect.json.JsonConverter", "value.converter.schemas.enable": "false"},
    )
    with running_worker(config, scripted(name, topic, "a,@set,c", **{"errors.tolerance": "all"})) as runtime:
        assert runtime.worker is not None
        wait_until(lambda: committed(tmp_path, name) == {"n": 3}, 30, "offset n=3 committed")
        task = runtime.worker.get(name).tasks[0]
        assert task.status.snapshot()[0] is State.RUNNING and task.stats().skipped == 1
    assert sorted(m.value() for m in consume(broker.bootstrap_servers, [topic], 2)) == [b'"a"', b'"c"']


def test_a_bad_offset_fails_only_its_own_task_and_the_others_keep_committing(
    broker: Broker, tmp_path: Path, unique: str
) -> None:
    topic = f"offsets-{unique}"
    bad, good = f"bad-{unique}", f"good-{unique}"
    datagen = {
        "name": good,
        "connector.class": "DataGen",
        "topic.pattern": topic,
        "topic.count": "1",
        "records": "2000",
        "rate": "0",
        "batch.size": "100",
        "format": "string",
        "seed": "1",
    }
    with running_worker(
        worker_config(broker.bootstrap_servers, tmp_path), scripted(bad, topic, "a,@badoffset"), datagen
    ) as runtime:
        assert runtime.worker is not None
        wait_committed(runtime.worker, good, 2000)
        # each task runs in a task process of its own: the good one may finish before the bad one reports
        wait_until(
            lambda: task_state(runtime.worker, bad)[0] is State.FAILED,
            30,
            lambda: f"task {bad} FAILED (it is {task_state(runtime.worker, bad)})",
        )
        _, trace = task_state(runtime.worker, bad)
        assert "cannot be stored" in (trace or "") and "is a object" in (trace or "")
    offsets = FileOffsetStore(tmp_path / "connect.offsets")
    assert offsets.offset(good, {"task": 0}) == {"seq": 2000}
    assert offsets.offsets(bad) == {}
