"""The standalone worker end to end: file source and data generator into a real broker, restarts
resume from committed offsets, and failures surface as FAILED tasks."""

from __future__ import annotations

import json
from pathlib import Path

from confluent_kafka.admin import AdminClient, NewTopic

from connectworker.runtime.offsets.file_store import partition_key
from connectworker.runtime.status import State
from tests.broker import Broker
from tests.integration.harness import running_worker, task_state, wait_committed, wait_until, worker_config
from tests.kafka_helpers import consume, delete_topics


def file_connector(name: str, path: Path, topic: str) -> dict[str, str]:
    return {"name": name, "connector.class": "FileStreamSource", "file": str(path), "topic": topic, "batch.size": "50"}


def stored_offsets(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "connect.offsets").read_text())


def test_file_source_delivers_every_line_in_order_and_resumes_after_restart(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    topic = f"file-{unique}"
    source = tmp_path / "input.txt"
    first = [f"line {i} ünïcode" for i in range(300)]
    source.write_text("".join(f"{line}\n" for line in first), encoding="utf-8")
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result()  # one partition: one total order
    config = worker_config(broker.bootstrap_servers, tmp_path)
    connector = file_connector(f"file-{unique}", source, topic)

    with running_worker(config, connector) as runtime:
        wait_until(
            lambda: runtime.worker.get(connector["name"]).tasks[0].committed_records >= 300, what="300 committed lines"
        )
    offsets = stored_offsets(tmp_path)[connector["name"]]
    assert offsets == {partition_key({"filename": str(source)}): {"position": source.stat().st_size}}

    second = [f"more {i}" for i in range(120)]
    with source.open("a", encoding="utf-8") as fh:
        fh.write("".join(f"{line}\n" for line in second))
    with running_worker(config, connector) as runtime:
        wait_until(
            lambda: runtime.worker.get(connector["name"]).tasks[0].committed_records >= 120,
            what="120 more committed lines",
        )

    values = [m.value().decode("utf-8") for m in consume(broker.bootstrap_servers, [topic], 420)]
    assert values == first + second
    delete_topics(admin, [topic])


def test_data_generator_writes_each_task_sequence_without_gaps(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    pattern = f"gen-{unique}.{{region}}"
    connector = {
        "name": f"gen-{unique}",
        "connector.class": "DataGen",
        "tasks.max": "2",
        "topic.pattern": pattern,
        "topic.count": "3",
        "records": "500",
        "rate": "0",
        "batch.size": "50",
        "seed": "7",
        "format": "string",
    }
    config = worker_config(broker.bootstrap_servers, tmp_path)
    with running_worker(config, connector) as runtime:
        running = runtime.worker.get(connector["name"])
        wait_until(lambda: all(t.committed_records >= 500 for t in running.tasks), what="1000 committed")
        topics = sorted(running.topics)
    assert len(topics) == 3 and all(t.startswith(f"gen-{unique}.") for t in topics)

    messages = consume(broker.bootstrap_servers, topics, 1000)
    assert len(messages) == 1000
    offsets = stored_offsets(tmp_path)[connector["name"]]
    assert offsets == {partition_key({"task": 0}): {"seq": 500}, partition_key({"task": 1}): {"seq": 500}}
    delete_topics(admin, topics)


def test_task_that_raises_goes_failed_with_the_error_and_commits_what_was_acked(
    broker: Broker, tmp_path: Path, unique: str
) -> None:
    connector = {
        "name": f"bad-{unique}",
        "connector.class": "FileStreamSource",
        "file": str(tmp_path),  # a directory: its task cannot read it
        "topic": f"never-{unique}",
    }
    config = worker_config(broker.bootstrap_servers, tmp_path)
    with running_worker(config, connector) as runtime:
        wait_until(lambda: task_state(runtime.worker, connector["name"])[0] is State.FAILED, what="task FAILED")
        _, trace = task_state(runtime.worker, connector["name"])
        assert trace is not None and f"{str(tmp_path)!r} is a directory, not a file to read" in trace


def test_commit_record_gets_kafka_metadata_for_every_record(
    broker: Broker, admin: AdminClient, tmp_path: Path, unique: str
) -> None:
    from tests.integration.fixture_connectors import acknowledged

    topic, acks = f"acks-{unique}", tmp_path / "acks.jsonl"
    connector = {
        "name": f"acks-{unique}",
        "connector.class": "tests.integration.fixture_connectors.RecordingDataGen",
        "topic.pattern": topic,
        "topic.count": "1",
        "records": "200",
        "rate": "0",
        "batch.size": "50",
        "acks.file": str(acks),
    }
    with running_worker(worker_config(broker.bootstrap_servers, tmp_path), connector) as runtime:
        wait_committed(runtime.worker, connector["name"], 200)
    calls = acknowledged(acks)  # written by the task, in its task process
    keys = [key for key, _ in calls]
    assert sorted(keys, key=int) == [str(i) for i in range(200)]
    metadata = [m for _, m in calls]
    assert all(m is not None and m[0] == topic and m[2] >= 0 and m[1] >= 0 for m in metadata)
    by_partition: dict[int, list[int]] = {}
    for m in metadata:
        assert m is not None
        by_partition.setdefault(m[1], []).append(m[2])
    assert all(len(set(offsets)) == len(offsets) for offsets in by_partition.values())  # distinct positions
    delete_topics(admin, [topic])
