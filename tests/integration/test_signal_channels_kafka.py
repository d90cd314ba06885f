"""The Kafka signal channel (connectors/debezium/signal_kafka.py) against the test broker: signals read from
partition 0 of the signal topic only, records keyed by another connector skipped (their offsets passed all
the same), a restart from the stored position acting on no signal twice, and a topic that does not exist
yet (or a cluster out of reach) giving no signal and no error."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from connectworker.connectors.debezium.signal_channels import KafkaSignalChannel, SignalChannels
from connectworker.connectors.debezium.signal_keys import signal_keys
from connectworker.connectors.debezium.signal_types import Signal
from tests.broker import Broker
from tests.kafka_helpers import delete_topics, existing_topics

PREFIX = "shop"


def signal(signal_id: str) -> str:
    return f'{{"id":"{signal_id}","type":"log","data":{{"message":"{signal_id}"}}}}'


def created(admin: AdminClient, topic: str, partitions: int = 1) -> str:
    for future in admin.create_topics([NewTopic(topic, partitions, 1)], operation_timeout=10).values():
        future.result()
    return topic


def produce(broker: Broker, topic: str, *records: tuple[str | None, str | None], partition: int = 0) -> None:
    """`records` (key, value), one at a time, each acknowledged before the next."""
    producer = Producer({"bootstrap.servers": broker.bootstrap_servers, "linger.ms": 0})
    for key, value in records:
        producer.produce(topic, value=value, key=key, partition=partition)
        assert producer.flush(30) == 0


def polled_until(poll: Callable[[], list[Signal]], done: Callable[[list[Signal]], bool]) -> list[Signal]:
    """Everything `poll` gave until `done` says it is enough (at most 60 s: a fetch may take a while)."""
    signals: list[Signal] = []
    deadline = time.monotonic() + 60
    while not done(signals):
        assert time.monotonic() < deadline, f"only these signals came: {signals}"
        signals.extend(poll())
    return signals


@pytest.fixture
def topics(admin: AdminClient) -> Iterator[list[str]]:
    names: list[str] = []
    yield names
    delete_topics(admin, names)


def test_signals_come_from_partition_0_keyed_by_the_connector_and_every_record_moves_the_position(
    broker: Broker, admin: AdminClient, unique: str, topics: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    topic = created(admin, f"signals-{unique}", partitions=2)
    topics.append(topic)
    produce(broker, topic, (PREFIX, signal("on-partition-1")), partition=1)
    produce(
        broker,
        topic,
        (PREFIX, signal("first")),  # offset 0
        ("another-connector", signal("theirs")),  # 1
        (PREFIX, None),  # 2: no value
        (PREFIX, "{not json"),  # 3
        (PREFIX, signal("second")),  # 4
        ("another-connector", signal("theirs-too")),  # 5
    )
    channel = KafkaSignalChannel(broker.bootstrap_servers, topic, PREFIX, None)
    try:
        with caplog.at_level(logging.INFO):
            signals = polled_until(lambda: channel.poll(0.5), lambda _: channel.position == 6)
    finally:
        channel.close()
    assert signals == [
        Signal("first", "log", '{"message":"first"}', "kafka", 1),
        Signal("second", "log", '{"message":"second"}', "kafka", 5),
    ]
    logged = [r.getMessage() for r in caplog.records]
    assert logged.count("Signal key 'another-connector' doesn't match the connector's name 'shop'") == 2
    assert any(m.startswith("Skipped a signal on the kafka channel: it is not JSON") for m in logged)


def test_a_restart_from_the_stored_position_acts_on_no_signal_twice(
    broker: Broker, admin: AdminClient, unique: str, topics: list[str]
) -> None:
    prefix = f"shop-{unique}"
    topic = created(admin, f"{prefix}-signal")  # the default: <topic.prefix>-signal
    topics.append(topic)
    values = signal_keys("schema").parse(
        {"signal.enabled.channels": "kafka", "signal.kafka.bootstrap.servers": broker.bootstrap_servers}
    )
    clock = iter(range(0, 10**9, 5))  # seconds: every poll is due (the interval is 5 s)

    def channels(offset: dict[str, int] | None) -> SignalChannels:
        return SignalChannels.from_values(values, topic_prefix=prefix, offset=offset, clock=lambda: next(clock))

    produce(broker, topic, (prefix, signal("one")), (prefix, signal("two")))
    first = channels(None)
    try:
        acted = polled_until(first.poll_due, lambda got: len(got) == 2)
        stored = first.position
    finally:
        first.close()
    assert [(s.id, s.position) for s in acted] == [("one", 1), ("two", 2)]
    assert stored == {"signal_kafka_offset": 2}

    produce(broker, topic, ("another-connector", signal("theirs")), (prefix, signal("three")))
    second = channels({"lsn": 100, **stored})  # the connector's offset, as stored
    try:
        assert second.position == stored  # where it starts, before anything is read
        again = polled_until(second.poll_due, lambda got: len(got) == 1)
        assert [(s.id, s.position) for s in again] == [("three", 4)]
        assert second.position == {"signal_kafka_offset": 4}
    finally:
        second.close()


def test_a_signal_topic_that_does_not_exist_yet_is_no_error_and_is_read_once_it_does(
    broker: Broker, admin: AdminClient, unique: str, topics: list[str]
) -> None:
    topic = f"signals-later-{unique}"
    topics.append(topic)
    channel = KafkaSignalChannel(broker.bootstrap_servers, topic, PREFIX, None)
    try:
        assert channel.poll(0.5) == [] and channel.poll(0.5) == []
        assert channel.position is None
        assert topic not in existing_topics(admin)  # reading did not create it
        created(admin, topic)
        produce(broker, topic, (PREFIX, signal("late")))
        signals = polled_until(lambda: channel.poll(0.5), lambda got: len(got) == 1)
    finally:
        channel.close()
    assert [(s.id, s.position) for s in signals] == [("late", 1)]


def test_a_cluster_out_of_reach_gives_no_signal_and_no_error(unique: str) -> None:
    channel = KafkaSignalChannel("127.0.0.1:1", f"signals-{unique}", PREFIX, 7)
    try:
        assert channel.poll(0.5) == [] and channel.poll() == []
        assert channel.position == 7  # the stored place is kept
    finally:
        channel.close()
