"""`MaskField$Key` / `MaskField$Value`: replace the value of some fields of the key (or value) by an
empty value of their type, or by a configured replacement.

Kafka's keys: `fields` (required, non-empty list), `replacement` (optional, non-empty) and
`replace.null.with.default` (boolean, default true; accepted for compatibility, as schemas here carry
no default values). As in Kafka:

- without `replacement`, a field becomes its type's "zero": 0 (0.0) for numbers, false, "", an empty
  list or map, ``Decimal(0)``, and the epoch for the Date, Time and Timestamp logical types
  (1970-01-01, 00:00, 1970-01-01T00:00Z); bytes and structs cannot be masked;
- with `replacement`, a string field takes it as it is and a numeric field takes it parsed as a number
  (``1e3`` and ``12.0`` are numbers; an integer field drops the fraction, as Java's `longValue` does);
  other types cannot take a replacement;
- a null field stays null; schemaless, a masked field the map lacks is added as null (Kafka puts the
  masked value of the absent entry); with a schema the schema is unchanged;
- the key (or value) must be a map, or a struct with a schema: a null key (or value) is a `DataError`,
  as in Kafka (make the transform conditional on the `RecordIsTombstone` predicate to skip tombstones).

A type is read from the field's schema when there is one (so an int8 field refuses a replacement that
does not fit 8 bits, where Kafka would wrap it around), from the value's Python type otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, non_empty_list, non_empty_string
from connectworker.api.errors import DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Schema, SchemaType
from connectworker.api.transform import Transformation
from connectworker.converters import logical
from connectworker.transforms.null_defaults import REPLACE_NULL_WITH_DEFAULT_DEF
from connectworker.transforms.side import Side, require_map, require_struct, schema_of, with_side

__all__ = ["MaskFieldKey", "MaskFieldValue"]

FIELDS_CONFIG = "fields"
REPLACEMENT_CONFIG = "replacement"
PURPOSE = "mask fields"

# What Java's `new BigDecimal(String)` accepts, which Python's `Decimal` widens (NaN, underscores, ...).
_JAVA_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def _decimal(text: str) -> Decimal:
    if not _JAVA_DECIMAL.fullmatch(text):
        raise ValueError("not a number")
    return Decimal(text)


def _integer(bits: int) -> Callable[[str], int]:
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1

    def parse(text: str) -> int:
        number = _decimal(text)
        # `adjusted` first: int() of a number like 1e999999999 would build a huge integer.
        if number.adjusted() > 19 or not low <= int(number) <= high:
            raise ValueError(f"out of range for a {bits}-bit integer ({low}..{high})")
        return int(number)  # drops the fraction, as Java's BigDecimal.longValue does

    return parse


@dataclass(frozen=True, slots=True)
class _Kind:
    """How a field of one type is masked: `zero` builds the empty value (a fresh list or map each time),
    `parse` turns the replacement into the type, None when the type takes no replacement."""

    name: str
    zero: Callable[[], Any]
    parse: Callable[[str], Any] | None = None


_BOOLEAN = _Kind("boolean", lambda: False)
_FLOAT = _Kind("float", lambda: 0.0, lambda text: float(_decimal(text)))
_STRING = _Kind("string", lambda: "", lambda text: text)
_DECIMAL = _Kind("decimal", lambda: Decimal(0), _decimal)
_TIMESTAMP = _Kind("timestamp", lambda: datetime(1970, 1, 1, tzinfo=UTC))
_DATE = _Kind("date", lambda: date(1970, 1, 1))
_TIME = _Kind("time", lambda: time(0))
_ARRAY = _Kind("array", list)
_MAP = _Kind("map", dict)
_INTEGERS = {SchemaType.INT8: 8, SchemaType.INT16: 16, SchemaType.INT32: 32, SchemaType.INT64: 64}
_BY_SCHEMA = {
    **{t: _Kind(t.value, lambda: 0, _integer(bits)) for t, bits in _INTEGERS.items()},
    SchemaType.FLOAT32: _FLOAT,
    SchemaType.FLOAT64: _FLOAT,
    SchemaType.BOOLEAN: _BOOLEAN,
    SchemaType.STRING: _STRING,
    SchemaType.ARRAY: _ARRAY,
    SchemaType.MAP: _MAP,
}
_BY_LOGICAL = {logical.TIMESTAMP: _TIMESTAMP, logical.DATE: _DATE, logical.TIME: _TIME}
_INT = _Kind("integer", lambda: 0, _integer(64))  # a schemaless int: Java's widest, a long


def _kind_of_value(value: Any) -> _Kind | None:
    # Order matters: bool is an int, and datetime is a date.
    for python_type, kind in (
        (bool, _BOOLEAN),
        (int, _INT),
        (float, _FLOAT),
        (str, _STRING),
        (Decimal, _DECIMAL),
        (datetime, _TIMESTAMP),
        (date, _DATE),
        (time, _TIME),
        (list, _ARRAY),
        (dict, _MAP),
    ):
        if isinstance(value, python_type):
            return kind
    return None


def _kind_of(schema: Schema | None, value: Any) -> _Kind | None:
    if schema is None:
        return _kind_of_value(value)
    name = logical.logical_name(schema)
    if name is not None:
        return _BY_LOGICAL[name]
    kind = _BY_SCHEMA.get(schema.type)
    if kind is not None:
        return kind
    # Bytes and structs cannot be masked, but for a Decimal value (Kafka's Decimal is bytes underneath).
    return _DECIMAL if isinstance(value, Decimal) else None


class MaskField(Transformation):
    """Shared by the `$Key` and `$Value` variants; `_side` says which half of the record they change."""

    _side: Side

    def __init__(self) -> None:
        self._fields: tuple[str, ...] = ()
        self._replacement: str | None = None

    def config_def(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(
                FIELDS_CONFIG,
                ConfigType.LIST,
                validator=non_empty_list,
                importance=Importance.HIGH,
                documentation="Names of fields to mask.",
            )
            .define(
                REPLACEMENT_CONFIG,
                ConfigType.STRING,
                None,
                validator=non_empty_string,
                importance=Importance.LOW,
                documentation="Custom value replacement, that will be applied to all 'fields' values "
                "(numeric or non-empty string values only).",
            )
            .merge(REPLACE_NULL_WITH_DEFAULT_DEF)
        )

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        self._fields = tuple(dict.fromkeys(config[FIELDS_CONFIG]))
        self._replacement = config[REPLACEMENT_CONFIG]

    def apply(self, record: SourceRecord) -> SourceRecord:
        if schema_of(record, self._side) is None:
            value = require_map(record, self._side, PURPOSE)
            updated = dict(value)
            for name in self._fields:
                updated[name] = self._masked(name, value.get(name), None)
            return with_side(record, self._side, updated, None)
        struct, schema = require_struct(record, self._side, PURPOSE)
        masked = set(self._fields)
        updated = {
            field.name: self._masked(field.name, struct.get(field.name), field.schema)
            if field.name in masked
            else struct.get(field.name)
            for field in schema.fields
        }
        return with_side(record, self._side, updated, schema)

    def _masked(self, name: str, value: Any, schema: Schema | None) -> Any:
        if value is None:
            return None
        kind = _kind_of(schema, value)
        if kind is None:
            described = schema.type.value if schema is not None else type(value).__name__
            raise DataError(f"Cannot mask value of type: {described} (field {name!r})")
        if self._replacement is None:
            return kind.zero()
        if kind.parse is None:
            raise DataError(
                f"Cannot mask value of type {kind.name} with custom replacement (field {name!r}; "
                f"{REPLACEMENT_CONFIG} applies to numeric and string fields only)."
            )
        try:
            return kind.parse(self._replacement)
        except ValueError as exc:
            raise DataError(
                f"Unable to convert {self._replacement} ({REPLACEMENT_CONFIG}) to {kind.name} for field {name!r}: {exc}"
            ) from None


class MaskFieldKey(MaskField):
    """Masks fields of the record key (Kafka's `MaskField$Key`)."""

    _side = Side.KEY


class MaskFieldValue(MaskField):
    """Masks fields of the record value (Kafka's `MaskField$Value`)."""

    _side = Side.VALUE
