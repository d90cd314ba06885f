"""`TimestampConverter$Key` / `TimestampConverter$Value`: convert a timestamp between Unix time, text
and Connect's Date, Time and Timestamp, for the whole key (or value) or one top-level field of it.

Kafka's keys: `target.type` (required: ``string``, ``unix``, ``Date``, ``Time`` or ``Timestamp``, case
as written), `field` (default empty: the whole key or value), `format` (a `java.text.SimpleDateFormat`
pattern, in UTC; required when the target is ``string``, and used to read string input),
`unix.precision` (``seconds``, ``milliseconds`` (default), ``microseconds`` or ``nanoseconds``: of
Unix input and output) and `replace.null.with.default` (accepted without effect: schemas here carry no
default values).

As in Kafka, every conversion goes through an instant in milliseconds (finer input is truncated):

- the input's kind comes from its schema (the logical name, else a STRING is text and an INT64 Unix
  time; anything else is refused), or, without a schema, from the value: a `datetime`, `date` or
  `time` is a Timestamp, an `int` Unix time, a `str` text;
- Date keeps the UTC day (a `date`), Time the time of day (a `time` on no day), Timestamp the instant
  (an aware UTC `datetime`); Unix time is truncated toward zero into coarser units and saturates at
  the long range into finer ones, as Java's `TimeUnit` does;
- with a schema, the converted schema is the target's (optional when the original was); in a struct
  only the field's schema changes. Without a schema, a `field` missing from the map is added as null,
  as Kafka does. A null converts to null.

Text is formatted and read with `java_date_format` (Java's `SimpleDateFormat`, lenient, in UTC; see
there for what is read and what is refused).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, time
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance, one_of
from connectworker.api.errors import ConfigError, DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Field, Schema, SchemaType
from connectworker.api.transform import Transformation
from connectworker.converters import logical
from connectworker.converters.encoding import SchemaCache
from connectworker.converters.java_date_format import (
    JavaDateFormat,
    JavaDateParser,
    PatternMismatch,
    TimestampOutOfRange,
)
from connectworker.transforms.null_defaults import REPLACE_NULL_WITH_DEFAULT_DEF
from connectworker.transforms.side import Side, require_map, require_struct, schema_of, value_of, with_side

__all__ = ["TimestampConverterKey", "TimestampConverterValue"]

FIELD_CONFIG = "field"
TARGET_TYPE_CONFIG = "target.type"
FORMAT_CONFIG = "format"
UNIX_PRECISION_CONFIG = "unix.precision"
PURPOSE = "converting timestamp formats"

STRING, UNIX, DATE, TIME, TIMESTAMP = "string", "unix", "Date", "Time", "Timestamp"
SECONDS, MILLISECONDS, MICROSECONDS, NANOSECONDS = "seconds", "milliseconds", "microseconds", "nanoseconds"

_MILLIS_PER_DAY = 86_400_000
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_LOGICAL_KINDS = {logical.TIMESTAMP: TIMESTAMP, logical.DATE: DATE, logical.TIME: TIME}


# -- the conversions ------------------------------------------------------------------------------
def _trunc_div(value: int, divisor: int) -> int:
    """Integer division rounding toward zero, as Java's."""
    quotient = abs(value) // divisor
    return quotient if value >= 0 else -quotient


def _saturate(value: int) -> int:
    return max(_LONG_MIN, min(_LONG_MAX, value))


_FROM_UNIX: dict[str, Callable[[int], int]] = {
    SECONDS: lambda v: _saturate(v * 1000),
    MILLISECONDS: lambda v: v,
    MICROSECONDS: lambda v: _trunc_div(v, 1000),
    NANOSECONDS: lambda v: _trunc_div(v, 1_000_000),
}
_TO_UNIX: dict[str, Callable[[int], int]] = {
    SECONDS: lambda ms: _trunc_div(ms, 1000),
    MILLISECONDS: lambda ms: ms,
    MICROSECONDS: lambda ms: _saturate(ms * 1000),
    NANOSECONDS: lambda ms: _saturate(ms * 1_000_000),
}


def _type_schema(kind: str, optional: bool) -> Schema:
    """The schema of a converted value (Kafka's logical schemas are version 1)."""
    if kind == STRING:
        return Schema(SchemaType.STRING, optional)
    if kind == UNIX:
        return Schema(SchemaType.INT64, optional)
    name = {DATE: logical.DATE, TIME: logical.TIME, TIMESTAMP: logical.TIMESTAMP}[kind]
    return Schema(SchemaType.INT64 if kind == TIMESTAMP else SchemaType.INT32, optional, name, version=1)


