"""The MySQL CDC task's bound on a lost server: a read failing with a RetriableError is retried (raised on,
for the worker to poll again) until the failures have lasted errors.retry.timeout; then the task fails
with a ConnectError naming the server's host and port. Unset (or -1): retried forever."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

import pytest

from connectworker.api.errors import ConnectError, RetriableError
from connectworker.connectors.mysql_cdc.settings import parse_settings
from connectworker.connectors.mysql_cdc.task import MySqlCdcTask

PROPS = {
    "database.hostname": "db.example",
    "database.port": "3307",
    "database.user": "cdc",
    "database.server.id": "5400",
    "topic.prefix": "shop",
    "schema.history.internal.kafka.bootstrap.servers": "kafka:9092",
    "schema.history.internal.kafka.topic": "history.shop",
}


class FlakyStream:
    """A stream whose reads fail while `down`."""

    def __init__(self) -> None:
        self.down = True

    def read(self, stopping: threading.Event) -> list[Any]:
        if self.down:
            raise RetriableError("Cannot stream the binlog of db.example:3307: Connection refused")
        return []


def _task(clock: list[float], monkeypatch: pytest.MonkeyPatch, **props: str) -> tuple[MySqlCdcTask, FlakyStream]:
    from connectworker.connectors.mysql_cdc import task as task_module

    monkeypatch.setattr(task_module, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    task, stream = MySqlCdcTask(), FlakyStream()
    task._settings = parse_settings({**PROPS, **props})
    task._stream = stream  # type: ignore[assignment]
    return task, stream


def test_failures_are_retried_within_the_timeout_and_fail_the_task_past_it(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [100.0]
    task, stream = _task(clock, monkeypatch, **{"errors.retry.timeout": "5000"})
    with pytest.raises(RetriableError):
        task.poll()
    clock[0] += 4.9
    with pytest.raises(RetriableError):
        task.poll()
    stream.down = False  # back within the timeout: the count starts again at the next outage
    assert task.poll() is None
    stream.down = True
    clock[0] += 10
    with pytest.raises(RetriableError):
        task.poll()
    clock[0] += 5
    with pytest.raises(ConnectError) as failed:
        task.poll()
    assert not isinstance(failed.value, RetriableError)
    message = str(failed.value)
    assert "db.example:3307 was unreachable for longer than errors.retry.timeout=5000 ms" in message
    assert "Connection refused" in message


@pytest.mark.parametrize("props", [{}, {"errors.retry.timeout": "-1"}])
def test_unset_or_minus_one_retries_forever(monkeypatch: pytest.MonkeyPatch, props: dict[str, str]) -> None:
    clock = [0.0]
    task, _ = _task(clock, monkeypatch, **props)
    for _ in range(3):
        with pytest.raises(RetriableError):
            task.poll()
        clock[0] += 3600
