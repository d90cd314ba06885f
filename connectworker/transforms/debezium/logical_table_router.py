"""`io.debezium.transforms.ByLogicalTableRouter` (and `ToLogicalTopicRouter`, its newer name): the change
events of several physical tables, such as the shards of one table, onto one topic.

Debezium's keys: `topic.regex` and `topic.replacement` (required; java.util.regex, the regex matched
against the whole topic, `$n`/`${name}` in the replacement); `key.enforce.uniqueness` (true): the key
gets a string field telling the tables apart, named by `key.field.name` (`__dbz__physicalTableIdentifier`;
`__dbz__sourceIdentifier` for ToLogicalTopicRouter), whose value is the old topic, or what
`key.field.regex` and `key.field.replacement` make of it; `schema.name.adjustment.mode` (`none`, `avro`,
`avro_unicode`); `logical.table.cache.size` / `logical.destination.cache.size` (16, the size of the
caches of derived schemas and names).

A routed record's key schema is renamed `<new topic>.Key`; a change event's envelope `<new topic>.Envelope`
and its row schema `<new topic>.Value` (the values are unchanged). A topic the regex does not match, or
that it routes to an empty name (with a warning), is left as it is; tombstones and other records are
routed with their key rewritten and their value untouched.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, at_least, non_empty_string, one_of
from connectworker.api.errors import ConfigError, DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import STRING_SCHEMA, Field, Schema, SchemaType
from connectworker.api.transform import Transformation
from connectworker.transforms.debezium.envelope import AFTER, BEFORE, ENVELOPE_SUFFIX, field_schema, is_envelope
from connectworker.transforms.debezium.schema_names import ADJUSTMENT_MODES, schema_name_adjuster
from connectworker.transforms.regex_router import compile_java_regex, parse_java_replacement, replace_whole_match
from connectworker.transforms.side import copy_record

__all__ = ["ByLogicalTableRouter", "ToLogicalTopicRouter"]

log = logging.getLogger(__name__)

TOPIC_REGEX, TOPIC_REPLACEMENT = "topic.regex", "topic.replacement"
KEY_ENFORCE_UNIQUENESS = "key.enforce.uniqueness"
KEY_FIELD_NAME, KEY_FIELD_REGEX, KEY_FIELD_REPLACEMENT = "key.field.name", "key.field.regex", "key.field.replacement"
SCHEMA_NAME_ADJUSTMENT_MODE = "schema.name.adjustment.mode"
CACHE_SIZE = "logical.destination.cache.size"
LEGACY_CACHE_SIZE = "logical.table.cache.size"


_UNSEEN = object()


def _valid_regex(key: str, value: Any) -> None:
    if value:
        compile_java_regex(value)


def _required_regex(key: str, value: Any) -> None:
    non_empty_string(key, value)
    _valid_regex(key, value)


def _config_def(key_field_default: str) -> ConfigDef:
    return (
        ConfigDef()
        .define(
            TOPIC_REGEX,
            ConfigType.STRING,
            validator=_required_regex,
            importance=Importance.LOW,
            documentation="The regex (java.util.regex) matched against the whole topic; a match is rerouted.",
        )
        .define(
            TOPIC_REPLACEMENT,
            ConfigType.STRING,
            validator=non_empty_string,
            importance=Importance.LOW,
            documentation="The new topic: $n or ${name} for a group of topic.regex.",
        )
        .define(
            KEY_ENFORCE_UNIQUENESS,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="Whether the key gets a field naming the physical table, so that keys stay unique "
            "across the tables that share the topic.",
        )
        .define(
            KEY_FIELD_REGEX,
            ConfigType.STRING,
            None,
            validator=_valid_regex,
            importance=Importance.LOW,
            documentation="A regex matched against the old topic to make the key field's value (not set: the "
            "old topic).",
        )
        .define(
            KEY_FIELD_NAME,
            ConfigType.STRING,
            key_field_default,
            importance=Importance.LOW,
            documentation="The name of the key field naming the physical table.",
        )
        .define(
            KEY_FIELD_REPLACEMENT,
            ConfigType.STRING,
            None,
            importance=Importance.LOW,
            documentation="The key field's value when key.field.regex matches: $n or ${name} for a group.",
        )
        .define(
            SCHEMA_NAME_ADJUSTMENT_MODE,
            ConfigType.STRING,
            "none",
            validator=one_of(*ADJUSTMENT_MODES),
            importance=Importance.LOW,
            documentation="How the new schema names are adjusted: none, avro (invalid characters become _) or "
            "avro_unicode (_uXXXX).",
            recommended_values=ADJUSTMENT_MODES,
        )
        .define(
            CACHE_SIZE,
            ConfigType.INT,
            16,
            validator=at_least(1),
            importance=Importance.LOW,
            documentation="How many derived schemas and names are kept.",
        )
    )


def _renamed(schema: Schema, name: str, fields: tuple[Field, ...]) -> Schema:
    """`schema` (its version, doc, parameters and optionality) named `name`, with `fields`."""
    return Schema(
        SchemaType.STRUCT,
        schema.optional,
        name,
        schema.version,
        schema.doc,
        fields,
        parameters=schema.parameters,
    )


class _BoundedCache(dict[Any, Any]):
    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size

    def keep(self, key: Any, value: Any) -> Any:
        if len(self) >= self.size:
            self.pop(next(iter(self)))
        self[key] = value
        return value


class ToLogicalTopicRouter(Transformation):
    """Debezium's `io.debezium.transforms.ToLogicalTopicRouter`."""

    KEY_FIELD_DEFAULT = "__dbz__sourceIdentifier"

    def __init__(self) -> None:
        self._topics: _BoundedCache = _BoundedCache(16)
        self._schemas: _BoundedCache = _BoundedCache(16)
        self._identifiers: _BoundedCache = _BoundedCache(16)

    def config_def(self) -> ConfigDef:
        return _config_def(self.KEY_FIELD_DEFAULT)

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        self._regex = compile_java_regex(config[TOPIC_REGEX])
        self._replacement = self._parse_replacement(TOPIC_REPLACEMENT, config[TOPIC_REPLACEMENT], self._regex)
        key_regex = (config[KEY_FIELD_REGEX] or "").strip()
        self._key_regex = compile_java_regex(key_regex) if key_regex else None
        if self._key_regex is not None:
            key_replacement = (config[KEY_FIELD_REPLACEMENT] or "").strip()
            if not key_replacement:
                raise ConfigError(
                    {KEY_FIELD_REPLACEMENT: f"{KEY_FIELD_REPLACEMENT} must be non-empty if {KEY_FIELD_REGEX} is set."}
                )
            self._key_replacement = self._parse_replacement(KEY_FIELD_REPLACEMENT, key_replacement, self._key_regex)
        self._key_field: str = config[KEY_FIELD_NAME]
        self._enforce_uniqueness: bool = config[KEY_ENFORCE_UNIQUENESS]
        self._adjust = schema_name_adjuster(config[SCHEMA_NAME_ADJUSTMENT_MODE])
        size = config[CACHE_SIZE]
        self._topics, self._schemas, self._identifiers = _BoundedCache(size), _BoundedCache(size), _BoundedCache(size)

    @staticmethod
    def _parse_replacement(key: str, replacement: str, regex: Any) -> Any:
        try:
            return parse_java_replacement(replacement, regex)
        except ValueError as exc:
            raise ConfigError({key: f"Invalid value {replacement!r}: {exc}"}) from None

    def apply(self, record: SourceRecord) -> SourceRecord:
        old_topic = record.topic
        topic = self._topics.get(old_topic, _UNSEEN)
        if topic is _UNSEEN:
            topic = self._topics.keep(old_topic, replace_whole_match(self._regex, self._replacement, old_topic))
            if topic == "":
                log.warning("Routing regex returned an empty topic name for %s, propagating original record", old_topic)
        if not topic:
            return record
        key_schema, key = record.key_schema, record.key
        if key is not None:
            if not isinstance(key, dict) or key_schema is None or key_schema.type is not SchemaType.STRUCT:
                raise DataError(
                    f"Only Struct objects supported for [Updating schema], found: {type(key).__name__} "
                    f"(the key of a record of topic {old_topic!r})"
                )
            key_schema = self._derived(("key", key_schema, topic), self._key_schema)
            if self._enforce_uniqueness:
                key = {**key, self._key_field: self._identifier(old_topic)}
        value_schema = record.value_schema
        if record.value is not None and is_envelope(value_schema):
            assert value_schema is not None
            value_schema = self._derived(("envelope", value_schema, topic), self._envelope_schema)
        routed = copy_record(record)
        routed.topic, routed.key, routed.key_schema, routed.value_schema = topic, key, key_schema, value_schema
        return routed

    def _derived(self, cache_key: tuple[str, Schema, str], build: Any) -> Schema:
        found: Schema | None = self._schemas.get(cache_key)
        return found if found is not None else self._schemas.keep(cache_key, build(cache_key[1], cache_key[2]))

    def _key_schema(self, old: Schema, topic: str) -> Schema:
        fields = old.fields
        if self._enforce_uniqueness:
            fields = (*fields, Field(self._key_field, STRING_SCHEMA))
        return _renamed(old, self._adjust(f"{topic}.Key"), fields)

    def _envelope_schema(self, old: Schema, topic: str) -> Schema:
        row = field_schema(old, BEFORE) or field_schema(old, AFTER)
        renamed_row = _renamed(row, self._adjust(f"{topic}.Value"), row.fields) if row is not None else None
        fields = tuple(
            Field(f.name, renamed_row) if renamed_row is not None and f.name in (BEFORE, AFTER) else f
            for f in old.fields
        )
        return _renamed(old, self._adjust(topic + ENVELOPE_SUFFIX), fields)

    def _identifier(self, old_topic: str) -> str:
        if self._key_regex is None:
            return old_topic
        found: str | None = self._identifiers.get(old_topic)
        if found is None:
            found = replace_whole_match(self._key_regex, self._key_replacement, old_topic) or old_topic
            self._identifiers.keep(old_topic, found)
        return found


class ByLogicalTableRouter(ToLogicalTopicRouter):
    """Debezium's `io.debezium.transforms.ByLogicalTableRouter` (deprecated there for ToLogicalTopicRouter,
    with the old default key field name and `logical.table.cache.size`)."""

    KEY_FIELD_DEFAULT = "__dbz__physicalTableIdentifier"

    def config_def(self) -> ConfigDef:
        return (
            super()
            .config_def()
            .merge(
                ConfigDef().define(
                    LEGACY_CACHE_SIZE,
                    ConfigType.INT,
                    None,
                    validator=at_least(1),
                    importance=Importance.LOW,
                    documentation=f"The older name of {CACHE_SIZE}, read when that is not set.",
                )
            )
        )

    def configure(self, props: Mapping[str, str]) -> None:
        if props.get(LEGACY_CACHE_SIZE) is not None and props.get(CACHE_SIZE) is None:
            props = {**props, CACHE_SIZE: props[LEGACY_CACHE_SIZE]}
        super().configure(props)
