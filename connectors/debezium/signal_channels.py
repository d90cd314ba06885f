"""The external signal channels of a CDC task together (`SignalChannels`): the file and Kafka channels that
`signal.enabled.channels` names, read at most every `signal.poll.interval.ms`, as Debezium's
`SignalProcessor` reads them. The `source` channel is not among them: its signals are rows of the signal
table, which arrive with the change stream.

The Kafka channel's place (the offset after the last signal record read) is part of the connector's offsets
under `signal_kafka_offset` (`position`), and is where it starts again (`kafka_start_offset`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from connectworker.api.errors import ConnectError

from .signal_file import FileSignalChannel
from .signal_kafka import KafkaSignalChannel
from .signal_keys import SIGNAL_CHANNELS, SIGNAL_FILE, SIGNAL_POLL_MS, SIGNAL_SERVERS, SIGNAL_TOPIC, enabled_channels
from .signal_lines import parse_signal_line
from .signal_types import Signal

__all__ = [
    "SIGNAL_KAFKA_OFFSET",
    "FileSignalChannel",
    "KafkaSignalChannel",
    "SignalChannels",
    "kafka_start_offset",
    "parse_signal_line",
]

SIGNAL_KAFKA_OFFSET = "signal_kafka_offset"  # the offset key of the Kafka channel's place


class SignalChannels:
    def __init__(
        self,
        channels: Sequence[FileSignalChannel | KafkaSignalChannel],
        *,
        poll_interval_ms: int = 5000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`channels` read in this order, every `poll_interval_ms` at most by `clock` (seconds)."""
        self.channels = tuple(channels)
        self._interval_s = poll_interval_ms / 1000
        self._clock = clock
        self._due: float | None = None  # when the channels are read next; None: at the first poll_due
        self._kafka = next((c for c in self.channels if isinstance(c, KafkaSignalChannel)), None)

    @classmethod
    def from_values(
        cls,
        values: Mapping[str, Any],
        *,
        topic_prefix: str,
        offset: Mapping[str, Any] | None = None,
        consumer_config: Mapping[str, str] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> SignalChannels:
        """The channels the typed values of signal_keys.py enable, the Kafka channel keyed `topic_prefix` and
        starting where the connector's stored `offset` says; `consumer_config`: signal_consumer_config(props).
        An empty signal.kafka.bootstrap.servers here (the worker gave no cluster) raises ConnectError."""
        channels: list[FileSignalChannel | KafkaSignalChannel] = []
        for name in enabled_channels(values.get(SIGNAL_CHANNELS)):
            if name == "file":
                channels.append(FileSignalChannel(values[SIGNAL_FILE]))
            elif name == "kafka":
                servers = (values.get(SIGNAL_SERVERS) or "").strip()
                if not servers:
                    raise ConnectError(
                        f"{SIGNAL_CHANNELS} has kafka but {SIGNAL_SERVERS} is empty and no worker cluster was given "
                        "in its place: set it to the signal topic's bootstrap servers"
                    )
                topic = (values.get(SIGNAL_TOPIC) or "").strip() or f"{topic_prefix}-signal"
                start = kafka_start_offset(offset)
                channels.append(KafkaSignalChannel(servers, topic, topic_prefix, start, consumer_config))
        return cls(channels, poll_interval_ms=values.get(SIGNAL_POLL_MS, 5000), clock=clock)

    def poll_due(self) -> list[Signal]:
        """The signals the channels hold, when signal.poll.interval.ms has passed since they were last read
        (at once the first time: signals written while the task was stopped); otherwise none."""
        now = self._clock()
        if self._due is not None and now < self._due:
            return []
        self._due = now + self._interval_s
        signals: list[Signal] = []
        for channel in self.channels:
            signals.extend(channel.poll())
        return signals

    @property
    def position(self) -> dict[str, Any]:
        """What to add to the connector's offset once every signal polled so far was acted on:
        `{"signal_kafka_offset": n}` once the Kafka channel has read a record (or started at a stored offset),
        else nothing."""
        if self._kafka is None or self._kafka.position is None:
            return {}
        return {SIGNAL_KAFKA_OFFSET: self._kafka.position}

    def close(self) -> None:
        for channel in self.channels:
            channel.close()


def kafka_start_offset(offset: Mapping[str, Any] | None) -> int | None:
    """Where the Kafka channel starts by the connector's stored `offset`: its `signal_kafka_offset`, or None
    (the topic's beginning) when it has none. A value that is no offset raises ConnectError naming it."""
    value = (offset or {}).get(SIGNAL_KAFKA_OFFSET)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConnectError(
            f"The connector's offset holds {SIGNAL_KAFKA_OFFSET}={value!r}, not an offset of the signal topic "
            "(a whole number, 0 or more): correct or remove it through the offsets API"
        )
    return value
