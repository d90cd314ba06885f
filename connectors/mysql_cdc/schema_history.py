"""The schema history topic (`schema.history.internal.kafka.topic`): the DDL the connector has seen, which a
restart replays to know each table's schema at its resumed binlog position. Debezium's rule for it: one
partition (the DDL must be read back in order), infinite retention and `cleanup.policy=delete` (compaction
or a finite retention drop DDL a restart needs), whatever the worker's default topic rule says.

The connector states it as a `RequiredTopic` (its `required_topics`): the worker creates it with these
settings before the first record and refuses to start the connector over an existing one that differs,
naming each setting (connectworker/runtime/topic_creation/required_topics.py); `plan` and `drift` show it.
"""

from __future__ import annotations

from connectworker.api.required_topics import RequiredTopic
from connectworker.api.topic_settings import TopicSettings

__all__ = ["HISTORY_CONFIGS", "HISTORY_SERVERS", "HISTORY_TOPIC", "history_topic"]

HISTORY_TOPIC = "schema.history.internal.kafka.topic"
HISTORY_SERVERS = "schema.history.internal.kafka.bootstrap.servers"
HISTORY_CONFIGS = {"cleanup.policy": "delete", "retention.ms": "-1", "retention.bytes": "-1"}


def history_topic(name: str, servers: str | None = None) -> RequiredTopic:
    """The schema history topic `name`, as the connector requires it, on the cluster at `servers` (the
    connector's own clients read and write it there; the worker refuses a cluster other than its own)."""
    return RequiredTopic(
        TopicSettings(name, partitions=1, configs=HISTORY_CONFIGS),
        f"It is the schema history ({HISTORY_TOPIC}), read back whole and in order on every start: more than "
        "one partition reorders its DDL, compaction or a finite retention drop DDL a restart needs",
        cluster=servers,
        cluster_key=HISTORY_SERVERS if servers is not None else None,
    )
