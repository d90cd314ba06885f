"""The Kafka signal channel (`signal.enabled.channels=kafka`), as Debezium's `KafkaSignalChannel`: partition 0
of `signal.kafka.topic`, whose records keyed by the connector's `topic.prefix` carry one signal each as JSON
(signal_lines.py). A record with another key belongs to another connector: it is skipped (logged at INFO).

Unlike Debezium's (which relies on its consumer group's committed offsets since 3.0.5), the channel keeps no
consumer group: the partition is assigned, and where to read from is the connector's business — each signal
carries the offset after its record (`Signal.position`), the channel the offset after the last record it
read (`position`); the connector stores it in its offsets and hands it back as `start_offset` after a
restart, so a signal is acted on once, not again."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .signal_lines import parse_signal_line
from .signal_types import Signal

log = logging.getLogger(__name__)

CHANNEL = "kafka"
_BATCH = 100  # records taken per consume call
_BATCHES = 10  # consume calls per poll at most: a poll hands on at most 1,000 records
_MISSING = frozenset({"UNKNOWN_TOPIC_OR_PART", "_UNKNOWN_TOPIC", "_UNKNOWN_PARTITION"})  # KafkaError names


class KafkaSignalChannel:
    def __init__(
        self,
        bootstrap_servers: str,
        topic: str,
        key: str,
        start_offset: int | None,
        consumer_config: Mapping[str, str] | None = None,
    ) -> None:
        """Reads partition 0 of `topic` from `start_offset` (None: its beginning), the signals whose record
        key is `key` (the connector's topic.prefix). `consumer_config`: librdkafka settings over the defaults
        (Debezium's `signal.consumer.*`: security settings, for one). Nothing here waits for the cluster."""
        from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

        self.topic, self.key = topic, key
        self.position: int | None = start_offset
        """The offset after the last record read (any key): where a restart begins once every signal a poll
        returned was acted on. None until a record was read, when there was no `start_offset`."""
        self._consumer: Any = Consumer(
            {
                "bootstrap.servers": bootstrap_servers,
                "auto.offset.reset": "earliest",  # a stored offset the log no longer holds: its oldest record
                "topic.metadata.refresh.interval.ms": 5000,  # a topic created later is found within 5 s
                "logger": log,  # librdkafka's lines through logging, not straight to stderr
                **(consumer_config or {}),
                "group.id": f"connectworker-signal-{key}",  # librdkafka wants one; never joined (assign only)
                "enable.auto.commit": False,
            }
        )
        self._consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING if start_offset is None else start_offset)])
        where = "its beginning" if start_offset is None else f"offset {start_offset}"
        log.info(
            "Kafka signal channel is active: signals keyed '%s' from partition 0 of %s on %s, from %s",
            key,
            topic,
            bootstrap_servers,
            where,
        )

    def poll(self, timeout_s: float = 0) -> list[Signal]:
        """The signals among the records fetched by now (waiting up to `timeout_s` for the first), in offset
        order. A topic that does not exist yet, or a cluster out of reach, gives none: the consumer keeps
        looking for it in the background."""
        signals: list[Signal] = []
        for call in range(_BATCHES):
            messages = self._consumer.consume(_BATCH, timeout=timeout_s if call == 0 else 0)
            for message in messages:
                error = message.error()
                if error is not None:
                    level = logging.DEBUG if error.name() in _MISSING else logging.WARNING
                    log.log(level, "Kafka signal channel: reading partition 0 of %s: %s", self.topic, error.str())
                    continue
                signal = self._signal(message)
                self.position = message.offset() + 1
                if signal is not None:
                    signals.append(signal)
            if len(messages) < _BATCH:
                break
        return signals

    def close(self) -> None:
        self._consumer.close()

    def _signal(self, message: Any) -> Signal | None:
        raw_key, value = message.key(), message.value()
        key = raw_key.decode("utf-8", errors="replace") if raw_key is not None else None
        if key != self.key:
            log.info("Signal key '%s' doesn't match the connector's name '%s'", key, self.key)
            return None
        if not value:
            return None  # a tombstone or an empty value: no signal, as Debezium
        try:
            text = value.decode("utf-8")
        except UnicodeDecodeError as exc:
            log.warning(
                "Skipped the signal at offset %d of %s: it is not UTF-8 (%s)", message.offset(), self.topic, exc
            )
            return None
        signal = parse_signal_line(text, CHANNEL)
        if signal is None:
            return None
        return replace(signal, position=message.offset() + 1)
