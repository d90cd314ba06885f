"""`io.debezium.transforms.ExtractNewRecordState` ("unwrap"): a change event's row instead of its envelope.

Debezium's keys and defaults:

- `delete.tombstone.handling.mode` (`tombstone`): `drop` drops deletes and tombstones; `tombstone` makes a
  delete a record with a null value (its value schema still the row's, as Debezium writes it) and drops
  the tombstone that follows; `rewrite` makes a delete its old row with `__deleted: "true"` (every other
  row gets `__deleted: "false"`) and drops tombstones; `rewrite-with-tombstone` does the same but keeps
  tombstones; `delete-to-tombstone` makes a delete a tombstone (null value and value schema) and drops
  the tombstone that follows. Debezium 2's `drop.tombstones` (true) and `delete.handling.mode` (`drop`,
  `none`, `rewrite`) are read, with a warning, when the new key is not given.
- `add.fields` and `add.headers` (empty), `add.fields.prefix` and `add.headers.prefix` (`__`): envelope
  fields copied into the row or into headers (field_references.py). A tombstone gets only an `op` header,
  `d`.
- `route.by.field` (empty): the row's column whose value becomes the record's topic (the old row's, for a
  delete).
- `drop.fields.header.name` (none), `drop.fields.from.key` (false), `drop.fields.keep.schema.compatible`
  (true): the header (a list of names) naming fields to remove from the value (and the key); while
  keeping compatible, only optional fields are removed.
- `replace.null.with.default` (true): accepted; schemas here carry no default values, so it changes
  nothing.

Truncate events (no row before or after) are dropped. Records that are not change events (heartbeats,
schema changes: a value schema not named `….Envelope`) pass unchanged. The new value schema is the row's
(`<topic>.Value`); with `__deleted` or added fields it is that schema extended, named the same, and (as
Kafka's field transforms build it) not optional.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, one_of
from connectworker.api.errors import DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import OPTIONAL_STRING_SCHEMA, STRING_SCHEMA, Field, Schema, SchemaAndValue, SchemaType
from connectworker.api.transform import Transformation
from connectworker.transforms.debezium.envelope import AFTER, BEFORE, OP, EnvelopePlans, field_schema
from connectworker.transforms.debezium.field_references import FieldReference, ResolvedReference, parse_references
from connectworker.transforms.null_defaults import REPLACE_NULL_WITH_DEFAULT_DEF
from connectworker.transforms.side import copy_record

__all__ = ["DeleteHandling", "ExtractNewRecordState"]

log = logging.getLogger(__name__)

HANDLE_TOMBSTONE_DELETES = "delete.tombstone.handling.mode"
DROP_TOMBSTONES = "drop.tombstones"
HANDLE_DELETES = "delete.handling.mode"
ROUTE_BY_FIELD = "route.by.field"
ADD_FIELDS, ADD_FIELDS_PREFIX = "add.fields", "add.fields.prefix"
ADD_HEADERS, ADD_HEADERS_PREFIX = "add.headers", "add.headers.prefix"
DROP_FIELDS_HEADER = "drop.fields.header.name"
DROP_FIELDS_FROM_KEY = "drop.fields.from.key"
DROP_FIELDS_KEEP_SCHEMA_COMPATIBLE = "drop.fields.keep.schema.compatible"
DELETED_FIELD = "__deleted"
METADATA_PREFIX = "__"
MODES = ("drop", "tombstone", "rewrite", "rewrite-with-tombstone", "delete-to-tombstone")
LEGACY_MODES = ("drop", "none", "rewrite")


@dataclass(frozen=True, slots=True)
class DeleteHandling:
    """What becomes of a delete (`drop`; `null`: its value null, schema kept; `rewrite`: the old row marked
    deleted; `tombstone`: a tombstone) and of the tombstone after it (kept or dropped)."""

    deletes: str
    keep_tombstones: bool

    @staticmethod
    def of_mode(mode: str) -> DeleteHandling:
        return {
            "drop": DeleteHandling("drop", False),
            "tombstone": DeleteHandling("null", False),
            "rewrite": DeleteHandling("rewrite", False),
            "rewrite-with-tombstone": DeleteHandling("rewrite", True),
            "delete-to-tombstone": DeleteHandling("tombstone", False),
        }[mode.lower()]

    @staticmethod
    def of_legacy(drop_tombstones: bool, delete_handling: str) -> DeleteHandling:
        deletes = {"drop": "drop", "none": "null", "rewrite": "rewrite"}[delete_handling.lower()]
        return DeleteHandling(deletes, not drop_tombstones)


CONFIG_DEF = (
    ConfigDef()
    .define(
        HANDLE_TOMBSTONE_DELETES,
        ConfigType.STRING,
        "tombstone",
        validator=one_of(*MODES),
        importance=Importance.MEDIUM,
        documentation="How to handle deletes and tombstones: drop (both dropped), tombstone (a delete becomes "
        "a record with a null value, tombstones dropped), rewrite (a delete becomes its old row with "
        "__deleted=true, tombstones dropped), rewrite-with-tombstone (the same, tombstones kept), "
        "delete-to-tombstone (a delete becomes a tombstone, tombstones dropped).",
        recommended_values=MODES,
    )
    .define(
        DROP_TOMBSTONES,
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        documentation="Deprecated (Debezium 2): whether tombstones are dropped. Read only when "
        f"{HANDLE_TOMBSTONE_DELETES} is not set.",
    )
    .define(
        HANDLE_DELETES,
        ConfigType.STRING,
        "drop",
        validator=one_of(*LEGACY_MODES),
        importance=Importance.LOW,
        documentation="Deprecated (Debezium 2): drop, none (a null value) or rewrite (__deleted). Read only "
        f"when {HANDLE_TOMBSTONE_DELETES} is not set.",
        recommended_values=LEGACY_MODES,
    )
    .define(
        ROUTE_BY_FIELD,
        ConfigType.STRING,
        "",
        importance=Importance.LOW,
        documentation="The column whose value becomes the record's topic (empty: the topic is kept).",
    )
    .define(
        ADD_FIELDS_PREFIX,
        ConfigType.STRING,
        METADATA_PREFIX,
        importance=Importance.LOW,
        documentation="Prefix of the names of the fields add.fields adds.",
    )
    .define(
        ADD_FIELDS,
        ConfigType.LIST,
        "",
        importance=Importance.LOW,
        documentation="Envelope fields added to the row: op, ts_ms, source fields (lsn) or qualified ones "
        "(source.ts_ms, transaction.id), each optionally name:alias.",
    )
    .define(
        ADD_HEADERS_PREFIX,
        ConfigType.STRING,
        METADATA_PREFIX,
        importance=Importance.LOW,
        documentation="Prefix of the names of the headers add.headers adds.",
    )
    .define(
        ADD_HEADERS,
        ConfigType.LIST,
        "",
        importance=Importance.LOW,
        documentation="Envelope fields added as headers, named as in add.fields.",
    )
    .define(
        DROP_FIELDS_HEADER,
        ConfigType.STRING,
        None,
        importance=Importance.LOW,
        documentation="A header holding a list of field names to remove from the value.",
    )
    .define(
        DROP_FIELDS_FROM_KEY,
        ConfigType.BOOLEAN,
        False,
        importance=Importance.LOW,
        documentation="Whether the fields the drop header names are removed from the key too.",
    )
    .define(
        DROP_FIELDS_KEEP_SCHEMA_COMPATIBLE,
        ConfigType.BOOLEAN,
        True,
        importance=Importance.LOW,
        documentation="true: only optional fields are removed, so schemas stay compatible; false: any field named.",
    )
    .merge(REPLACE_NULL_WITH_DEFAULT_DEF)
)


def delete_handling(config: Mapping[str, Any], props: Mapping[str, str]) -> DeleteHandling:
    """The delete handling `props` ask for: `delete.tombstone.handling.mode` when given, else Debezium 2's
    two keys when either is given, else the default `tombstone`."""
    legacy = [key for key in (DROP_TOMBSTONES, HANDLE_DELETES) if props.get(key) is not None]
    if props.get(HANDLE_TOMBSTONE_DELETES) is not None or not legacy:
        if legacy:
            log.warning("%s is set, so the deprecated %s is ignored", HANDLE_TOMBSTONE_DELETES, " and ".join(legacy))
        return DeleteHandling.of_mode(config[HANDLE_TOMBSTONE_DELETES])
    log.warning(
        "The delete handling keys drop.tombstones and delete.handling.mode are deprecated (Debezium removed "
        "them in 3.0): use %s instead",
        HANDLE_TOMBSTONE_DELETES,
    )
    return DeleteHandling.of_legacy(config[DROP_TOMBSTONES], config[HANDLE_DELETES])


def extended(schema: Schema, fields: list[tuple[str, Schema]]) -> Schema:
    """`schema` with `fields` added after its own, named the same, required (Kafka's `copySchemaBasics`)."""
    own = {field.name for field in schema.fields}
    for name, _ in fields:
        if name in own:
            raise DataError(f"Cannot create field because of field name duplication {name} (in {schema.name})")
        own.add(name)
    return Schema(
        SchemaType.STRUCT,
        name=schema.name,
        version=schema.version,
        doc=schema.doc,
        fields=(*schema.fields, *(Field(name, field) for name, field in fields)),
        parameters=schema.parameters,
    )


@dataclass(frozen=True, slots=True)
class _Plan:
    """What the transform does with change events of one envelope schema."""

    row_schema: Schema  # the `after` field's: a delete in `null` mode keeps it
    row_out: Schema  # the value schema of an insert, update or read
    deleted_out: Schema | None  # of a rewritten delete
    fields: tuple[ResolvedReference, ...]
    headers: tuple[ResolvedReference, ...]
    extends: bool  # whether rows get `__deleted` or added fields


class ExtractNewRecordState(Transformation):
    """Debezium's `io.debezium.transforms.ExtractNewRecordState`."""

    def __init__(self) -> None:
        self._handling = DeleteHandling.of_mode("tombstone")
        self._fields: tuple[FieldReference, ...] = ()
        self._headers: tuple[FieldReference, ...] = ()
        self._route_by: str | None = None
        self._drop_header: str | None = None
        self._drop_from_key = False
        self._drop_optional_only = True
        self._plans: EnvelopePlans[_Plan] = EnvelopePlans(self._plan)
        self._dropped: dict[tuple[int, tuple[str, ...]], tuple[Schema, Schema]] = {}

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def configure(self, props: Mapping[str, str]) -> None:
        config = CONFIG_DEF.parse(props)
        self._handling = delete_handling(config, props)
        self._fields = parse_references(ADD_FIELDS, config[ADD_FIELDS], config[ADD_FIELDS_PREFIX])
        self._headers = parse_references(ADD_HEADERS, config[ADD_HEADERS], config[ADD_HEADERS_PREFIX])
        self._route_by = config[ROUTE_BY_FIELD] or None
        self._drop_header = config[DROP_FIELDS_HEADER] or None
        self._drop_from_key = config[DROP_FIELDS_FROM_KEY]
        self._drop_optional_only = config[DROP_FIELDS_KEEP_SCHEMA_COMPATIBLE]
        self._plans = EnvelopePlans(self._plan)

    def _plan(self, envelope: Schema) -> _Plan:
        row = field_schema(envelope, AFTER) or field_schema(envelope, BEFORE)
        if row is None or row.type is not SchemaType.STRUCT:
            raise DataError(f"The change event schema {envelope.name} has no struct field 'after' or 'before'")
        if self._route_by is not None and field_schema(row, self._route_by) is None:
            raise DataError(
                f"{ROUTE_BY_FIELD}={self._route_by} names a column that the rows of {envelope.name} do not have "
                f"(they have: {', '.join(f.name for f in row.fields)})"
            )
        fields = tuple(r for r in (ref.resolve(envelope) for ref in self._fields) if r is not None)
        headers = tuple(r for r in (ref.resolve(envelope) for ref in self._headers) if r is not None)
        added = [(r.new_name, r.schema) for r in fields]
        rewrite = self._handling.deletes == "rewrite"
        marked = [(DELETED_FIELD, OPTIONAL_STRING_SCHEMA)] if rewrite else []
        row_out = extended(row, marked + added) if marked or added else row
        before = field_schema(envelope, BEFORE) or row
        deleted_out = extended(before, marked + added) if rewrite else None
        return _Plan(row, row_out, deleted_out, fields, headers, bool(marked or added))

    def apply(self, record: SourceRecord) -> SourceRecord | None:
        return self.apply_to_copy(copy_record(record))

    def apply_to_copy(self, record: SourceRecord) -> SourceRecord | None:
        """`apply`, writing into `record`, a copy the transform chain owns."""
        envelope = record.value
        if envelope is None:
            return self._tombstone(record)
        schema = record.value_schema
        plan = self._plans.get(schema) if schema is not None else None
        if plan is None:
            return record
        if not isinstance(envelope, dict):
            raise DataError(f"A change event of topic {record.topic!r} is not a struct: {type(envelope).__name__}")
        if plan.headers:
            headers = list(record.headers)
            for ref in plan.headers:
                headers.append((ref.new_name, SchemaAndValue(ref.schema, ref.value(envelope))))
            record.headers = headers
        row = envelope.get(AFTER)
        deletes = self._handling.deletes
        value: dict[str, Any] | None
        if row is not None:
            record.value_schema = plan.row_out
            value = row if not plan.extends else self._extended(row, envelope, plan, "false")
        else:
            row = envelope.get(BEFORE)
            if row is None or deletes == "drop":  # a truncate (no row at all), or a delete to drop
                return None
            if deletes == "rewrite":
                record.value_schema = plan.deleted_out
                value = self._extended(row, envelope, plan, "true")
            else:  # `null` keeps the row's schema; `tombstone` makes a tombstone
                record.value_schema = plan.row_schema if deletes == "null" else None
                value = None
        record.value = value
        if self._route_by is not None:
            self._route(record, row)
        if self._drop_header is not None:
            self._drop_fields(record)
        return record

    def _extended(self, row: dict[str, Any], envelope: dict[str, Any], plan: _Plan, deleted: str) -> dict[str, Any]:
        """`row` with `__deleted` (rewriting) and the added fields."""
        value = dict(row)
        if self._handling.deletes == "rewrite":
            value[DELETED_FIELD] = deleted
        for ref in plan.fields:
            value[ref.new_name] = ref.value(envelope)
        return value

    def _tombstone(self, record: SourceRecord) -> SourceRecord | None:
        ops = [ref.new_name for ref in self._headers if ref.field == OP]
        if ops:
            record.headers = [*record.headers, *((name, SchemaAndValue(STRING_SCHEMA, "d")) for name in ops)]
        return record if self._handling.keep_tombstones else None

    def _route(self, record: SourceRecord, row: dict[str, Any]) -> None:
        topic = row.get(self._route_by)  # type: ignore[arg-type]
        if topic is None or (isinstance(topic, str) and not topic.strip()):
            return
        if not isinstance(topic, str):
            raise DataError(
                f"{ROUTE_BY_FIELD}={self._route_by}: the column holds {type(topic).__name__} {topic!r}, "
                f"not a topic name (record of topic {record.topic!r})"
            )
        record.topic = topic

    def _drop_fields(self, record: SourceRecord) -> None:
        names = next((value for name, value in record.headers if name == self._drop_header), None)
        if isinstance(names, SchemaAndValue):
            names = names.value
        if not names:
            return
        if not isinstance(names, list):
            raise DataError(f"The header {self._drop_header} ({DROP_FIELDS_HEADER}) is not a list of field names")
        wanted = tuple(str(name) for name in names)
        if self._drop_from_key and isinstance(record.key, dict) and record.key_schema is not None:
            record.key_schema, record.key = self._without(record.key_schema, record.key, wanted)
        if isinstance(record.value, dict) and record.value_schema is not None:
            record.value_schema, record.value = self._without(record.value_schema, record.value, wanted)

    def _without(self, schema: Schema, struct: dict[str, Any], names: tuple[str, ...]) -> tuple[Schema, Any]:
        """`schema` and `struct` without the fields `names` lists (only optional ones, to stay compatible)."""
        cached = self._dropped.get((id(schema), names))
        if cached is None or cached[0] is not schema:
            dropped = {
                f.name for f in schema.fields if f.name in names and (f.schema.optional or not self._drop_optional_only)
            }
            kept = tuple(f for f in schema.fields if f.name not in dropped)
            slim = (
                schema
                if not dropped
                else Schema(SchemaType.STRUCT, name=schema.name, version=schema.version, doc=schema.doc, fields=kept)
            )
            if len(self._dropped) >= 64:
                self._dropped.clear()
            cached = self._dropped[(id(schema), names)] = (schema, slim)
        slim = cached[1]
        if slim is schema:
            return schema, struct
        return slim, {f.name: struct.get(f.name) for f in slim.fields}

    def plan_route(self, record: SourceRecord) -> SourceRecord | None:
        """For the topic plan, given a record with only a topic: the topic is kept unless `route.by.field`
        routes by the row's data, which such a record does not have."""
        if self._route_by is not None:
            raise DataError(
                f"{ROUTE_BY_FIELD}={self._route_by} routes each record by its row: give a sample record "
                "(connectworker plan --record) to plan its topics"
            )
        return record
