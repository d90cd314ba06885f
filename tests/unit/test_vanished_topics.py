"""Which failed records a task re-sends while a topic it writes to is deleted and created again."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError, Message

from connectworker.runtime.tasks.vanished_topics import TaskFailure, VanishedTopics


def _vanished(*, recreates: bool = True, timeout_s: float = 30.0) -> VanishedTopics:
    return VanishedTopics("conn", recreates=recreates, timeout_s=timeout_s)


def _msg(partition: int = 1) -> Message:
    return Message(topic="orders", partition=partition, value=b"v")


@pytest.mark.parametrize("code", [KafkaError.UNKNOWN_TOPIC_OR_PART, KafkaError._UNKNOWN_TOPIC])
def test_a_record_whose_topic_is_gone_is_queued_to_be_sent_again(code: int) -> None:
    vanished = _vanished()
    assert vanished.retry_later(None, KafkaError(code), _msg(), pinned=False)
    (_, msg, topic_unknown, pinned) = vanished.resend.popleft()
    assert (msg.topic(), topic_unknown, pinned) == ("orders", True, False)


def test_a_partition_the_producer_chose_vanishing_means_the_topic_was_deleted() -> None:
    """librdkafka fails records it had already placed with "unknown partition" when their topic is
    deleted (seen on a real broker beside "unknown topic" for the unplaced ones)."""
    vanished = _vanished()
    assert vanished.retry_later(None, KafkaError(KafkaError._UNKNOWN_PARTITION), _msg(2), pinned=False)
    (_, msg, topic_unknown, pinned) = vanished.resend.popleft()
    assert (msg.partition(), topic_unknown, pinned) == (2, True, False)


def test_a_partition_the_task_pinned_and_the_topic_lacks_is_not_retried() -> None:
    vanished = _vanished()
    assert not vanished.retry_later(None, KafkaError(KafkaError._UNKNOWN_PARTITION), _msg(7), pinned=True)
    assert not vanished.resend


def test_a_pinned_record_of_a_topic_being_created_again_keeps_its_partition_on_the_way_back() -> None:
    vanished = _vanished()
    assert vanished.retry_later(None, KafkaError(KafkaError._UNKNOWN_TOPIC), _msg(0), pinned=False)
    vanished.resend.clear()
    # while the topic is recovering, any failure of it is retried, a pinned record's too
    assert vanished.retry_later(None, KafkaError(KafkaError._UNKNOWN_PARTITION), _msg(2), pinned=True)
    (_, msg, topic_unknown, pinned) = vanished.resend.popleft()
    assert (msg.partition(), topic_unknown, pinned) == (2, False, True)


def test_other_failures_of_a_topic_that_never_vanished_are_not_retried_and_start_no_deadline() -> None:
    vanished = _vanished()
    too_large = KafkaError(KafkaError.MSG_SIZE_TOO_LARGE)
    assert not vanished.retry_later(None, too_large, _msg(), pinned=False)
    assert not vanished.retry_later(None, too_large, _msg(), pinned=False)
    assert not vanished.resend


def test_nothing_is_retried_when_topic_creation_is_off_and_the_task_is_told_why() -> None:
    vanished = _vanished(recreates=False)
    assert not vanished.retry_later(None, KafkaError(KafkaError._UNKNOWN_TOPIC), _msg(), pinned=False)
    with pytest.raises(TaskFailure, match="no longer exists and topic creation is off for connector conn"):
        vanished.check("orders")


def test_after_the_deadline_the_topic_is_no_longer_waited_for() -> None:
    vanished = _vanished(timeout_s=0.0)
    assert not vanished.retry_later(None, KafkaError(KafkaError._UNKNOWN_TOPIC), _msg(), pinned=False)
    with pytest.raises(TaskFailure, match=r"still not usable after topic\.creation\.timeout\.ms"):
        vanished.check("orders")
