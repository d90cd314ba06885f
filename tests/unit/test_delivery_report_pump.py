"""The helper thread that serves a producer's delivery reports while its task is inside `poll()`."""

from __future__ import annotations

import threading

import pytest
from confluent_kafka import KafkaError, KafkaException

from connectworker.runtime.tasks.delivery_reports import DeliveryReportPump
from tests.integration.harness import wait_until


class FencedProducer:
    """A producer whose every poll raises what librdkafka raises once a newer instance fenced it."""

    def __init__(self) -> None:
        self.polls = 0

    def poll(self, timeout: float) -> int:
        self.polls += 1
        raise KafkaException(
            KafkaError(KafkaError._FENCED, "This instance has been fenced by a newer instance", fatal=True)
        )


def test_a_fenced_producer_ends_the_helper_quietly_and_leaves_the_error_to_the_task(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    unhandled: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", unhandled.append)
    producer = FencedProducer()
    pump = DeliveryReportPump(producer, "zombie-0").start()  # type: ignore[arg-type]
    with pump.task_polling():
        wait_until(lambda: producer.polls >= 1, 5, "the helper to serve reports while the task polls")
        pump._thread.join(5)
    assert not pump._thread.is_alive() and unhandled == []
    try:
        pump.serve_ready()  # the task thread, back from poll(), meets the error itself
    except KafkaException as exc:
        assert exc.args[0].code() == KafkaError._FENCED
    else:
        raise AssertionError("the task thread did not see the fatal error")
    pump.stop()
