"""FileStreamSource: lines, batching, resuming, partial lines, tailing, stopping, config errors."""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest

import connectworker
from connectworker.api.errors import ConfigError, ConnectError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import STRING_SCHEMA
from connectworker.connectors.file_source import (
    SINGLE_TOPIC_MESSAGE,
    FileStreamSourceConnector,
    FileStreamSourceTask,
)
from tests.unit.task_context_fake import FakeContext


class FakeOffsetReader:
    def __init__(self, committed: dict[str, dict[str, Any]] | None = None) -> None:
        self.committed = committed or {}
        self.asked: list[dict[str, Any]] = []

    def offset(self, partition: dict[str, Any]) -> dict[str, Any] | None:
        self.asked.append(partition)
        return self.committed.get(partition.get("filename", ""))

    def offsets(self, partitions: Collection[dict[str, Any]]) -> dict[str, dict[str, Any] | None]:
        return {str(p): self.offset(p) for p in partitions}


def start_task(
    props: dict[str, str], committed: dict[str, dict[str, Any]] | None = None, idle_wait_s: float = 0.01
) -> FileStreamSourceTask:
    task = FileStreamSourceTask()
    task.idle_wait_s = idle_wait_s
    task.initialize(FakeContext(FakeOffsetReader(committed)))
    task.start(props)
    return task


def values(records: list[SourceRecord] | None) -> list[str]:
    return [r.value for r in records or []]


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "input.txt"


def test_reads_complete_lines_with_byte_offsets(path: Path) -> None:
    path.write_bytes(b"alpha\nbeta\n\xc3\xa9t\xc3\xa9\n")
    task = start_task({"file": str(path), "topic": "lines"})
    try:
        records = task.poll()
        assert records is not None
        assert values(records) == ["alpha", "beta", "été"]
        # Byte offsets after each line, not character counts: "été\n" is 6 bytes.
        assert [r.source_offset for r in records] == [{"position": 6}, {"position": 11}, {"position": 17}]
        for record in records:
            assert record.source_partition == {"filename": str(path)}
            assert record.topic == "lines"
            assert record.key is None
            assert record.value_schema == STRING_SCHEMA
        assert task.poll() is None
    finally:
        task.stop()


def test_line_endings_like_kafka(path: Path) -> None:
    path.write_bytes(b"dos\r\nmac\runix\n\n")
    task = start_task({"file": str(path), "topic": "t"})
    try:
        records = task.poll()
        assert values(records) == ["dos", "mac", "unix", ""]
        assert [r.source_offset for r in records or []] == [
            {"position": 5},
            {"position": 9},
            {"position": 14},
            {"position": 15},
        ]
    finally:
        task.stop()


def test_batches_by_batch_size(path: Path) -> None:
    path.write_text("".join(f"line{i}\n" for i in range(5)))
    task = start_task({"file": str(path), "topic": "t", "batch.size": "2"})
    try:
        batches = [values(task.poll()) for _ in range(3)]
        assert batches == [["line0", "line1"], ["line2", "line3"], ["line4"]]
        assert task.poll() is None
    finally:
        task.stop()


def test_resumes_from_committed_position(path: Path) -> None:
    path.write_text("one\ntwo\nthree\n")
    task = start_task({"file": str(path), "topic": "t"}, committed={str(path): {"position": 8}})
    try:
        records = task.poll()
        assert values(records) == ["three"]
        assert records is not None and records[0].source_offset == {"position": 14}
    finally:
        task.stop()


def test_resumes_where_a_previous_task_stopped(path: Path) -> None:
    path.write_text("a\nb\nc\nd\n")
    first = start_task({"file": str(path), "topic": "t", "batch.size": "3"})
    records = first.poll()
    first.stop()
    assert records is not None
    committed = {str(path): records[-1].source_offset or {}}
    second = start_task({"file": str(path), "topic": "t"}, committed=committed)
    try:
        assert values(second.poll()) == ["d"]
    finally:
        second.stop()


def test_position_beyond_end_of_file_rereads_from_start(path: Path) -> None:
    path.write_text("short\n")
    task = start_task({"file": str(path), "topic": "t"}, committed={str(path): {"position": 500}})
    try:
        assert values(task.poll()) == ["short"]
    finally:
        task.stop()


def test_invalid_committed_position_is_an_error(path: Path) -> None:
    path.write_text("x\n")
    with pytest.raises(ConnectError, match="invalid position"):
        start_task({"file": str(path), "topic": "t"}, committed={str(path): {"position": "12"}})


def test_partial_line_waits_for_its_newline_and_file_is_tailed(path: Path) -> None:
    path.write_bytes(b"first\npart")
    task = start_task({"file": str(path), "topic": "t"})
    try:
        assert values(task.poll()) == ["first"]
        assert task.poll() is None
        with path.open("ab") as f:
            f.write(b"ial")
        assert task.poll() is None
        with path.open("ab") as f:
            f.write(b"\nnext\n")
        records = task.poll()
        assert values(records) == ["partial", "next"]
        assert [r.source_offset for r in records or []] == [{"position": 14}, {"position": 19}]
    finally:
        task.stop()


