"""librdkafka's lines go through Python logging (`connectworker.kafka`), once per interval, not to stderr."""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable

import pytest
from confluent_kafka import Producer

from connectworker.api.errors import ConfigError
from connectworker.embedded_broker import free_loopback_port
from connectworker.runtime.clients.admin_client import open_topic_admin
from connectworker.runtime.clients.cluster_check import check_cluster
from connectworker.runtime.observability.kafka_logging import (
    KAFKA_LOGGER,
    KafkaClientLog,
    RepeatFilter,
    client_log_settings,
    normalised,
)

REFUSED = "Connect to ipv4#127.0.0.1:{port} failed: Connection refused"


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def kafka_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == KAFKA_LOGGER]


def wait_for(condition: Callable[[], object], timeout: float = 10.0, poll: Callable[[], object] | None = None) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if poll is not None:
            poll()
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_a_repeated_line_is_logged_once_per_interval_then_with_its_repeat_count(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    repeats = RepeatFilter(logging.getLogger(KAFKA_LOGGER), 30.0, clock=clock, summary_timer=False)
    relay = KafkaClientLog("Task t-0 producer", repeats)
    line = (
        "[thrd:127.0.0.1:1/bootstrap]: 127.0.0.1:1/bootstrap: Connect to ipv4#127.0.0.1:1 failed: "
        "Connection refused (after {ms}ms in state CONNECT)"
    )
    caplog.set_level(logging.INFO, KAFKA_LOGGER)

    for i in range(200):  # how confluent-kafka calls it: logger.log(level, fmt, facility, name, line)
        relay.log(logging.ERROR, "%s [%s] %s", "FAIL", "rdkafka#producer-1", line.format(ms=i % 3))
        clock.now += 0.1
    assert kafka_lines(caplog) == [
        "Task t-0 producer: FAIL 127.0.0.1:1/bootstrap: Connect to ipv4#127.0.0.1:1 failed: Connection refused "
        "(after 0ms in state CONNECT)"
    ]

    clock.now += 15  # the interval is over: the next occurrence is logged, with the count it stood for
    relay.log(logging.ERROR, "%s [%s] %s", "FAIL", "rdkafka#producer-2", line.format(ms=0))
    assert len(kafka_lines(caplog)) == 2
    assert kafka_lines(caplog)[1].endswith("(repeated 199 times in the last 35 s)")

    # another client losing the same broker is the same news: counted, and the summary says by whom
    KafkaClientLog("admin", repeats).log(logging.ERROR, "%s [%s] %s", "FAIL", "rdkafka#producer-3", line.format(ms=1))
    clock.now += 30
    repeats.flush_summaries()
    assert kafka_lines(caplog)[2:] == [
        "admin: FAIL 127.0.0.1:1/bootstrap: Connect to ipv4#127.0.0.1:1 failed: Connection refused "
        "(after 1ms in state CONNECT) (repeated once in the last 30 s, by 2 clients)"
    ]


def test_a_burst_that_stops_still_gets_its_summary_and_other_lines_are_not_suppressed(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    repeats = RepeatFilter(logging.getLogger(KAFKA_LOGGER), 30.0, clock=clock, summary_timer=False)
    caplog.set_level(logging.INFO, KAFKA_LOGGER)
    for _ in range(5):
        repeats.emit(logging.WARNING, "admin: REQTMOUT 3 requests timed out")
    repeats.emit(logging.WARNING, "admin: FAIL a different line")
    repeats.flush_summaries()
    assert kafka_lines(caplog) == ["admin: REQTMOUT 3 requests timed out", "admin: FAIL a different line"]
    clock.now += 30
    repeats.flush_summaries()
    assert kafka_lines(caplog)[2:] == ["admin: REQTMOUT 3 requests timed out (repeated 4 times in the last 30 s)"]


def test_normalising_keeps_addresses_and_broker_ids_but_not_timings() -> None:
    one = normalised("127.0.0.1:9092/1: Disconnected (after 12ms in state UP, 3 identical error(s) suppressed)")
    two = normalised("127.0.0.1:9092/1: Disconnected (after 950ms in state UP, 1 identical error(s) suppressed)")
    other_broker = normalised(
        "127.0.0.1:9093/2: Disconnected (after 12ms in state UP, 3 identical error(s) suppressed)"
    )
    assert one == two != other_broker
    assert "127.0.0.1:9092/1" in one


def test_a_level_the_logger_does_not_enable_is_dropped(caplog: pytest.LogCaptureFixture) -> None:
    repeats = RepeatFilter(logging.getLogger(KAFKA_LOGGER), 30.0, summary_timer=False)
    caplog.set_level(logging.ERROR, KAFKA_LOGGER)  # what --log-level ERROR or /admin/loggers do
    repeats.emit(logging.WARNING, "admin: REQTMOUT requests timed out")
    repeats.emit(logging.ERROR, "admin: FAIL connection refused")
    assert kafka_lines(caplog) == ["admin: FAIL connection refused"]


def test_a_producer_against_a_closed_port_logs_one_line_through_python_logging_and_nothing_to_stderr(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    port = free_loopback_port()  # nothing listens there: every connection attempt is refused
    caplog.set_level(logging.INFO, KAFKA_LOGGER)
    producer = Producer({"bootstrap.servers": f"127.0.0.1:{port}", **client_log_settings("Task p-0 producer")})
    producer.produce("t", b"v")
    # librdkafka retries about every 50-100 ms; poll() is what hands the lines to Python
    assert wait_for(lambda: kafka_lines(caplog), poll=lambda: producer.poll(0.1))
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:
        producer.poll(0.1)
    producer.purge()
    lines = [line for line in kafka_lines(caplog) if REFUSED.format(port=port) in line]
    assert len(lines) == 1 and lines[0].startswith("Task p-0 producer: FAIL ")
    assert "%3|" not in capfd.readouterr().err


def test_topic_admin_lines_are_served_without_anyone_polling_and_its_thread_ends_with_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    port = free_loopback_port()
    caplog.set_level(logging.INFO, KAFKA_LOGGER)
    before = set(threading.enumerate())  # admins of earlier tests may still be collected later
    admin = open_topic_admin(f"127.0.0.1:{port}", request_timeout_s=1.0)
    assert admin.cluster_id() is None  # unreachable: the request timed out
    assert wait_for(lambda: any(REFUSED.format(port=port) in line for line in kafka_lines(caplog)), timeout=5)
    threads = [t for t in threading.enumerate() if t.name == "kafka-log-admin" and t not in before]
    assert threads
    del admin
    gc.collect()
    assert wait_for(lambda: not any(t.is_alive() for t in threads), timeout=5)


def test_the_start_up_check_names_the_admin_prefix_for_a_setting_the_kafka_client_refuses() -> None:
    with pytest.raises(ConfigError) as raised:
        check_cluster("127.0.0.1:1", {"no.such.setting": "x"}, 1000)
    assert "admin.*" in str(raised.value) and "no.such.setting" in str(raised.value)
