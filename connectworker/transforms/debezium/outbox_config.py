"""The keys of Debezium's outbox `EventRouter`, with Debezium's names and defaults, and the reading of
`table.fields.additional.placement`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, one_of
from connectworker.transforms.regex_router import compile_java_regex

__all__ = ["CONFIG_DEF", "AdditionalField", "error_on_missing", "parse_additional_fields"]

FIELD_EVENT_ID = "table.field.event.id"
FIELD_EVENT_KEY = "table.field.event.key"
FIELD_EVENT_TYPE = "table.field.event.type"
FIELD_PAYLOAD = "table.field.event.payload"
FIELD_EVENT_TIMESTAMP = "table.field.event.timestamp"
FIELDS_ADDITIONAL_PLACEMENT = "table.fields.additional.placement"
FIELDS_ADDITIONAL_MISSING = "table.field.additional.missing"
FIELDS_ADDITIONAL_ERROR_ON_MISSING = "table.fields.additional.error.on.missing"  # Debezium 2.5 to 3.5
FIELD_SCHEMA_VERSION = "table.field.event.schema.version"
ROUTE_BY_FIELD = "route.by.field"
ROUTE_TOPIC_REGEX = "route.topic.regex"
ROUTE_TOPIC_REPLACEMENT = "route.topic.replacement"
ROUTE_TOMBSTONE_ON_EMPTY_PAYLOAD = "route.tombstone.on.empty.payload"
OPERATION_INVALID_BEHAVIOR = "table.op.invalid.behavior"
EXPAND_JSON_PAYLOAD = "table.expand.json.payload"
JSON_PAYLOAD_NULL_BEHAVIOR = "table.json.payload.null.behavior"
JSON_PAYLOAD_EMPTY_ARRAY_BEHAVIOR = "table.json.payload.empty.array.behavior"
TRACING_KEYS = ("tracing.span.context.field", "tracing.operation.name", "tracing.with.context.field.only")

PLACEMENTS = ("header", "envelope", "partition")
INVALID_OP_BEHAVIORS = ("warn", "error", "fatal")


@dataclass(frozen=True, slots=True)
class AdditionalField:
    """A column of the outbox row put into a header, the value's envelope or the record's partition."""

    placement: str
    field: str
    alias: str


def parse_additional_fields(entries: list[str] | None) -> tuple[AdditionalField, ...]:
    """`column:placement[:alias]` entries; ValueError for any other shape or placement."""
    fields = []
    for entry in entries or []:
        parts = [part.strip() for part in entry.split(":")]
        if len(parts) not in (2, 3) or not parts[0] or parts[1].lower() not in PLACEMENTS:
            raise ValueError(
                f"A comma-separated list of valid String pairs or trios is expected but got: {entry!r} (each entry "
                f"is column:placement or column:placement:alias, the placement one of {', '.join(PLACEMENTS)})"
            )
        alias = parts[2] if len(parts) == 3 and parts[2] else parts[0]
        fields.append(AdditionalField(parts[1].lower(), parts[0], alias))
    return tuple(fields)


def _valid_additional_fields(key: str, value: Any) -> None:
    if value is not None and not value:  # given, but empty
        raise ValueError("A comma-separated list of valid String pairs or trios is expected but got: ''")
    if value is not None:
        parse_additional_fields(value)


def _valid_regex(key: str, value: Any) -> None:
    if value is not None:
        compile_java_regex(value)


def error_on_missing(config: Mapping[str, Any], props: Mapping[str, str]) -> bool:
    """Whether a missing additional column is an error: `table.field.additional.missing`, or Debezium
    3.5's boolean `table.fields.additional.error.on.missing` when only that one is given."""
    if props.get(FIELDS_ADDITIONAL_MISSING) is None and props.get(FIELDS_ADDITIONAL_ERROR_ON_MISSING) is not None:
        return bool(config[FIELDS_ADDITIONAL_ERROR_ON_MISSING])
    return str(config[FIELDS_ADDITIONAL_MISSING]).lower() == "error"


def _table(definition: ConfigDef, name: str, default: str | None, doc: str, importance: Importance) -> ConfigDef:
    return definition.define(name, ConfigType.STRING, default, importance=importance, documentation=doc, group="Table")


