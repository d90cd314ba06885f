"""A task's producer losing the cluster shows as a status note and one WARN per interval, and its
return as one INFO line; driven with the real `KafkaError`s librdkafka reports."""

from __future__ import annotations

import logging
import time

import pytest
from confluent_kafka import KafkaError, Producer

from connectworker.embedded_broker import free_loopback_port
from connectworker.runtime.clients.connectivity import ConnectivityMonitor
from connectworker.runtime.observability.kafka_logging import KAFKA_LOGGER, client_log_settings

MONITOR_LOGGER = "connectworker.runtime.clients.connectivity"
REFUSED = KafkaError(
    KafkaError._TRANSPORT,
    "127.0.0.1:9092/bootstrap: Connect to ipv4#127.0.0.1:9092 failed: Connection refused (after 0ms in state CONNECT)",
)
ALL_DOWN = KafkaError(KafkaError._ALL_BROKERS_DOWN, "1/1 brokers are down")


class FakeClock:
    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


def monitor_lines(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == MONITOR_LOGGER and r.levelno == level]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def monitor(clock: FakeClock) -> ConnectivityMonitor:
    return ConnectivityMonitor("gen-0", "127.0.0.1:9092", interval_s=30.0, clock=clock)


def test_all_brokers_down_sets_a_note_naming_the_servers_and_the_cause_with_one_warning(
    monitor: ConnectivityMonitor, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    monitor.error_cb(REFUSED)
    monitor.error_cb(ALL_DOWN)
    for _ in range(100):  # librdkafka keeps reporting each failed reconnect
        clock.now += 0.1
        monitor.error_cb(REFUSED)

    note = monitor.note
    assert note is not None and note.startswith("Kafka cluster unreachable since ")
    assert "(bootstrap.servers=127.0.0.1:9092)" in note and "1/1 brokers are down" in note
    assert "Connect to ipv4#127.0.0.1:9092 failed: Connection refused" in note
    assert "after 0ms" not in note and "records stay buffered" in note
    assert monitor_lines(caplog, logging.WARNING) == [f"Task gen-0: {note}"]

    clock.now += 30  # the next interval: the outage goes on, one more line says so
    monitor.error_cb(REFUSED)
    monitor.error_cb(REFUSED)
    assert len(monitor_lines(caplog, logging.WARNING)) == 2


def test_healthy_clears_the_note_once_with_one_info_line_and_a_new_outage_warns_at_once(
    monitor: ConnectivityMonitor, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    monitor.error_cb(ALL_DOWN)
    clock.now += 31
    monitor.healthy()
    monitor.healthy()
    assert monitor.note is None and not monitor.unreachable
    assert monitor_lines(caplog, logging.INFO) == [
        "Task gen-0: Kafka cluster reachable again after 31 s (bootstrap.servers=127.0.0.1:9092)"
    ]

    clock.now += 1  # within the interval of the first warning, but it is a new outage
    monitor.error_cb(ALL_DOWN)
    assert monitor.note is not None and len(monitor_lines(caplog, logging.WARNING)) == 2


def test_a_failing_connection_alone_is_no_outage_and_an_old_one_does_not_explain_a_later_outage(
    monitor: ConnectivityMonitor, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    monitor.error_cb(REFUSED)  # one broker of several, or an idle connection the broker closed
    monitor.error_cb(KafkaError(KafkaError._TIMED_OUT, "1 request(s) timed out: disconnect"))
    assert monitor.note is None and monitor_lines(caplog, logging.WARNING) == []

    clock.now += 600
    monitor.error_cb(ALL_DOWN)
    assert monitor.note is not None and "timed out" not in monitor.note


def test_authentication_failure_is_an_outage(monitor: ConnectivityMonitor) -> None:
    monitor.error_cb(KafkaError(KafkaError._AUTHENTICATION, "SASL authentication error: Authentication failed"))
    assert monitor.note is not None and "SASL authentication error" in monitor.note


def test_other_errors_are_logged_by_the_kafka_logger_since_librdkafka_no_longer_does(
    monitor: ConnectivityMonitor, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    monitor.error_cb(KafkaError(KafkaError._FATAL, "Producer fenced by a newer instance", fatal=True))
    lines = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == KAFKA_LOGGER]
    assert (logging.ERROR, "Task gen-0 producer: Producer fenced by a newer instance (_FATAL)") in lines
    assert monitor.note is None


def test_a_real_producer_against_a_closed_port_reports_the_outage_through_its_error_cb() -> None:
    port = free_loopback_port()
    monitor = ConnectivityMonitor("p-0", f"127.0.0.1:{port}")
    producer = Producer(
        {
            "bootstrap.servers": f"127.0.0.1:{port}",
            "error_cb": monitor.error_cb,
            **client_log_settings("Task p-0 producer"),
        }
    )
    producer.produce("t", b"v")
    deadline = time.monotonic() + 10
    while "Connection refused" not in (monitor.note or "") and time.monotonic() < deadline:
        producer.poll(0.1)  # error_cb runs inside poll(); "all brokers down" may come before the cause
    producer.purge()
    assert monitor.note is not None and f"bootstrap.servers=127.0.0.1:{port}" in monitor.note
    assert "Connection refused" in monitor.note
