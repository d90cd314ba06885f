"""Connect values as Java's `toString()` writes them: what Kafka's `StringConverter` writes for a value
that is not a string (it calls `value.toString()`), as a record key, value or header.

- booleans ``true``/``false``; integers in decimal; floats as `Double.toString` (or `Float.toString`
  under a float32 schema) writes them: ``1.0``, ``1.0E10``; a `Decimal` as `BigDecimal.toString`;
- lists as `AbstractCollection.toString`: ``[a, 1, null]`` (strings unquoted);
- maps as `AbstractMap.toString`: ``{a=1, b=null}``, in the dict's order (a Java `HashMap` iterates in
  hash order, so Kafka's order may differ for maps of several keys);
- structs as Connect's `Struct.toString`: ``Struct{a=1,b=x}``, fields in schema order, null fields left out;
- Date, Time and Timestamp values as `java.util.Date.toString` in UTC: ``Fri Jan 31 10:15:30 UTC 2020``
  (Kafka uses the JVM's default zone, UTC on most servers).

Bytes are not handled here: `StringConverter` passes them through (Java would write ``[B@1b6d3586``);
inside a list, map or struct they are refused. Any other object is written as its `str()`.
"""

from __future__ import annotations

from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from connectworker.api.errors import DataError
from connectworker.api.schema import Schema, SchemaType
from connectworker.converters import logical
from connectworker.converters.java_date_format import JavaDateFormat, TimestampOutOfRange
from connectworker.converters.values_text import float32, java_float_text

__all__ = ["java_to_string"]

_DATE_TO_STRING = JavaDateFormat.compile("EEE MMM dd HH:mm:ss zzz yyyy")
_MILLIS_PER_DAY = 86_400_000


def java_to_string(value: Any, schema: Schema | None) -> str:
    """`value` (described by `schema`, or schemaless) as Java's `toString()` writes it; `value` is not None."""
    out: list[str] = []
    _append(out, value, schema)
    return "".join(out)


def _append(out: list[str], value: Any, schema: Schema | None) -> None:
    kind = schema.type if schema is not None else None
    if value is None:
        out.append("null")
    elif isinstance(value, str):
        out.append(value)
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int | float) and kind is SchemaType.FLOAT32:
        out.append(java_float_text(float32(value), single=True))
    elif isinstance(value, float) or (isinstance(value, int) and kind is SchemaType.FLOAT64):
        out.append(java_float_text(float(value), single=False))
    elif isinstance(value, int | Decimal):
        out.append(str(value))
    elif isinstance(value, list | tuple):
        items = schema.value_schema if schema is not None else None
        out.append("[")
        for i, item in enumerate(value):
            out.append(", " if i else "")
            _append(out, item, items)
        out.append("]")
    elif isinstance(value, dict) and kind is SchemaType.STRUCT:
        assert schema is not None
        present = [(f.name, f.schema) for f in schema.fields if value.get(f.name) is not None]
        out.append("Struct{")
        for i, (name, field_schema) in enumerate(present):
            out.append("," if i else "")
            out.append(name + "=")
            _append(out, value[name], field_schema)
        out.append("}")
    elif isinstance(value, dict):
        keys, values = (schema.key_schema, schema.value_schema) if schema is not None else (None, None)
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            out.append(", " if i else "")
            _append(out, key, keys)
            out.append("=")
            _append(out, item, values)
        out.append("}")
    elif isinstance(value, date | time):
        out.append(_date_text(value))
    elif isinstance(value, bytes | bytearray | memoryview):
        raise DataError("bytes inside a list, map or struct have no text form (Java writes an object id)")
    else:  # an object of the task's own (a UUID, ...): its str(), as Java calls its toString()
        out.append(str(value))


def _date_text(value: date | time) -> str:
    if isinstance(value, datetime):
        millis = logical.to_wire(logical.TIMESTAMP, value)
    elif isinstance(value, date):
        millis = logical.to_wire(logical.DATE, value) * _MILLIS_PER_DAY
    else:
        millis = logical.to_wire(logical.TIME, value)
    try:
        return _DATE_TO_STRING.format(millis)
    except TimestampOutOfRange as exc:
        raise DataError(f"Cannot write {value!r} as text: {exc}") from None