CONFIG_DEF = ConfigDef()
_table(CONFIG_DEF, FIELD_EVENT_ID, "id", "The outbox column holding the event id (header id).", Importance.LOW)
_table(CONFIG_DEF, FIELD_EVENT_KEY, "aggregateid", "The outbox column holding the record key.", Importance.LOW)
_table(CONFIG_DEF, FIELD_EVENT_TYPE, "type", "The outbox column holding the event type.", Importance.LOW)
_table(CONFIG_DEF, FIELD_PAYLOAD, "payload", "The outbox column holding the event payload.", Importance.LOW)
_table(
    CONFIG_DEF,
    FIELD_EVENT_TIMESTAMP,
    None,
    "The outbox column (a Debezium Timestamp, MicroTimestamp or NanoTimestamp) giving the record timestamp; "
    "not set: the change event's ts_ms.",
    Importance.MEDIUM,
)
CONFIG_DEF.define(
    FIELDS_ADDITIONAL_PLACEMENT,
    ConfigType.LIST,
    None,
    validator=_valid_additional_fields,
    importance=Importance.HIGH,
    documentation="Further columns, each column:placement[:alias], the placement header, envelope (a field of "
    "the value, beside payload) or partition (the record's partition, an int32 column).",
    group="Table",
)
CONFIG_DEF.define_choice(
    FIELDS_ADDITIONAL_MISSING,
    "error",
    ("error", "ignore"),
    importance=Importance.MEDIUM,
    documentation="An additional column the row lacks: error (the record fails) or ignore (it is left out).",
    group="Table",
)
CONFIG_DEF.define(
    FIELDS_ADDITIONAL_ERROR_ON_MISSING,
    ConfigType.BOOLEAN,
    True,
    importance=Importance.LOW,
    documentation=f"Deprecated (Debezium 3.5): {FIELDS_ADDITIONAL_MISSING} as a boolean; read only when that "
    "key is not set.",
    group="Table",
)
_table(
    CONFIG_DEF,
    FIELD_SCHEMA_VERSION,
    None,
    "The outbox column (int32) whose value becomes the version of the value's schema.",
    Importance.LOW,
)
CONFIG_DEF.define(
    OPERATION_INVALID_BEHAVIOR,
    ConfigType.STRING,
    "warn",
    validator=one_of(*INVALID_OP_BEHAVIORS),
    importance=Importance.MEDIUM,
    documentation="An update of the outbox table (only inserts are events; deletes are skipped): warn or error "
    "(logged and skipped) or fatal (the task fails).",
    group="Table",
    recommended_values=INVALID_OP_BEHAVIORS,
)
CONFIG_DEF.define(
    EXPAND_JSON_PAYLOAD,
    ConfigType.BOOLEAN,
    False,
    importance=Importance.MEDIUM,
    documentation="Whether a JSON text payload becomes a struct with a schema inferred from it (a payload that "
    "is not a JSON object is left as it is, with a warning).",
    group="Table",
)
CONFIG_DEF.define_choice(
    JSON_PAYLOAD_NULL_BEHAVIOR,
    "ignore",
    ("ignore", "optional_bytes"),
    importance=Importance.MEDIUM,
    documentation="A null in an expanded payload: ignore (the member is left out) or optional_bytes.",
    group="Table",
)
CONFIG_DEF.define_choice(
    JSON_PAYLOAD_EMPTY_ARRAY_BEHAVIOR,
    "ignore",
    ("ignore", "optional_string"),
    importance=Importance.MEDIUM,
    documentation="An empty array in an expanded payload: ignore (left out) or optional_string (an array of "
    "optional strings).",
    group="Table",
)
CONFIG_DEF.define(
    ROUTE_BY_FIELD,
    ConfigType.STRING,
    "aggregatetype",
    importance=Importance.HIGH,
    documentation="The outbox column whose value routes the event (${routedByValue} in the replacement).",
    group="Router",
)
CONFIG_DEF.define(
    ROUTE_TOPIC_REGEX,
    ConfigType.STRING,
    "(?<routedByValue>.*)",
    validator=_valid_regex,
    importance=Importance.LOW,
    documentation="A regex (java.util.regex) matched against the routing column's value.",
    group="Router",
)
CONFIG_DEF.define(
    ROUTE_TOPIC_REPLACEMENT,
    ConfigType.STRING,
    "outbox.event.${routedByValue}",
    importance=Importance.HIGH,
    documentation="The topic of an event whose routing value the regex matches: $n or ${name} for a group.",
    group="Router",
)
CONFIG_DEF.define(
    ROUTE_TOMBSTONE_ON_EMPTY_PAYLOAD,
    ConfigType.BOOLEAN,
    False,
    importance=Importance.HIGH,
    documentation="Whether an event with a null or blank payload becomes a tombstone.",
    group="Router",
)
for _key, _type, _default in zip(
    TRACING_KEYS,
    (ConfigType.STRING, ConfigType.STRING, ConfigType.BOOLEAN),
    ("tracingspancontext", "debezium-read", False),
    strict=True,
):
    CONFIG_DEF.define(
        _key,
        _type,
        _default,
        importance=Importance.LOW,
        documentation="OpenTelemetry tracing: accepted and not used (Debezium skips it, too, without OpenTelemetry).",
        group="Tracing",
    )
