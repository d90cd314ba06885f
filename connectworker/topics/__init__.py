"""Topic creation: a source connector's `topic.creation.*` rules, the decision for one topic, the Admin
client, and the dry run (plan). What happens while tasks run (the gates that make a task's topics
ready, the creation service) is `connectworker.runtime.topic_creation`.

This package depends on `connectworker.api` only (and confluent-kafka, pydantic): what it needs from
the runtime (the client log settings, a started task's `settings_for_new_topic`) is passed in.

Modules:

- `config_keys`: the names of the `topic.creation.*` keys and the topic configs Kafka knows
- `names`: Kafka's rules for topic names
- `rules`: the rule model and matching (which rule wins for a topic, its `TopicSettings`)
- `rule_parser`: reading and validating the `topic.creation.*` props into rules
- `admin`: the Admin API client (describe, create, delete) and its error messages
- `decisions`: one topic's settings from its rule, the task's hook and the create-topic policy
- `plan`: the dry run of topic creation
"""

from connectworker.topics.admin import (
    MISSING_CODES,
    CreateResult,
    Outcome,
    TopicAdmin,
    TopicAdminError,
    explain_create_error,
    explain_describe_error,
)
from connectworker.topics.config_keys import GROUPS_KEY, KIP_RULES_KEY, TOPIC_CREATION_PREFIX, WORKER_ENABLE_KEY
from connectworker.topics.decisions import NewTopicHook, TopicCreationError
from connectworker.topics.names import MAX_NAME_LENGTH, collides, metric_name, validate_topic_name
from connectworker.topics.plan import BrokerVerdict, PlanEntry, broker_honours_validate_only, plan_new_topics
from connectworker.topics.rule_parser import (
    has_topic_creation_keys,
    parse_topic_creation,
    topic_creation_config_keys,
    topic_creation_problems,
)
from connectworker.topics.rules import RuleMatch, Spelling, TopicCreationRule, TopicCreationRules

__all__ = [
    "GROUPS_KEY",
    "KIP_RULES_KEY",
    "MAX_NAME_LENGTH",
    "MISSING_CODES",
    "TOPIC_CREATION_PREFIX",
    "WORKER_ENABLE_KEY",
    "BrokerVerdict",
    "CreateResult",
    "NewTopicHook",
    "Outcome",
    "PlanEntry",
    "RuleMatch",
    "Spelling",
    "TopicAdmin",
    "TopicAdminError",
    "TopicCreationError",
    "TopicCreationRule",
    "TopicCreationRules",
    "broker_honours_validate_only",
    "collides",
    "explain_create_error",
    "explain_describe_error",
    "has_topic_creation_keys",
    "metric_name",
    "parse_topic_creation",
    "plan_new_topics",
    "topic_creation_config_keys",
    "topic_creation_problems",
    "validate_topic_name",
]
