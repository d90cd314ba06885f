"""The schema history topic (connectors/mysql_cdc/schema_history.py) against the test broker: created with
one partition, infinite retention and cleanup.policy=delete when missing; an existing one that would lose
history is refused naming the setting."""

from __future__ import annotations

import pytest
from confluent_kafka.admin import AdminClient, NewTopic

from connectworker.api.errors import ConnectError
from connectworker.connectors.mysql_cdc.schema_history import ensure_history_topic
from connectworker.topics.admin import TopicAdmin
from tests.broker import Broker


def test_a_missing_history_topic_is_created_right(broker: Broker, unique: str) -> None:
    admin = TopicAdmin(broker.bootstrap_servers)
    try:
        name = f"schema-history-{unique}"
        assert ensure_history_topic(admin, name) is True
        state = admin.describe_states([name])[name]
        assert state is not None and state.partitions == 1
        assert state.configs.get("cleanup.policy") == "delete"
        assert state.configs.get("retention.ms") == "-1"
        assert ensure_history_topic(admin, name) is False  # a restart finds it right
    finally:
        admin.close()


@pytest.mark.parametrize(
    ("partitions", "configs", "named"),
    [
        (3, {}, "it has 3 partitions"),
        (1, {"cleanup.policy": "compact"}, "cleanup.policy=compact"),
        (1, {"retention.ms": "604800000"}, "retention.ms=604800000 deletes DDL a restart needs (must be -1)"),
    ],
)
def test_an_existing_history_topic_that_loses_history_is_refused(
    broker: Broker, admin: AdminClient, unique: str, partitions: int, configs: dict[str, str], named: str
) -> None:
    name = f"schema-history-bad-{unique}"
    admin.create_topics([NewTopic(name, partitions, 1, config=configs)])[name].result(30)
    topics = TopicAdmin(broker.bootstrap_servers)
    try:
        with pytest.raises(ConnectError, match="exists with settings that lose history") as refused:
            ensure_history_topic(topics, name)
    finally:
        topics.close()
    assert named in str(refused.value)
