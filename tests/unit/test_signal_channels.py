"""The signal channels of the CDC connectors (connectors/debezium/signal_*.py) without a broker: a signal line
or Kafka value parsed as Debezium's channels read it (a malformed one logged with what is wrong and its id,
then skipped), the file channel (read in order, emptied before its signals are handed on), the channels read
at most every signal.poll.interval.ms, and the keys' own checks and the rules across them. The Kafka channel
is tested against the broker in tests/integration/test_signal_channels_kafka.py."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

from connectworker.api.config_def import ConfigDef
from connectworker.api.errors import ConfigError, ConnectError
from connectworker.connectors.debezium import signal_file
from connectworker.connectors.debezium.capture_keys import capture_keys
from connectworker.connectors.debezium.signal_channels import (
    FileSignalChannel,
    SignalChannels,
    kafka_start_offset,
    parse_signal_line,
)
from connectworker.connectors.debezium.signal_keys import signal_consumer_config, signal_key_problems, signal_keys
from connectworker.connectors.debezium.signal_types import Signal

SNAPSHOT = '{"id":"ad-hoc","type":"execute-snapshot","data": {"data-collections": ["s1.a"], "type": "INCREMENTAL"}}'
KEYS = signal_keys("schema")


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


# -- one signal as JSON -----------------------------------------------------------------------------------
def test_a_signal_line_becomes_a_signal_with_its_data_as_compact_json() -> None:
    assert parse_signal_line(SNAPSHOT, "file") == Signal(
        "ad-hoc", "execute-snapshot", '{"data-collections":["s1.a"],"type":"INCREMENTAL"}', "file"
    )
    assert parse_signal_line('{"id": 12345, "type": "log", "data": {}}', "file") == Signal("12345", "log", "{}", "file")


def test_a_kafka_value_may_leave_out_the_id_a_file_line_may_not(caplog: pytest.LogCaptureFixture) -> None:
    line = '{"type":"pause-snapshot","data":{"type":"INCREMENTAL"}}'
    assert parse_signal_line(line, "kafka") == Signal(None, "pause-snapshot", '{"type":"INCREMENTAL"}', "kafka")
    with caplog.at_level(logging.WARNING):
        assert parse_signal_line(line, "file") is None
    assert warnings(caplog) == [f"Skipped a signal on the file channel: it has no 'id': {line!r}"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("{not json", "Skipped a signal on the kafka channel: it is not JSON (Expecting property name enclosed"),
        ('["a", "b"]', "Skipped a signal on the kafka channel: it is an array, not a JSON object"),
        ('{"id": true, "type": "log", "data": {}}', "Skipped a signal on the kafka channel: its 'id' is a boolean"),
        ('{"id": "s7", "data": {}}', "Skipped signal 's7' on the kafka channel: it has no 'type'"),
        ('{"id": "s7", "type": " ", "data": {}}', "Skipped signal 's7' on the kafka channel: it has a 'type' that is"),
        ('{"id": "s7", "type": "log"}', "Skipped signal 's7' on the kafka channel: it has no 'data'; 'data' must"),
        (
            '{"id": "s7", "type": "log", "data": "{\\"message\\": \\"x\\"}"}',
            "Skipped signal 's7' on the kafka channel: it has a 'data' that is a string; 'data' must be a JSON object",
        ),
    ],
)
def test_a_malformed_signal_is_logged_naming_what_is_wrong_and_skipped(
    line: str, message: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING):
        assert parse_signal_line(line, "kafka") is None
    [logged] = warnings(caplog)
    assert logged.startswith(message)
    assert logged.endswith(repr(line))  # the line itself, to find it


def test_a_blank_line_is_ignored_without_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        assert parse_signal_line("   \t", "file") is None
    assert warnings(caplog) == []


def test_a_long_malformed_signal_is_quoted_in_part(caplog: pytest.LogCaptureFixture) -> None:
    line = json.dumps({"id": "big", "type": "log", "data": ["x" * 1000]})
    with caplog.at_level(logging.WARNING):
        parse_signal_line(line, "file")
    [logged] = warnings(caplog)
    assert logged.startswith("Skipped signal 'big' on the file channel: it has a 'data' that is an array")
    assert line[:200] in logged and line not in logged


# -- the file channel ---------------------------------------------------------------------------------------
def test_the_file_channel_hands_on_every_good_line_in_order_and_leaves_the_file_empty(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "signals.txt"
    path.write_bytes(
        b'{"id":"1","type":"log","data":{"message":"first"}}\n'
        b"\n"
        b"not a signal\n"
        b'{"id":"2","type":"log","data":{"message":"caf\xc3\xa9"}}\r\n'
        b'{"id":"3","type":"log","data":{"message":"\xff"}}\n'
        b'{"id":"4","type":"stop-snapshot","data":{}}'
    )
    channel = FileSignalChannel(str(path))
    with caplog.at_level(logging.WARNING):
        signals = channel.poll()
    assert [(s.id, s.type, s.data, s.channel) for s in signals] == [
        ("1", "log", '{"message":"first"}', "file"),
        ("2", "log", '{"message":"café"}', "file"),
        ("4", "stop-snapshot", "{}", "file"),
    ]
    assert path.read_bytes() == b""
    assert warnings(caplog)[0].startswith("Skipped a signal on the file channel: it is not JSON")
    assert warnings(caplog)[1].startswith(f"Skipped line 5 of the signal file {path}: it is not UTF-8")
    assert channel.poll() == []  # each line once

    with path.open("a") as file:
        file.write(SNAPSHOT + "\n")
    assert [s.id for s in channel.poll()] == ["ad-hoc"]


def test_the_file_is_emptied_before_its_signals_are_handed_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "signals.txt"
    path.write_text(SNAPSHOT + "\n")
    sizes = []

    def parse(text: str, channel: str) -> Signal | None:
        sizes.append(path.stat().st_size)
        return parse_signal_line(text, channel)

    monkeypatch.setattr(signal_file, "parse_signal_line", parse)
    assert [s.id for s in FileSignalChannel(str(path)).poll()] == ["ad-hoc"]
    assert sizes and set(sizes) == {0}


def test_no_signal_file_is_no_signal_and_a_file_that_cannot_be_read_fails_naming_it(tmp_path: Path) -> None:
    assert FileSignalChannel(str(tmp_path / "missing.txt")).poll() == []
    (tmp_path / "a-file").write_text("")
    unreadable = tmp_path / "a-file" / "signals.txt"
    with pytest.raises(ConnectError, match=re.escape(f"Failed to read the signal file {unreadable} (signal.file): ")):
        FileSignalChannel(str(unreadable)).poll()


# -- the channels together ------------------------------------------------------------------------------------
class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_channels_are_read_at_once_then_at_most_every_poll_interval(tmp_path: Path) -> None:
    path, clock = tmp_path / "signals.txt", Clock()
    path.write_text(SNAPSHOT + "\n")  # written while the task was stopped
    values = KEYS.parse(
        {"signal.enabled.channels": "source,File", "signal.file": str(path), "signal.poll.interval.ms": "2000"}
    )
    channels = SignalChannels.from_values(values, topic_prefix="p", clock=clock)
    assert [s.id for s in channels.poll_due()] == ["ad-hoc"]
    path.write_text('{"id":"next","type":"log","data":{"message":"m"}}\n')
    clock.now += 1.999
    assert channels.poll_due() == []
    assert path.stat().st_size > 0  # not read: not due
    clock.now += 0.001
    assert [s.id for s in channels.poll_due()] == ["next"]
    assert channels.position == {}  # no Kafka channel: nothing for the offsets
    channels.close()


def test_the_source_channel_alone_reads_nothing_here() -> None:
    channels = SignalChannels.from_values(KEYS.parse({}), topic_prefix="p")
    assert channels.channels == () and channels.poll_due() == []


def test_kafka_without_a_cluster_is_refused_naming_the_key() -> None:
    values = KEYS.parse({"signal.enabled.channels": "kafka"})
    with pytest.raises(
        ConnectError, match=re.escape("signal.enabled.channels has kafka but signal.kafka.bootstrap.servers is empty")
    ):
        SignalChannels.from_values(values, topic_prefix="p")


def test_the_kafka_channel_starts_where_the_stored_offset_says() -> None:
    assert kafka_start_offset(None) is None
    assert kafka_start_offset({"lsn": 5}) is None
    assert kafka_start_offset({"lsn": 5, "signal_kafka_offset": 7}) == 7
    with pytest.raises(ConnectError, match="signal_kafka_offset='7', not an offset of the signal topic"):
        kafka_start_offset({"signal_kafka_offset": "7"})


# -- the keys ---------------------------------------------------------------------------------------------------
def test_the_keys_default_as_debezium_s_and_merge_with_the_shared_keys() -> None:
    values = KEYS.parse({})
    assert {key: values[key] for key in KEYS.names()} == {
        "signal.enabled.channels": ["source"],
        "signal.data.collection": "",
        "signal.kafka.topic": "",
        "signal.kafka.bootstrap.servers": "",
        "signal.kafka.groupId": "kafka-signal",
        "signal.file": "file-signals.txt",
        "signal.poll.interval.ms": 5000,
        "incremental.snapshot.chunk.size": 1024,
        "incremental.snapshot.watermarking.strategy": "insert_insert",
        "notification.enabled.channels": [],
        "notification.sink.topic.name": "",
    }
    shared = capture_keys(server="MySQL", namespace="database", default_port=3306, user_needs="x")
    assert isinstance(shared, ConfigDef) and set(KEYS.names()) <= set(shared.names())  # the shared keys hold them


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("signal.enabled.channels", "source,jmx", "Value must be a list of source, kafka, file; got jmx"),
        ("notification.enabled.channels", "log,jmx", "Value must be a list of sink, log; got jmx"),
        ("signal.data.collection", "inventory", "Value must be <schema>.<table>; got 'inventory'"),
        ("signal.data.collection", "a.b,c.d", "Value must name one table (the connector has one task"),
        ("signal.kafka.topic", "my signals", "Topic name 'my signals' is illegal"),
        ("notification.sink.topic.name", "..", 'Topic name cannot be "." or ".."'),
        ("signal.file", " ", "must name a file"),
        ("signal.poll.interval.ms", "0", "Value must be at least 1 (the kafka and file channels are read every"),
        ("incremental.snapshot.chunk.size", "0", "Value must be at least 1 (an incremental snapshot reads this many "
         "rows per chunk, and 0 would read none); got 0"),
        ("incremental.snapshot.watermarking.strategy", "insert_update",
         "Value must be one of insert_insert, insert_delete; got 'insert_update'"),
    ],
)  # fmt: skip
def test_a_bad_value_is_refused_naming_the_key_and_what_is_allowed(key: str, value: str, problem: str) -> None:
    with pytest.raises(ConfigError) as raised:
        KEYS.parse({key: value})
    assert list(raised.value.problems) == [key]
    assert problem in raised.value.problems[key]


def test_good_values_hold() -> None:
    values = KEYS.parse(
        {
            "signal.enabled.channels": "Source, kafka,FILE",
            "signal.data.collection": "inventory.debezium_signal",
            "incremental.snapshot.watermarking.strategy": "INSERT_DELETE",
            "notification.enabled.channels": "sink,log",
            "notification.sink.topic.name": "notifications",
        }
    )
    assert values["signal.data.collection"] == "inventory.debezium_signal"
    assert signal_key_problems(values) == {}


def test_a_sink_notification_channel_needs_its_topic() -> None:
    values = KEYS.parse({"notification.enabled.channels": "log,SINK"})
    assert signal_key_problems(values) == {
        "notification.sink.topic.name": "Notification topic name must be provided when the sink notification "
        "channel is enabled (notification.enabled.channels has sink): set notification.sink.topic.name"
    }
    assert signal_key_problems(KEYS.parse({"notification.enabled.channels": "log"})) == {}
    assert signal_key_problems(KEYS.parse({"signal.enabled.channels": "kafka"})) == {}  # the worker's cluster


def test_the_signal_consumer_settings_pass_through() -> None:
    props = {"signal.consumer.security.protocol": "SSL", "signal.kafka.topic": "t", "consumer.x": "y"}
    assert signal_consumer_config(props) == {"security.protocol": "SSL"}
