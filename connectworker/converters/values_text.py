"""Connect values as Kafka writes them as text (`Values.convertToString`), the text the worker's default
header converter, `SimpleHeaderConverter`, writes and the text Kafka's `Cast` gives for a cast to string:

- null stays null (no text); a string is written as it is;
- booleans and integers as Java prints them, floats as `Double.toString` (or `Float.toString` under a
  float32 schema) prints them: ``true``, ``42``, ``1.0``, ``1.0E10``;
- bytes in base64, as text (not the raw bytes);
- a Date, Time or Timestamp as ISO 8601 in UTC: ``2020-01-31``, ``10:15:30.000Z`` or
  ``2020-01-31T10:15:30.000Z``, chosen by the instant as Kafka chooses (a time before the second day of
  1970, a date at a midnight, else a timestamp);
- arrays, maps and structs in Kafka's JSON-like form, strings inside them quoted and escaped (``\\`` and
  ``"``): ``[1,2]``, ``{"a":1,"b":null}``; a struct's fields in schema order.

Also here, as Java's number printing needs them: `java_float_text` (`Double.toString` /
`Float.toString`) and `float32` (a double rounded to the float Java would hold).
"""

from __future__ import annotations

import base64
import math
import struct
from collections.abc import Callable
from datetime import date, datetime, time
from functools import lru_cache
from typing import Any

from connectworker.api.errors import DataError
from connectworker.api.schema import Schema, SchemaType
from connectworker.converters import logical
from connectworker.converters.java_date_format import JavaDateFormat, TimestampOutOfRange

__all__ = ["JAVA_BLANKS", "float32", "java_float_text", "value_text"]

_MILLIS_PER_DAY = 86_400_000
_FLOATS = (SchemaType.FLOAT32, SchemaType.FLOAT64)
_NUMBERS = (int, float)
_BINARY = (bytes, bytearray, memoryview)
_SEQUENCES = (list, tuple)
_TEMPORAL = (date, time)
_FLOAT32 = struct.Struct("<f")
# Kafka's `Values` formats: by instant, a time of day, a date or a timestamp.
_TIME_TEXT = JavaDateFormat.compile("HH:mm:ss.SSS'Z'")
_DATE_TEXT = JavaDateFormat.compile("yyyy-MM-dd")
_TIMESTAMP_TEXT = JavaDateFormat.compile("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")

JAVA_BLANKS = "".join(chr(code) for code in range(0x21))
"""What Java's `String.trim()` removes: every character up to and including the space."""


def value_text(value: Any, schema: Schema | None) -> str | None:
    """`value` (described by `schema`, or schemaless) as Kafka's `Values.convertToString` writes it;
    `DataError` for a value Connect has no type for."""
    if value is None:
        return None
    kind = type(value)  # the common scalars first, without the general walk
    if kind is str:
        text: str = value
        return text
    if kind is int and (schema is None or schema.type not in _FLOATS):
        return str(value)
    if kind is bool:
        return "true" if value else "false"
    out: list[str] = []
    _append(out, value, schema, embedded=False)
    return "".join(out)


def _append(out: list[str], value: Any, schema: Schema | None, *, embedded: bool) -> None:
    """`embedded`: inside an array, map or struct, where strings and bytes are quoted."""
    kind = schema.type if schema is not None else None
    if value is None:
        out.append("null")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, _NUMBERS) and kind is SchemaType.FLOAT32:
        # Python holds a float32 field in a double (or an int); Java holds, and prints, a Float.
        out.append(java_float_text(float32(value), single=True))
    elif isinstance(value, _NUMBERS) and kind is SchemaType.FLOAT64:
        out.append(java_float_text(float(value), single=False))
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        out.append(java_float_text(value, single=False))
    elif isinstance(value, str):
        out.append('"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"' if embedded else value)
    elif isinstance(value, _BINARY):
        encoded = base64.b64encode(bytes(value)).decode("ascii")
        out.append(f'"{encoded}"' if embedded else encoded)
    elif isinstance(value, _SEQUENCES):
        items = schema.value_schema if schema is not None else None
        out.append("[")
        for i, item in enumerate(value):
            out.append("," if i else "")
            _append(out, item, items, embedded=True)
        out.append("]")
    elif isinstance(value, dict) and schema is not None and schema.type is SchemaType.STRUCT:
        out.append("{")
        for i, field in enumerate(schema.fields):
            out.append("," if i else "")
            _append(out, field.name, None, embedded=True)
            out.append(":")
            _append(out, value.get(field.name), field.schema, embedded=True)
        out.append("}")
    elif isinstance(value, dict):
        keys, values = (schema.key_schema, schema.value_schema) if schema is not None else (None, None)
        out.append("{")
        for i, (key, item) in enumerate(value.items()):
            out.append("," if i else "")
            _append(out, key, keys, embedded=True)
            out.append(":")
            _append(out, item, values, embedded=True)
        out.append("}")
    elif isinstance(value, _TEMPORAL):
        out.append(_instant_text(value))
    else:
        raise DataError(f"Failed to serialize unexpected value type {type(value).__name__}: {value!r}")


