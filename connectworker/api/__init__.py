"""What connector developers import. Nothing here depends on the worker's runtime."""

from connectworker.api.config_def import (
    NO_DEFAULT,
    ConfigDef,
    ConfigKey,
    ConfigType,
    ConfigValue,
    Importance,
    at_least,
    config_text,
    in_range,
    non_empty_list,
    non_empty_string,
    one_of,
    read_config,
)
from connectworker.api.config_provider import ConfigProvider
from connectworker.api.connector import SourceConnector, offset_refusal
from connectworker.api.connector_context import ConnectorContext
from connectworker.api.errors import ConfigError, ConnectError, DataError, DryRunUnsupported, RetriableError
from connectworker.api.exactly_once import ConnectorTransactionBoundaries, ExactlyOnceSupport, TransactionContext
from connectworker.api.operator import OperatorSignal
from connectworker.api.record import RecordMetadata, SourceRecord, SourceRecordBatch, is_offset_count
from connectworker.api.required_topics import RequiredTopic
from connectworker.api.schema import Schema, SchemaAndValue, SchemaType
from connectworker.api.task import OffsetStorageReader, SourceTask, SourceTaskContext
from connectworker.api.topic_policy import CreateTopicPolicy, PolicyViolationError, RequestMetadata
from connectworker.api.topic_settings import CleanupPolicy, TimeUnit, TopicSettings
from connectworker.api.transform import Predicate, Transformation

__all__ = [
    "NO_DEFAULT",
    "CleanupPolicy",
    "ConfigDef",
    "ConfigError",
    "ConfigKey",
    "ConfigProvider",
    "ConfigType",
    "ConfigValue",
    "ConnectError",
    "ConnectorContext",
    "ConnectorTransactionBoundaries",
    "CreateTopicPolicy",
    "DataError",
    "DryRunUnsupported",
    "ExactlyOnceSupport",
    "Importance",
    "OffsetStorageReader",
    "OperatorSignal",
    "PolicyViolationError",
    "Predicate",
    "RecordMetadata",
    "RequestMetadata",
    "RequiredTopic",
    "RetriableError",
    "Schema",
    "SchemaAndValue",
    "SchemaType",
    "SourceConnector",
    "SourceRecord",
    "SourceRecordBatch",
    "SourceTask",
    "SourceTaskContext",
    "TimeUnit",
    "TopicSettings",
    "TransactionContext",
    "Transformation",
    "at_least",
    "config_text",
    "in_range",
    "is_offset_count",
    "non_empty_list",
    "non_empty_string",
    "offset_refusal",
    "one_of",
    "read_config",
]
