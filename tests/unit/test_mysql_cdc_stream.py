"""The binlog stream's reads when the connection breaks (connectors/mysql_cdc/stream.py): the records of the
events handed on before the break are returned (the stream's position is already past them), and the break
is raised by the next read, as a RetriableError the worker retries within errors.retry.timeout."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from connectworker.api.errors import RetriableError
from connectworker.connectors.mysql_cdc.database import ServerInfo
from connectworker.connectors.mysql_cdc.schema_state import SchemaState
from connectworker.connectors.mysql_cdc.settings import parse_settings
from connectworker.connectors.mysql_cdc.source import Position
from connectworker.connectors.mysql_cdc.stream import BinlogStream
from tests.unit.mysql_cdc_props import MYSQL_PROPS

PROPS = MYSQL_PROPS


class BreakingReader:
    """Hands on `events`, then raises what a lost connection raises."""

    def __init__(self, events: list[Any]) -> None:
        self.events, self.closed = list(events), False

    def next(self, timeout: float) -> tuple[str, int, Any] | None:
        if self.events:
            return "binlog.000001", 100, self.events.pop(0)
        raise OSError("Connection reset by peer")

    def close(self) -> None:
        self.closed = True


def stream_with(reader: BreakingReader | TrickleReader, monkeypatch: pytest.MonkeyPatch) -> BinlogStream:
    stream = BinlogStream(
        parse_settings({**PROPS, "poll.interval.ms": "5000"}),
        ServerInfo("10.11", True, 1),
        {"server": "shop"},
        Position("binlog.000001", 4),
        SchemaState(),
        history=None,  # type: ignore[arg-type]  # not reached: no DDL here
    )
    stream._reader = reader  # type: ignore[assignment]  # started, as _ensure_started would
    monkeypatch.setattr(stream, "_ensure_started", lambda: None)

    def handle(file: str, pos: int, event: Any) -> None:
        stream._pending.records.append(({"pos": pos}, None, event, ("shop.db.t", None, None, ())))

    monkeypatch.setattr(stream, "_handle", handle)
    return stream


def test_the_records_before_a_lost_connection_are_returned_and_the_loss_raised_by_the_next_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    reader = BreakingReader(["one", "two"])
    stream = stream_with(reader, monkeypatch)
    first = stream.read(threading.Event())
    assert isinstance(first, list)
    assert [r.value for r in first] == ["one", "two"]  # not dropped with the failed read
    assert reader.closed
    with pytest.raises(RetriableError, match=r"The binlog stream of db\.example:3306 broke: Connection reset by peer"):
        stream.read(threading.Event())


def test_a_lost_connection_with_nothing_handed_on_is_raised_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = stream_with(BreakingReader([]), monkeypatch)
    with pytest.raises(RetriableError, match="reconnecting"):
        stream.read(threading.Event())


class TrickleReader:
    """Events at the virtual instants `at` (seconds): `next` returns the next one if it comes within `timeout`
    (advancing its clock to it), else None (its clock advanced by `timeout`)."""

    def __init__(self, at: list[float]) -> None:
        self.at, self.now, self.closed = list(at), 0.0, False

    def next(self, timeout: float) -> tuple[str, int, Any] | None:
        if self.at and self.at[0] <= self.now + timeout:
            self.now = max(self.now, self.at.pop(0))
            return "binlog.000001", 100, f"change at {self.now:.3f}"
        self.now += timeout
        return None

    def close(self) -> None:
        self.closed = True


def test_a_burst_of_events_is_handed_on_together_and_a_steady_trickle_as_it_comes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # five events at once (a transaction's), then one every 10 ms (a writer committing 100 a second): the burst is
    # one batch, and each change of the trickle is handed on as it comes, not held until max.batch.size
    # (2048) or poll.interval.ms (5 s) fills
    reader = TrickleReader([0.0] * 5 + [0.01 * n for n in range(1, 3000)])
    stream = stream_with(reader, monkeypatch)
    burst = stream.read(threading.Event())
    assert [r.value for r in burst] == ["change at 0.000"] * 5
    trickle = stream.read(threading.Event())
    assert [r.value for r in trickle] == ["change at 0.010"]