def _instant_text(value: date | time) -> str:
    """Kafka chooses the form by the instant, so a Timestamp before 1970-01-02 (even a negative one)
    prints as a time of day; that is kept, since it is what Kafka writes. A time of day is the same in
    every calendar, so it is formatted from the millisecond of the day: Java's Julian dates before
    1582-10-15 do not matter to it."""
    if isinstance(value, datetime):
        millis = logical.to_wire(logical.TIMESTAMP, value)
    elif isinstance(value, date):
        millis = logical.to_wire(logical.DATE, value) * _MILLIS_PER_DAY
    else:
        millis = logical.to_wire(logical.TIME, value)
    try:
        if millis < _MILLIS_PER_DAY:
            return _TIME_TEXT.format(millis % _MILLIS_PER_DAY)
        return (_DATE_TEXT if millis % _MILLIS_PER_DAY == 0 else _TIMESTAMP_TEXT).format(millis)
    except TimestampOutOfRange as exc:
        raise DataError(f"Cannot write {value!r} as text: {exc}") from None


# -- Java's numbers -----------------------------------------------------------------------------
def float32(number: float) -> float:
    """`number` rounded to the nearest single-precision float (to infinity beyond its range, as Java)."""
    try:
        rounded: float = _FLOAT32.unpack(_FLOAT32.pack(number))[0]
    except OverflowError:
        return math.copysign(math.inf, number)
    return rounded


def java_float_text(number: float, *, single: bool) -> str:
    """`number` as Java's `Double.toString` (or `Float.toString` when `single`) writes it: the shortest
    digits that read back to the same value, plain between 10**-3 and 10**7, else ``d.dddE±n``."""
    if math.isnan(number):
        return "NaN"
    if math.isinf(number):
        return "Infinity" if number > 0 else "-Infinity"
    sign = "-" if math.copysign(1.0, number) < 0 else ""
    if number == 0:
        return sign + "0.0"
    digits, exponent = _shortest_digits(abs(number), single)
    if 1e-3 <= abs(number) < 1e7:
        if exponent >= 0:
            whole, fraction = digits[: exponent + 1].ljust(exponent + 1, "0"), digits[exponent + 1 :]
        else:
            whole, fraction = "0", "0" * (-exponent - 1) + digits
        return f"{sign}{whole}.{fraction or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


@lru_cache(maxsize=4096)  # numbers in headers and casts repeat; `magnitude` > 0, so -0.0 never meets 0.0 here
def _shortest_digits(magnitude: float, single: bool) -> tuple[str, int]:
    """The significant digits of `magnitude` and the power of ten of the first one."""

    def reads_back(text: str) -> bool:
        return (float32(float(text)) if single else float(text)) == magnitude

    # Python's repr is already the shortest for a double; a float32 needs at most 9 significant digits.
    text = _shortest_single(magnitude, reads_back) if single else repr(magnitude)
    digits, exponent = _digits_of(text)
    # Java (since JDK 19) writes the closest of the one- and two-digit decimals when one digit would do:
    # 4.9E-324 rather than 5e-324.
    if len(digits) == 1:
        two_digits = f"{magnitude:.1e}"
        if reads_back(two_digits):
            digits, exponent = _digits_of(two_digits)
    return digits, exponent


def _shortest_single(magnitude: float, reads_back: Callable[[str], bool]) -> str:
    """The shortest of ``d.ddde±nn`` (1 to 9 digits) that reads back to the float32 `magnitude`. Away from
    powers of two a float's rounding interval is symmetric, so if some count of digits reads back, every
    larger count does (its closest decimal is no farther): a binary search finds the least. At a power
    of two the interval below is half the one above, so there the counts are tried in turn."""
    if math.frexp(magnitude)[0] == 0.5:
        return next(text for text in (f"{magnitude:.{p}e}" for p in range(9)) if reads_back(text))
    low, high = 0, 8
    while low < high:
        middle = (low + high) // 2
        if reads_back(f"{magnitude:.{middle}e}"):
            high = middle
        else:
            low = middle + 1
    return f"{magnitude:.{low}e}"


def _digits_of(text: str) -> tuple[str, int]:
    """The significant digits (no leading or trailing zeros) of a positive float's text (``123.45``,
    ``0.0001``, ``1e-05``, ``1.50e+16``) and the power of ten of the first one."""
    mantissa, _, exponent_text = text.partition("e")
    whole, _, fraction = mantissa.partition(".")
    all_digits = whole + fraction
    significant = all_digits.lstrip("0")
    first = len(whole) - 1 - (len(all_digits) - len(significant)) + (int(exponent_text) if exponent_text else 0)
    return significant.rstrip("0") or "0", first
