"""The schema history topic (connectors/mysql_cdc/schema_history.py) through the worker's required-topic
seam, against the test broker: created with one partition, infinite retention and cleanup.policy=delete
when missing; an existing one that would lose history is refused naming the setting."""

from __future__ import annotations

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from connectworker.api.errors import ConnectError
from connectworker.connectors.mysql_cdc.schema_history import history_topic
from connectworker.runtime.topic_creation.required_topics import RequiredTopics
from connectworker.topics.admin import TopicAdmin
from tests.broker import Broker


def test_a_missing_history_topic_is_created_right(broker: Broker, unique: str) -> None:
    admin = TopicAdmin(broker.bootstrap_servers)
    try:
        name = f"schema-history-{unique}"
        RequiredTopics(admin, 30, broker.bootstrap_servers).ensure("mysql", [history_topic(name)])
        state = admin.describe_states([name])[name]
        assert state is not None and state.partitions == 1
        assert {k: state.configs.get(k) for k in ("cleanup.policy", "retention.ms", "retention.bytes")} == {
            "cleanup.policy": "delete",
            "retention.ms": "-1",
            "retention.bytes": "-1",
        }
        RequiredTopics(admin, 30, broker.bootstrap_servers).ensure(
            "mysql", [history_topic(name)]
        )  # a restart finds it right
    finally:
        admin.close()


@pytest.mark.parametrize(
    ("partitions", "configs", "named"),
    [
        (3, {"retention.ms": "-1", "retention.bytes": "-1"}, "3 partitions where it needs 1"),
        (
            1,
            {"cleanup.policy": "compact", "retention.ms": "-1", "retention.bytes": "-1"},
            "cleanup.policy=compact where it needs cleanup.policy=delete",
        ),
        (
            1,
            {"cleanup.policy": "delete", "retention.ms": "604800000", "retention.bytes": "-1"},
            "retention.ms=604800000 where it needs retention.ms=-1",
        ),
    ],
)
def test_an_existing_history_topic_that_loses_history_is_refused(
    broker: Broker, admin: AdminClient, unique: str, partitions: int, configs: dict[str, str], named: str
) -> None:
    name = f"schema-history-bad-{unique}"
    admin.create_topics([NewTopic(name, partitions, 1, config=configs)])[name].result(30)
    topics = TopicAdmin(broker.bootstrap_servers)
    try:
        with pytest.raises(ConnectError, match=f"Connector mysql cannot start: its topic {name} exists with") as no:
            RequiredTopics(topics, 30, broker.bootstrap_servers).ensure("mysql", [history_topic(name)])
    finally:
        topics.close()
    assert named in str(no.value)
    assert "It is the schema history (schema.history.internal.kafka.topic), read back whole" in str(no.value)
