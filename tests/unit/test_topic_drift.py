"""Comparing an existing topic with what its rule wants: each difference, and how it can be fixed."""

from __future__ import annotations

import pytest

from connectworker.api import TopicSettings
from connectworker.topics.drift import Difference, TopicState, compare

STATE = TopicState("orders", 3, 1, {"cleanup.policy": "delete", "retention.ms": "1000"})


def test_what_the_rule_wants_and_the_topic_has_is_in_sync() -> None:
    drift = compare(STATE, TopicSettings("orders", 3, 1, {"cleanup.policy": "delete"}), "default")
    assert drift.in_sync and drift.differences == [] and drift.rule == "default"


def test_the_brokers_default_is_not_compared_nor_a_config_the_rule_does_not_set() -> None:
    assert compare(STATE, TopicSettings("orders", -1, -1), "default").in_sync


def test_more_partitions_and_configs_are_fixable_in_place_the_rest_needs_re_creation() -> None:
    drift = compare(
        STATE, TopicSettings("orders", 6, 3, {"cleanup.policy": "compact", "min.insync.replicas": "2"}), "eu"
    )
    assert drift.differences == [
        Difference("partitions", "3", "6", fixable=True),
        Difference("replication.factor", "1", "3", fixable=False),
        Difference("cleanup.policy", "delete", "compact", fixable=True),
        Difference("min.insync.replicas", None, "2", fixable=True),
    ]
    assert [str(d) for d in drift.differences] == [
        "partitions 3 → rule wants 6 (fixable in place: partitions are added)",
        "replication.factor 1 → rule wants 3 (only by re-creating the topic)",
        "cleanup.policy delete → rule wants compact (fixable in place: the config is set; DELETES DATA the topic "
        "holds now)",
        "min.insync.replicas (broker default) → rule wants 2 (fixable in place: the config is set)",
    ]
    assert [d.what for d in drift.fixable] == ["partitions", "cleanup.policy", "min.insync.replicas"]


def test_fewer_partitions_can_only_be_had_by_re_creating_the_topic() -> None:
    drift = compare(STATE, TopicSettings("orders", 2, 1), "default")
    assert drift.differences == [Difference("partitions", "3", "2", fixable=False)]
    assert drift.to_json()["in_sync"] is False


def test_a_cleanup_policy_list_in_another_order_is_the_same() -> None:
    state = TopicState("t", 1, 1, {"cleanup.policy": "delete,compact"})
    assert compare(state, TopicSettings("t", 1, 1, {"cleanup.policy": "compact,delete"}), "default").in_sync


@pytest.mark.parametrize(
    ("what", "actual", "wanted", "deletes"),
    [
        ("retention.ms", "604800000", "3600000", True),  # shorter: records older than an hour go
        ("retention.ms", "3600000", "604800000", False),
        ("retention.ms", "-1", "604800000", True),  # infinite to finite
        ("retention.ms", "604800000", "-1", False),
        ("retention.ms", None, "3600000", True),  # the broker's default may be longer
        ("retention.bytes", "1073741824", "1048576", True),
        ("cleanup.policy", "compact", "delete", True),
        ("cleanup.policy", "delete", "compact", True),  # compaction removes superseded values
        ("cleanup.policy", "compact,delete", "compact", False),
        ("segment.ms", "604800000", "3600000", False),
    ],
)
def test_a_change_that_deletes_records_the_topic_holds_is_marked(
    what: str, actual: str | None, wanted: str, deletes: bool
) -> None:
    difference = Difference(what, actual, wanted, fixable=True)
    assert difference.deletes_data is deletes
    assert ("DELETES DATA" in str(difference)) is deletes
    assert difference.to_json()["deletes_data"] is deletes
