"""The schema history topic (`schema.history.internal.kafka.topic`): the DDL the connector has seen, which a
restart replays to know each table's schema at its resumed binlog position. Debezium's rule for it: one
partition (the DDL must be read back in order), infinite retention and `cleanup.policy=delete` (compaction
or a finite retention drop DDL a restart needs), whatever the worker's default topic rule says.

`ensure_history_topic` creates it with those settings before the first record, and refuses an existing one
that would lose history, naming the setting to change.
"""

from __future__ import annotations

from connectworker.api.errors import ConnectError
from connectworker.api.topic_settings import TopicSettings
from connectworker.topics.admin import Outcome, TopicAdmin
from connectworker.topics.drift import TopicState

HISTORY_TOPIC = "schema.history.internal.kafka.topic"
HISTORY_CONFIGS = {"cleanup.policy": "delete", "retention.ms": "-1", "retention.bytes": "-1"}


def history_topic_settings(name: str) -> TopicSettings:
    return TopicSettings(name, partitions=1, configs=HISTORY_CONFIGS)


def history_topic_problems(state: TopicState) -> list[str]:
    """What in an existing history topic loses history, each naming the setting (empty: it is right)."""
    problems = []
    if state.partitions != 1:
        problems.append(
            f"it has {state.partitions} partitions, and DDL read back from more than one comes out of order "
            "(partitions must be 1)"
        )
    policy = state.configs.get("cleanup.policy", "delete")
    if "compact" in policy:
        problems.append(f"cleanup.policy={policy} drops DDL statements compaction sees as superseded (must be delete)")
    retention = state.configs.get("retention.ms")
    if retention is not None and int(retention) >= 0:
        problems.append(f"retention.ms={retention} deletes DDL a restart needs (must be -1)")
    retention_bytes = state.configs.get("retention.bytes")
    if retention_bytes is not None and int(retention_bytes) >= 0:
        problems.append(f"retention.bytes={retention_bytes} deletes DDL a restart needs (must be -1)")
    return problems


def ensure_history_topic(admin: TopicAdmin, name: str) -> bool:
    """Creates the history topic right when it is missing (True), or checks the existing one (False);
    raises ConnectError naming each setting that would lose history."""
    state = admin.describe_states([name]).get(name)
    if state is None:
        result = admin.create([history_topic_settings(name)])[name]
        if result.outcome is Outcome.CREATED:
            return True
        if result.outcome is not Outcome.ALREADY_EXISTS:
            raise ConnectError(f"Could not create the schema history topic {name} ({HISTORY_TOPIC}): {result}")
        state = admin.describe_states([name]).get(name)
        if state is None:
            raise ConnectError(f"The schema history topic {name} ({HISTORY_TOPIC}) vanished while being created")
    problems = history_topic_problems(state)
    if problems:
        raise ConnectError(
            f"The schema history topic {name} ({HISTORY_TOPIC}) exists with settings that lose history: "
            f"{'; '.join(problems)}. Change them (kafka-configs / kafka-topics), or name a new topic."
        )
    return False