def test_trailing_carriage_return_waits_for_a_possible_newline(path: Path) -> None:
    path.write_bytes(b"win\r")
    task = start_task({"file": str(path), "topic": "t"})
    try:
        assert task.poll() is None
        with path.open("ab") as f:
            f.write(b"\nnext\n")
        records = task.poll()
        assert values(records) == ["win", "next"]
        assert [r.source_offset for r in records or []] == [{"position": 5}, {"position": 10}]
    finally:
        task.stop()


def test_long_line_split_across_reads(path: Path) -> None:
    long_line = "x" * 200_000
    path.write_text(long_line + "\nend\n")
    task = start_task({"file": str(path), "topic": "t"})
    try:
        assert values(task.poll()) == [long_line, "end"]
    finally:
        task.stop()


def test_truncated_file_is_read_again_from_start(path: Path) -> None:
    path.write_text("old line one\nold line two\n")
    task = start_task({"file": str(path), "topic": "t"})
    try:
        assert len(values(task.poll())) == 2
        path.write_text("new\n")
        assert task.poll() is None  # the poll that notices the truncation
        records = task.poll()
        assert values(records) == ["new"]
        assert records is not None and records[0].source_offset == {"position": 4}
    finally:
        task.stop()


def test_stop_makes_a_waiting_poll_return_promptly(path: Path) -> None:
    path.write_text("")
    task = start_task({"file": str(path), "topic": "t"}, idle_wait_s=60.0)
    results: list[Any] = []
    poller = threading.Thread(target=lambda: results.append(task.poll()))
    poller.start()
    task.stop()
    poller.join(timeout=30)  # a generous bound: without stop() the poll would wait 60 s
    assert not poller.is_alive()
    assert results == [None]
    assert task.poll() is None


def test_a_file_not_created_yet_is_waited_for_as_kafkas_task_does(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    later = tmp_path / "later.txt"
    with caplog.at_level(logging.INFO, logger="connectworker.connectors.file_source"):
        task = start_task({"file": str(later), "topic": "t"})
        try:
            assert task.poll() is None and task.poll() is None
            later.write_bytes(b"one\ntwo\n")
            records = task.poll()
            assert values(records) == ["one", "two"]
            assert records is not None and records[-1].source_offset == {"position": 8}
        finally:
            task.stop()
    messages = [r.getMessage() for r in caplog.records]
    assert messages == [
        f"FileStreamSourceTask: file {later} does not exist yet; waiting for it to be created (it is looked for at "
        "every poll, as Kafka's task does)",
        f"FileStreamSourceTask: file {later} exists now; reading it",
    ]


def test_stdin_when_file_is_absent(monkeypatch: pytest.MonkeyPatch) -> None:
    read_fd, write_fd = os.pipe()
    with os.fdopen(read_fd, "rb") as fake_stdin:
        monkeypatch.setattr(sys, "stdin", fake_stdin)
        task = start_task({"topic": "t"})
        try:
            assert task.poll() is None
            os.write(write_fd, b"from\nstdin\npart")
            records = task.poll()
            assert values(records) == ["from", "stdin"]
            assert all(r.source_partition is None and r.source_offset is None for r in records or [])
            os.write(write_fd, b"ial\n")
            os.close(write_fd)
            assert values(task.poll()) == ["partial"]
            assert task.poll() is None  # end of input: the task idles
        finally:
            task.stop()


def test_connector_makes_one_task_config() -> None:
    connector = FileStreamSourceConnector()
    props = {"name": "f", "file": "/tmp/x", "topic": "t", "batch.size": "10"}
    connector.start(props)
    assert connector.task_configs(5) == [props]
    assert connector.task_class() is FileStreamSourceTask
    assert connector.version() == connectworker.__version__
    assert FileStreamSourceTask().version() == connectworker.__version__
    documented = connector.config_def().keys
    assert set(documented) == {"file", "topic", "batch.size"}
    assert all(key.documentation for key in documented.values())


def test_topic_list_is_rejected_with_kafkas_message() -> None:
    with pytest.raises(ConfigError) as info:
        FileStreamSourceConnector().start({"file": "/tmp/x", "topic": "a,b"})
    assert SINGLE_TOPIC_MESSAGE in info.value.problems["topic"]


@pytest.mark.parametrize(
    ("props", "key", "fragment"),
    [
        ({"file": "/tmp/x"}, "topic", "Missing required configuration"),
        ({"topic": "  "}, "topic", "non-empty"),
        ({"topic": "t", "batch.size": "0"}, "batch.size", "at least 1"),
        ({"topic": "t", "batch.size": "many"}, "batch.size", "integer"),
    ],
)
def test_config_errors_name_the_key(props: dict[str, str], key: str, fragment: str) -> None:
    with pytest.raises(ConfigError) as info:
        FileStreamSourceConnector().start(props)
    assert fragment in info.value.problems[key]
    results = FileStreamSourceConnector().validate(props)
    assert any(fragment in e for e in results[key].errors)
