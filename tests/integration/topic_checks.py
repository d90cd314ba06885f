"""Reading a topic's shape back from the broker."""

from __future__ import annotations

from confluent_kafka import TopicCollection
from confluent_kafka.admin import AdminClient, ConfigResource, ResourceType


def partition_count(admin: AdminClient, topic: str) -> int:
    description = admin.describe_topics(TopicCollection([topic]))[topic].result(timeout=10)
    return len(description.partitions)


def topic_configs(admin: AdminClient, topic: str) -> dict[str, str]:
    """Configs set on the topic (Tansu reports only those; Apache Kafka also reports defaults)."""
    resource = ConfigResource(ResourceType.TOPIC, topic)
    entries = admin.describe_configs([resource])[resource].result(timeout=10)
    return {name: entry.value for name, entry in entries.items() if entry.value is not None}