def _kind_of_schema(schema: Schema) -> str:
    """The input kind a schema says (by logical name first, as Kafka looks only at the name)."""
    if schema.name in _LOGICAL_KINDS:
        return _LOGICAL_KINDS[schema.name]
    if schema.type is SchemaType.STRING:
        return STRING
    if schema.type is SchemaType.INT64:
        return UNIX
    described = f"{schema.name}:{schema.type.name}" if schema.name else schema.type.name
    raise DataError(f"Schema Schema{{{described}}} does not correspond to a known timestamp type format")


def _kind_of_value(value: Any) -> str:
    """The input kind of a schemaless value; Kafka can tell only java.util.Date (a Timestamp), Long, String."""
    if isinstance(value, date | time):
        return TIMESTAMP
    if isinstance(value, int) and not isinstance(value, bool):
        return UNIX
    if isinstance(value, str):
        return STRING
    raise DataError(f"TimestampConverter does not support {type(value).__name__} objects as timestamps")


def _instant_millis(kind: str, value: Any) -> int:
    """Milliseconds since the epoch of a Date, Time or Timestamp value (any of the three Python types)."""
    if isinstance(value, datetime):
        return logical.to_wire(logical.TIMESTAMP, value if value.tzinfo else value.replace(tzinfo=UTC))
    if isinstance(value, date):
        return (value.toordinal() - _EPOCH_ORDINAL) * _MILLIS_PER_DAY
    if isinstance(value, time):
        return logical.to_wire(logical.TIME, value)
    raise DataError(
        f"Expected {kind} to be a datetime.datetime, datetime.date or datetime.time, but found {type(value).__name__}"
    )


