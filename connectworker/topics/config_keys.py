"""Names of a source connector's `topic.creation.*` keys, and the topic configs Apache Kafka knows.

Only names live here, so that the rules (`rules.py`), the REST validate endpoint and the docs spell
every key the same way.
"""

from __future__ import annotations

TOPIC_CREATION_PREFIX = "topic.creation."
"""Every per-group key starts with this; the group (or rule) name follows, then a dot."""

GROUPS_KEY = "topic.creation.groups"
"""Kafka's shipped spelling: the ordered list of group names."""

KIP_RULES_KEY = "topic.creation"
"""The KIP-158 draft's spelling: the ordered list of rule names, each rule taking a single `.regex`."""

WORKER_ENABLE_KEY = "topic.creation.enable"
"""A *worker* key. In a connector config it is ignored (it does not name a group called "enable")."""

EXTRA_CONFIGS_KEY = "topic.creation.extra.configs"
"""A *worker* key: topic configs the cluster accepts beyond `KNOWN_TOPIC_CONFIGS` (a broker plugin's, a
vendor's), which connectors' rules may then set. In a connector config it is ignored, like the above."""

WORKER_KEYS = frozenset({WORKER_ENABLE_KEY, EXTRA_CONFIGS_KEY})

DEFAULT_GROUP = "default"
"""The group that catches every topic no listed group matched. Always tried last."""

INCLUDE = "include"
EXCLUDE = "exclude"
REGEX = "regex"
REPLICATION_FACTOR = "replication.factor"
PARTITIONS = "partitions"

RULE_SETTINGS = frozenset({INCLUDE, EXCLUDE, REGEX, REPLICATION_FACTOR, PARTITIONS})
"""Per-group suffixes that are settings of the rule itself; any other suffix is a topic config."""

KIP_DEFAULT_REPLICATION_FACTOR = 3
KIP_DEFAULT_PARTITIONS = 1
"""The KIP draft's values for a rule that omits them when no `topic.creation.default.*` group exists."""

SHORT_MAX = 2**15 - 1
INT_MAX = 2**31 - 1

TOPIC_CREATION_CONFIG_GROUP = "Topic Creation"
"""The `ConfigKey.group` of every `topic.creation.*` key, as in Kafka's `SourceConnectorConfig`."""


def group_key(group: str, suffix: str) -> str:
    """The full key of one group's setting: ``group_key("a", "partitions")`` is
    ``topic.creation.a.partitions``."""
    return f"{TOPIC_CREATION_PREFIX}{group}.{suffix}"


KNOWN_TOPIC_CONFIGS = frozenset(
    {
        "cleanup.policy",
        "compression.gzip.level",
        "compression.lz4.level",
        "compression.type",
        "compression.zstd.level",
        "delete.retention.ms",
        "file.delete.delay.ms",
        "flush.messages",
        "flush.ms",
        "follower.replication.throttled.replicas",
        "index.interval.bytes",
        "leader.replication.throttled.replicas",
        "local.retention.bytes",
        "local.retention.ms",
        "max.compaction.lag.ms",
        "max.message.bytes",
        "message.downconversion.enable",
        "message.format.version",
        "message.timestamp.after.max.ms",
        "message.timestamp.before.max.ms",
        "message.timestamp.difference.max.ms",
        "message.timestamp.type",
        "min.cleanable.dirty.ratio",
        "min.compaction.lag.ms",
        "min.insync.replicas",
        "preallocate",
        "remote.log.copy.disable",
        "remote.log.delete.on.disable",
        "remote.storage.enable",
        "retention.bytes",
        "retention.ms",
        "segment.bytes",
        "segment.index.bytes",
        "segment.jitter.ms",
        "segment.ms",
        "unclean.leader.election.enable",
    }
)
"""Topic-level configs of Apache Kafka 3.x/4.x (`TopicConfig`), including a few that 4.0 removed.

A rule that sets any other name is refused (a broker would refuse the topic's creation, INVALID_CONFIG),
except names starting with `VENDOR_TOPIC_CONFIG_PREFIXES` and those the worker's `EXTRA_CONFIGS_KEY`
lists (a broker plugin's configs).
"""

VENDOR_TOPIC_CONFIG_PREFIXES = ("confluent.",)
"""Prefixes of vendor topic configs that are always allowed."""


def is_known_topic_config(name: str) -> bool:
    return name in KNOWN_TOPIC_CONFIGS or name.startswith(VENDOR_TOPIC_CONFIG_PREFIXES)
