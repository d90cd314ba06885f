"""Topics a connector cannot work without, with settings it cannot work without either.

Debezium's schema history topic is the model: one partition (its records are replayed in order), kept
forever (`retention.ms=-1`), never compacted (`cleanup.policy=delete`): with any other setting a restarted
connector cannot rebuild its table schemas. Kafka Connect leaves such topics to the connector; here the
worker creates them before the connector's tasks start, with exactly these settings whatever the
topic-creation rules say, and refuses to start the connector when one exists with other settings.
"""

from __future__ import annotations

from dataclasses import dataclass

from connectworker.api.topic_settings import TopicSettings

__all__ = ["RequiredTopic"]


@dataclass(frozen=True)
class RequiredTopic:
    """`settings`: the topic's name, partition count and the configs it must have (its replication
    factor is used only to create it: -1, the broker's default, unless set). `why`: what breaks with
    other settings, said when an existing topic has them. `cluster`: the bootstrap servers the connector
    uses the topic on, when a setting of its own names them (Debezium's
    `schema.history.internal.kafka.bootstrap.servers`), and `cluster_key` that setting: the worker makes
    required topics ready on its own cluster only, so it refuses to start a connector that names another
    (rather than create the topic where the connector will never read it)."""

    settings: TopicSettings
    why: str
    cluster: str | None = None
    cluster_key: str | None = None

    @property
    def name(self) -> str:
        return self.settings.name