class TimestampConverter(Transformation):
    """Shared by the `$Key` and `$Value` variants; `_side` says which half of the record they convert."""

    _side: Side

    def __init__(self) -> None:
        self._field = ""
        self._target = TIMESTAMP
        self._precision = MILLISECONDS
        self._formatter: JavaDateFormat | None = None
        self._parser: JavaDateParser | None = None
        self._schemas: SchemaCache[Schema] = SchemaCache(self._struct_schema, max_size=16)

    def config_def(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(
                FIELD_CONFIG,
                ConfigType.STRING,
                "",
                importance=Importance.HIGH,
                documentation="The field containing the timestamp, or empty if the entire value is a timestamp",
            )
            .define(
                TARGET_TYPE_CONFIG,
                ConfigType.STRING,
                validator=one_of(STRING, UNIX, DATE, TIME, TIMESTAMP, case_sensitive=True),
                importance=Importance.HIGH,
                documentation="The desired timestamp representation: string, unix, Date, Time, or Timestamp",
            )
            .define(
                FORMAT_CONFIG,
                ConfigType.STRING,
                "",
                importance=Importance.MEDIUM,
                documentation="A SimpleDateFormat-compatible format for the timestamp. Used to generate the "
                "output when type=string or used to parse the input if the input is a string.",
            )
            .define(
                UNIX_PRECISION_CONFIG,
                ConfigType.STRING,
                MILLISECONDS,
                validator=one_of(NANOSECONDS, MICROSECONDS, MILLISECONDS, SECONDS, case_sensitive=True),
                importance=Importance.LOW,
                documentation="The desired Unix precision for the timestamp: seconds, milliseconds, "
                "microseconds, or nanoseconds. Used to generate the output when type=unix or "
                "used to parse the input if the input is a Long. Sub-millisecond parts are "
                "lost in conversions from, and to, such values.",
            )
            .merge(REPLACE_NULL_WITH_DEFAULT_DEF)
        )

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        pattern: str = config[FORMAT_CONFIG]
        if config[TARGET_TYPE_CONFIG] == STRING and not pattern.strip():
            raise ConfigError(
                {
                    FORMAT_CONFIG: "TimestampConverter requires format option to be specified when "
                    "using string timestamps"
                }
            )
        formatter = parser = None
        if pattern.strip():
            try:
                formatter = JavaDateFormat.compile(pattern)
            except ValueError as exc:
                raise ConfigError(
                    {
                        FORMAT_CONFIG: "TimestampConverter requires a SimpleDateFormat-compatible "
                        f"pattern for string timestamps: {pattern} ({exc})"
                    }
                ) from None
            # Java fixes the two-digit-year century when the format is made, at configure time.
            parser = JavaDateParser(pattern, datetime.now(UTC))
        self._field, self._target = config[FIELD_CONFIG], config[TARGET_TYPE_CONFIG]
        self._precision = config[UNIX_PRECISION_CONFIG]
        self._formatter, self._parser = formatter, parser
        self._schemas = SchemaCache(self._struct_schema, max_size=16)

    # -- records --
    def apply(self, record: SourceRecord) -> SourceRecord:
        schema, value = schema_of(record, self._side), value_of(record, self._side)
        if schema is None:
            if value is None or not self._field:
                return with_side(record, self._side, self._convert(value, None), None)
            updated = dict(require_map(record, self._side, PURPOSE))
            updated[self._field] = self._convert(updated.get(self._field), None)
            return with_side(record, self._side, updated, None)
        if not self._field:
            converted = self._convert(value, _kind_of_schema(schema))
            return with_side(record, self._side, converted, _type_schema(self._target, schema.optional))
        if value is None:
            if schema.type is not SchemaType.STRUCT:
                raise DataError(
                    f"Cannot list fields on non-struct type {schema.type.name} (record "
                    f"{self._side.value} on topic {record.topic!r}, field {self._field!r})"
                )
            return with_side(record, self._side, None, self._schemas.get(schema))
        struct, schema = require_struct(record, self._side, PURPOSE)
        converted = {}
        for field in schema.fields:
            field_value = struct.get(field.name)
            if field.name == self._field:
                field_value = self._convert(field_value, _kind_of_schema(field.schema))
            converted[field.name] = field_value
        return with_side(record, self._side, converted, self._schemas.get(schema))

    def _struct_schema(self, schema: Schema) -> Schema:
        fields = tuple(
            Field(f.name, _type_schema(self._target, f.schema.optional)) if f.name == self._field else f
            for f in schema.fields
        )
        return dataclasses.replace(schema, fields=fields)

    # -- values --
    def _convert(self, value: Any, kind: str | None) -> Any:
        """`value` of `kind` (None: inferred from the value) as the target kind; None stays None."""
        if value is None:
            return None
        return self._from_millis(self._to_millis(value, kind or _kind_of_value(value)))

    def _to_millis(self, value: Any, kind: str) -> int:
        if kind == STRING:
            if not isinstance(value, str):
                raise DataError(f"Expected string timestamp to be a String, but found {type(value).__name__}")
            if self._parser is None:
                raise DataError(
                    f"TimestampConverter requires the {FORMAT_CONFIG} option to read the string timestamp {value!r}"
                )
            try:
                return self._parser.parse(value)
            except PatternMismatch:
                raise DataError(
                    f"Could not parse timestamp: value ({value}) does not match pattern ({self._parser.pattern})"
                ) from None
            except DataError as exc:
                raise DataError(
                    f"Could not parse timestamp: value ({value}) with pattern ({self._parser.pattern}): {exc}"
                ) from None
        if kind == UNIX:
            if not isinstance(value, int) or isinstance(value, bool) or not _LONG_MIN <= value <= _LONG_MAX:
                found = type(value).__name__ if not isinstance(value, int) else f"{value!r} (not a 64-bit long)"
                raise DataError(f"Expected Unix timestamp to be a Long, but found {found}")
            return _FROM_UNIX[self._precision](value)
        return _instant_millis(kind, value)

    def _from_millis(self, millis: int) -> Any:
        target = self._target
        if target == UNIX:
            return _TO_UNIX[self._precision](millis)
        if target == STRING:
            if self._formatter is None:  # configure refuses a string target without a format
                raise DataError("TimestampConverter has no format to write string timestamps with")
            try:
                return self._formatter.format(millis)
            except TimestampOutOfRange as exc:
                raise DataError(
                    f"Cannot format timestamp with {FORMAT_CONFIG} ({self._formatter.pattern}): {exc}"
                ) from None
        if target == TIME:
            return logical.from_wire(logical.TIME, millis % _MILLIS_PER_DAY)
        try:
            if target == DATE:
                return logical.from_wire(logical.DATE, millis // _MILLIS_PER_DAY)
            return logical.from_wire(logical.TIMESTAMP, millis)
        except (OverflowError, ValueError):
            raise DataError(
                f"Timestamp {millis} ms since the epoch is outside the range of a Python "
                f"{'date' if target == DATE else 'datetime'} (years 1 to 9999)"
            ) from None


class TimestampConverterKey(TimestampConverter):
    """Converts the record key, or a field of it (Kafka's `TimestampConverter$Key`)."""

    _side = Side.KEY


class TimestampConverterValue(TimestampConverter):
    """Converts the record value, or a field of it (Kafka's `TimestampConverter$Value`)."""

    _side = Side.VALUE
