"""`io.debezium.transforms.outbox.EventRouter`: the outbox pattern.

An application writes each domain event as a row of an outbox table in the transaction that changes its
data; the CDC connector captures the table and this transform turns each inserted row into one event:

- topic: the routing column (`route.by.field`, `aggregatetype`) put through `route.topic.regex` and
  `route.topic.replacement`: `outbox.event.<aggregatetype>` by default. A value the regex does not match
  in full is the topic itself. The worker creates a new topic the first time it appears, with the
  `topic.creation` group whose `include` matches it (docs/topic-creation.md).
- key: the `table.field.event.key` column (`aggregateid`), with its schema.
- value: the `table.field.event.payload` column (`payload`), with its schema; with envelope placements
  (`table.fields.additional.placement=type:envelope:eventType`), a struct of `payload` and those columns,
  named after the row's schema with the routing value before its last part (`….outbox.Order.Value`) and
  versioned by `table.field.event.schema.version` when set. `table.expand.json.payload` makes a JSON text
  payload a struct (json_payload.py). A null or blank payload gives a tombstone with
  `route.tombstone.on.empty.payload`.
- headers: the record's own, then `id` (the `table.field.event.id` column, with its schema), then the
  header placements.
- partition: a partition placement's column; timestamp: the `table.field.event.timestamp` column, else the
  change event's `ts_ms`.

Deletes and tombstones of the outbox table are dropped (an application may empty it right after
writing); an update is dropped and logged at WARN or ERROR, or fails the task (`table.op.invalid.behavior`).
Records that are not change events pass unchanged.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connectworker.api.config_def import ConfigDef
from connectworker.api.errors import ConfigError, ConnectError, DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import STRING_SCHEMA, Field, Schema, SchemaAndValue, SchemaType
from connectworker.api.transform import Transformation
from connectworker.transforms.debezium import outbox_config as keys
from connectworker.transforms.debezium.envelope import AFTER, OP, TS_MS, EnvelopePlans, field_schema
from connectworker.transforms.debezium.json_payload import JsonPayloadExpander
from connectworker.transforms.debezium.outbox_config import AdditionalField
from connectworker.transforms.regex_router import compile_java_regex, parse_java_replacement, replace_whole_match

__all__ = ["EventRouter"]

log = logging.getLogger(__name__)

ENVELOPE_PAYLOAD = "payload"
_TIMESTAMP_DIVISORS = {"io.debezium.time.Timestamp": 1, "io.debezium.time.MicroTimestamp": 1_000}
_TIMESTAMP_DIVISORS["io.debezium.time.NanoTimestamp"] = 1_000_000
_CACHED = 10_000


@dataclass(frozen=True, slots=True)
class _Plan:
    """Where an outbox row's parts are, for change events of one envelope schema; `problem` says what is
    missing, raised when an insert needs it (a delete or an update of such a table is still skipped)."""

    row_schema: Schema
    id_schema: Schema
    key_schema: Schema
    payload_schema: Schema
    timestamp_divisor: int | None  # None: the envelope's ts_ms
    extras: tuple[tuple[AdditionalField, Schema], ...]  # the additional columns the rows have
    problem: str | None = None


_BROKEN = Schema(SchemaType.STRUCT)


class EventRouter(Transformation):
    """Debezium's `io.debezium.transforms.outbox.EventRouter`."""

    def __init__(self) -> None:
        self._config: dict[str, Any] = {}
        self._extras: tuple[AdditionalField, ...] = ()
        self._error_on_missing = True
        self._envelope_placed = False
        self._expander: JsonPayloadExpander | None = None
        self._routes: dict[str, str] = {}
        self._value_schemas: dict[tuple[Schema, str, int | None], Schema] = {}
        self._plans: EnvelopePlans[_Plan] = EnvelopePlans(self._plan)

    def config_def(self) -> ConfigDef:
        return keys.CONFIG_DEF

    def configure(self, props: Mapping[str, str]) -> None:
        config = self._config = keys.CONFIG_DEF.parse(props)
        self._regex = compile_java_regex(config[keys.ROUTE_TOPIC_REGEX])
        try:
            self._replacement = parse_java_replacement(config[keys.ROUTE_TOPIC_REPLACEMENT], self._regex)
        except ValueError as exc:
            raise ConfigError(
                {keys.ROUTE_TOPIC_REPLACEMENT: f"Invalid value {config[keys.ROUTE_TOPIC_REPLACEMENT]!r}: {exc}"}
            ) from None
        self._extras = keys.parse_additional_fields(config[keys.FIELDS_ADDITIONAL_PLACEMENT])
        self._error_on_missing = keys.error_on_missing(config, props)
        self._envelope_placed = any(extra.placement == "envelope" for extra in self._extras)
        self._invalid_op = str(config[keys.OPERATION_INVALID_BEHAVIOR]).lower()
        self._route_by: str = config[keys.ROUTE_BY_FIELD]
        self._tombstone_on_empty: bool = config[keys.ROUTE_TOMBSTONE_ON_EMPTY_PAYLOAD]
        self._expander = (
            JsonPayloadExpander(config[keys.JSON_PAYLOAD_NULL_BEHAVIOR], config[keys.JSON_PAYLOAD_EMPTY_ARRAY_BEHAVIOR])
            if config[keys.EXPAND_JSON_PAYLOAD]
            else None
        )
        self._routes, self._value_schemas = {}, {}
        self._plans = EnvelopePlans(self._plan)

    # -- per envelope schema -------------------------------------------------------------------------
    def _plan(self, envelope: Schema) -> _Plan:
        if field_schema(envelope, OP) is None:
            raise DataError(f"op is not a valid field name (the change event schema {envelope.name} has no op field)")
        row = field_schema(envelope, AFTER)
        if row is None or row.type is not SchemaType.STRUCT:
            return _Plan(_BROKEN, _BROKEN, _BROKEN, _BROKEN, None, (), f"{envelope.name} has no struct field 'after'")
        config = self._config
        payload, event_id = (
            field_schema(row, config[keys.FIELD_PAYLOAD]),
            field_schema(row, config[keys.FIELD_EVENT_ID]),
        )
        key = field_schema(row, config[keys.FIELD_EVENT_KEY])
        extras = tuple((extra, field_schema(row, extra.field)) for extra in self._extras)
        missing = [
            f"{what} column {name!r} ({key_name})"
            for what, name, key_name, found in (
                ("payload", config[keys.FIELD_PAYLOAD], keys.FIELD_PAYLOAD, payload),
                ("event-id", config[keys.FIELD_EVENT_ID], keys.FIELD_EVENT_ID, event_id),
                ("key", config[keys.FIELD_EVENT_KEY], keys.FIELD_EVENT_KEY, key),
                ("routing", self._route_by, keys.ROUTE_BY_FIELD, field_schema(row, self._route_by)),
            )
            if found is None
        ]
        missing += [
            f"additional column {extra.field!r} ({keys.FIELDS_ADDITIONAL_PLACEMENT}; "
            f"{keys.FIELDS_ADDITIONAL_MISSING}=ignore leaves it out)"
            for extra, found in extras
            if found is None and self._error_on_missing
        ]
        divisor, problem = self._timestamp_divisor(row)
        if problem is not None:
            missing.append(problem)
        return _Plan(
            row,
            event_id or _BROKEN,
            key or STRING_SCHEMA,
            payload or _BROKEN,
            divisor,
            tuple((extra, found) for extra, found in extras if found is not None),
            f"Unable to find the {', the '.join(missing)} in the rows of {row.name}" if missing else None,
        )

    def _timestamp_divisor(self, row: Schema) -> tuple[int | None, str | None]:
        name = self._config[keys.FIELD_EVENT_TIMESTAMP]
        if name is None:
            return None, None
        found = field_schema(row, name)
        if found is None:
            return None, f"timestamp column {name!r} ({keys.FIELD_EVENT_TIMESTAMP})"
        divisor = _TIMESTAMP_DIVISORS.get(found.name or "")
        if divisor is None:
            return None, (
                f"timestamp column {name!r} ({keys.FIELD_EVENT_TIMESTAMP}) as a Debezium Timestamp, MicroTimestamp "
                f"or NanoTimestamp (it is {found.name or found.type.value})"
            )
        return divisor, None

    # -- per record -------------------------------------------------------------------------------
    def apply(self, record: SourceRecord) -> SourceRecord | None:
        envelope = record.value
        if envelope is None:
            return None  # a tombstone of the outbox table
        plan = self._plans.get(record.value_schema) if record.value_schema is not None else None
        if plan is None:
            return record
        if not isinstance(envelope, dict):
            raise DataError(f"A change event of topic {record.topic!r} is not a struct: {type(envelope).__name__}")
        op = envelope.get(OP)
        if op == "d":
            return None
        if op == "u":
            self._unexpected_update(record)
            return None
        row = envelope.get(AFTER)
        if not isinstance(row, dict):
            raise DataError(
                f"Only Struct objects supported for [Read Outbox Event], found: null (an event with op {op!r} of "
                f"topic {record.topic!r}: the outbox takes inserts)"
            )
        if plan.problem is not None:
            raise ConnectError(plan.problem)
        return self._event(record, envelope, row, plan)

    def _event(self, record: SourceRecord, envelope: dict[str, Any], row: dict[str, Any], plan: _Plan) -> SourceRecord:
        config = self._config
        routed = row.get(self._route_by)
        if not isinstance(routed, str):
            raise DataError(
                f"The outbox row's {self._route_by} ({keys.ROUTE_BY_FIELD}) holds {routed!r}, not a topic name "
                f"(topic {record.topic!r})"
            )
        headers = [*record.headers, ("id", SchemaAndValue(plan.id_schema, row.get(config[keys.FIELD_EVENT_ID])))]
        payload, payload_schema = row.get(config[keys.FIELD_PAYLOAD]), plan.payload_schema
        if self._expander is not None:
            payload_schema, payload = self._expanded(record, payload, payload_schema)
        partition = record.partition
        value_fields: dict[str, Any] = {ENVELOPE_PAYLOAD: payload}
        for extra, column_schema in plan.extras:
            if extra.placement == "envelope":
                value_fields[extra.alias] = row.get(extra.field)
            elif extra.placement == "header":
                headers.append((extra.alias, SchemaAndValue(column_schema, row.get(extra.field))))
            else:
                partition = self._partition(row, extra)
        value: Any
        if self._tombstone_on_empty and (payload is None or (isinstance(payload, str) and not payload.strip())):
            value, value_schema = None, None
        elif not self._envelope_placed:
            value, value_schema = payload, payload_schema
        else:
            version = row.get(config[keys.FIELD_SCHEMA_VERSION]) if config[keys.FIELD_SCHEMA_VERSION] else None
            value, value_schema = value_fields, self._value_schema(plan, payload_schema, routed, version)
        return SourceRecord(
            record.source_partition,
            record.source_offset,
            self._topic(routed),
            value,
            row.get(config[keys.FIELD_EVENT_KEY]),
            partition,
            value_schema,
            plan.key_schema,
            self._timestamp(envelope, row, plan),
            headers,
        )

    def _unexpected_update(self, record: SourceRecord) -> None:
        if self._invalid_op == "fatal":
            raise ConnectError(
                f"Unexpected update message received {record.key!r} of topic {record.topic!r}, fail "
                f"({keys.OPERATION_INVALID_BEHAVIOR}=fatal: an outbox table's rows are only inserted)"
            )
        level = logging.ERROR if self._invalid_op == "error" else logging.WARNING
        log.log(level, "Unexpected update message received %r of topic %s and ignored", record.key, record.topic)

    def _expanded(self, record: SourceRecord, payload: Any, schema: Schema) -> tuple[Schema, Any]:
        assert self._expander is not None
        if isinstance(payload, str):
            try:
                return self._expander.expand(self._config[keys.FIELD_PAYLOAD], payload)
            except ValueError as exc:  # json.JSONDecodeError included
                log.warning("JSON expansion failed (%s): the payload of key %r stays a string", exc, record.key)
        elif payload is not None:
            log.warning("Expand JSON payload is turned on but payload is not a string in %r", record.key)
        return schema, payload

    def _partition(self, row: dict[str, Any], extra: AdditionalField) -> int:
        partition = row.get(extra.field)
        if not isinstance(partition, int) or isinstance(partition, bool) or partition < 0:
            raise DataError(
                f"The outbox column {extra.field!r}, placed as the partition ({keys.FIELDS_ADDITIONAL_PLACEMENT}), "
                f"holds {partition!r}, not a partition number"
            )
        return partition

    def _value_schema(self, plan: _Plan, payload: Schema, routed: str, version: Any) -> Schema:
        cache_key = (payload, routed, version)
        schema = self._value_schemas.get(cache_key)
        if schema is None:
            name = plan.row_schema.name
            if name is None:
                named = routed
            else:
                head, dot, tail = name.rpartition(".")
                named = f"{head}.{routed}.{tail}" if dot else f"{routed}.{name}"
            fields = [Field(ENVELOPE_PAYLOAD, payload)]
            fields += [Field(extra.alias, found) for extra, found in plan.extras if extra.placement == "envelope"]
            schema = Schema(SchemaType.STRUCT, name=named, version=version, fields=tuple(fields))
            if len(self._value_schemas) >= _CACHED:
                self._value_schemas.clear()
            self._value_schemas[cache_key] = schema
        return schema

    def _timestamp(self, envelope: dict[str, Any], row: dict[str, Any], plan: _Plan) -> int | None:
        if plan.timestamp_divisor is not None:
            stamp = row.get(self._config[keys.FIELD_EVENT_TIMESTAMP])
            if stamp is not None:
                return int(stamp) // plan.timestamp_divisor
        ts_ms = envelope.get(TS_MS)
        return int(ts_ms) if ts_ms is not None else None

    def _topic(self, routed: str) -> str:
        topic = self._routes.get(routed)
        if topic is None:
            replaced = replace_whole_match(self._regex, self._replacement, routed)
            topic = routed if replaced is None else replaced
            if len(self._routes) < _CACHED:
                self._routes[routed] = topic
        return topic

    def plan_route(self, record: SourceRecord) -> SourceRecord | None:
        """For the topic plan, given a record with only a topic: each event's topic comes from its row."""
        raise DataError(
            f"each event is routed by its outbox row's {self._route_by} column ({keys.ROUTE_BY_FIELD}): give a "
            "sample record (connectworker plan --record) to plan its topics"
        )
