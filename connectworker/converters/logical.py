"""Kafka Connect's logical types Date, Time and Timestamp, as Python `date`, `time` and `datetime`.

A logical type is a primitive schema with a reserved name; the wire carries the primitive (days since the
epoch, milliseconds since midnight, milliseconds since the epoch). Naive datetimes are taken to be UTC,
because Kafka's `java.util.Date` is an instant and the host's local zone must not leak into the data.
`Decimal` is not one of them here: a source that writes one (the PostgreSQL CDC connector) hands on its
wire form, the unscaled value's bytes, with the `scale` schema parameter, and the converters write those
bytes as Kafka writes a `BigDecimal`.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from connectworker.api.schema import Schema, SchemaType

DATE = "org.apache.kafka.connect.data.Date"
TIME = "org.apache.kafka.connect.data.Time"
TIMESTAMP = "org.apache.kafka.connect.data.Timestamp"

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_MILLIS_PER_DAY = 86_400_000
_ONE_MS = timedelta(milliseconds=1)

# The primitive each logical type is stored as; a schema with the name but another type is not logical.
_UNDERLYING = {DATE: SchemaType.INT32, TIME: SchemaType.INT32, TIMESTAMP: SchemaType.INT64}


def logical_name(schema: Schema) -> str | None:
    """The logical type `schema` denotes, or None for a plain schema."""
    name = schema.name
    if name is not None and _UNDERLYING.get(name) is schema.type:
        return name
    return None


class LogicalValueError(ValueError):
    """A value does not fit its logical type; the message says why."""


def to_wire(name: str, value: Any) -> int:
    """The integer Kafka stores for `value` of logical type `name`."""
    if name == TIMESTAMP:
        if not isinstance(value, datetime):
            raise LogicalValueError(f"expected datetime.datetime for {TIMESTAMP}, got {type(value).__name__}")
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return (aware - _EPOCH) // _ONE_MS
    if name == DATE:
        if isinstance(value, datetime):
            aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
            midnight = aware.astimezone(UTC)
            if midnight.time() != time(0):
                raise LogicalValueError(
                    "Kafka Connect Date type should not have any time fields set to "
                    f"non-zero values, got {value.isoformat()}"
                )
            return midnight.date().toordinal() - _EPOCH_ORDINAL
        if not isinstance(value, date):
            raise LogicalValueError(f"expected datetime.date for {DATE}, got {type(value).__name__}")
        return value.toordinal() - _EPOCH_ORDINAL
    if not isinstance(value, time):
        raise LogicalValueError(f"expected datetime.time for {TIME}, got {type(value).__name__}")
    millis = ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
    offset = value.utcoffset()
    if offset:
        millis = (millis - offset // _ONE_MS) % _MILLIS_PER_DAY
    return millis


def from_wire(name: str, raw: int) -> date | time | datetime:
    """The Python value for the integer Kafka stores for logical type `name`."""
    if name == TIMESTAMP:
        return _EPOCH + timedelta(milliseconds=raw)
    if name == DATE:
        return date.fromordinal(_EPOCH_ORDINAL + raw)
    if not 0 <= raw < _MILLIS_PER_DAY:
        raise LogicalValueError(f"{TIME} values must be milliseconds in [0, 86400000), got {raw}")
    return (datetime.min + timedelta(milliseconds=raw)).time()
