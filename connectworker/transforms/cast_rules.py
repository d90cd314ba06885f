"""How Kafka's `Cast` converts one value to another Connect type: `cast_value`, with the types it casts
from and to (`INPUT_TYPES`, `OUTPUT_TYPES`).

The conversions follow Java's, since Kafka's are Java's: a number narrows by dropping high bits
(300 → int8 44), a float to an integer truncates toward zero and saturates at the int32 (int64) bounds, a
number is true when its integer part is not 0, a string parses as `Integer.parseInt` / `Double.parseDouble`
do (no blanks, no underscores) and as boolean is true only for "true" in any case, and a float becomes
the string Java prints (``1.0E10``). Date, Time and Timestamp values become their day, millisecond or
epoch-millisecond numbers, or an ISO 8601 text (in UTC) when cast to string. Text is written as Kafka's
`Values.convertToString` writes it (`values_text`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import date, time
from typing import Any

from connectworker.api.errors import DataError
from connectworker.api.schema import Schema, SchemaType
from connectworker.converters import logical
from connectworker.converters.values_text import JAVA_BLANKS, float32, value_text

__all__ = ["INPUT_TYPES", "LOGICAL_NAMES", "OUTPUT_TYPES", "cast_value", "type_list"]

_T = SchemaType
OUTPUT_TYPES = (_T.INT8, _T.INT16, _T.INT32, _T.INT64, _T.FLOAT32, _T.FLOAT64, _T.BOOLEAN, _T.STRING)
INPUT_TYPES = (*OUTPUT_TYPES, _T.BYTES)
LOGICAL_NAMES = frozenset({logical.DATE, logical.TIME, logical.TIMESTAMP})
_INT_BITS = {_T.INT8: 8, _T.INT16: 16, _T.INT32: 32, _T.INT64: 64}
# The Python types of the values a cast to string reads: Connect's primitives, bytes, and logical values.
_TEXT_SOURCES = (bool, int, float, str, bytes, bytearray, memoryview, date, time)

# What Java's Integer.parseInt and Double.parseDouble accept (Python's int() and float() accept more).
_JAVA_INTEGER = re.compile(r"[+-]?\d+")
_JAVA_DECIMAL = re.compile(r"([+-]?)(?:(NaN)|(Infinity)|((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[fFdD]?)", re.ASCII)
_JAVA_HEX = re.compile(r"([+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+)[fFdD]?", re.ASCII)


def type_list(types: tuple[SchemaType, ...]) -> str:
    """`types` as Kafka lists them in its messages: ``[INT8, INT16]``."""
    return "[" + ", ".join(t.name for t in types) + "]"


class _NumberFormat(ValueError):
    """A string that does not parse as the number asked for (Java's NumberFormatException)."""


def cast_value(value: Any, schema: Schema | None, target: SchemaType) -> Any:
    """`value` (described by `schema`, or schemaless when None) cast to `target`, as Kafka's Cast does."""
    if value is None:
        return None
    source = schema.type if schema is not None else _inferred_type(value)
    if source is None:
        raise DataError(
            f"Cast transformation was passed a value of type {type(value).__name__} which is not "
            "supported by Connect's data API"
        )
    if source not in INPUT_TYPES:
        raise DataError(
            f"Cast transformation does not support casting from {source.name}; supported types are "
            f"{type_list(INPUT_TYPES)}"
        )
    if isinstance(value, int) and not isinstance(value, bool):
        if not -(2**63) <= value < 2**63:
            raise DataError(f"Cast transformation was passed an integer outside Connect's int64 range: {value}")
        if source in (_T.FLOAT32, _T.FLOAT64):
            value = float(value)  # Python lets an int stand for a float; Java would hold a Float or Double
    if (
        schema is not None
        and schema.name in LOGICAL_NAMES
        and target is not _T.STRING
        and isinstance(value, date | time)
    ):
        try:
            value = logical.to_wire(schema.name, value)
        except logical.LogicalValueError as exc:
            raise DataError(f"Cast transformation cannot encode {schema.name} value: {exc}") from None
    try:
        return _CASTS[target](value, source)
    except _NumberFormat:
        raise DataError(f"Value ({value}) was out of range for requested data type {target.name}") from None


def _inferred_type(value: Any) -> SchemaType | None:
    """Connect's type for a schemaless value (Kafka's `ConnectSchema.schemaType`); None for anything else,
    including dates, which Connect only knows under a logical schema."""
    if isinstance(value, bool):
        return _T.BOOLEAN
    if isinstance(value, int):
        return _T.INT64
    if isinstance(value, float):
        return _T.FLOAT64
    if isinstance(value, str):
        return _T.STRING
    if isinstance(value, bytes | bytearray | memoryview):
        return _T.BYTES
    if isinstance(value, list | tuple):
        return _T.ARRAY
    if isinstance(value, dict):
        return _T.MAP
    return None


def _unexpected(value: Any) -> DataError:
    return DataError(f"Unexpected type in Cast transformation: {type(value).__name__}")


def _wrap(number: int, bits: int) -> int:
    """`number` narrowed to a signed `bits`-bit integer by dropping high bits, as a Java cast does."""
    number &= (1 << bits) - 1
    return number - (1 << bits) if number >> (bits - 1) else number


def _truncate(number: float, bits: int) -> int:
    """A Java cast of a double to int (bits=32) or long (64): toward zero, saturating, NaN as 0."""
    if math.isnan(number):
        return 0
    low, high = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    if number >= high:
        return high
    if number <= low:
        return low
    return int(number)


def _to_integer(bits: int) -> Callable[[Any, SchemaType], int]:
    def cast(value: Any, source: SchemaType) -> int:
        if isinstance(value, bool):
            return int(value)
        if isinstance(value, int):
            return _wrap(value, bits)
        if isinstance(value, float):
            # Java narrows a double to byte or short through int.
            return _wrap(_truncate(value, 64 if bits == 64 else 32), bits)
        if isinstance(value, str):
            if not _JAVA_INTEGER.fullmatch(value):
                raise _NumberFormat(value)
            number = int(value)
            if not -(1 << (bits - 1)) <= number < 1 << (bits - 1):
                raise _NumberFormat(value)
            return number
        raise _unexpected(value)

    return cast


def _parse_double(text: str) -> float:
    """Java's `Double.parseDouble`: surrounding blanks allowed, NaN/Infinity spelt so, an optional type
    suffix (f, d), hexadecimal with a binary exponent."""
    stripped = text.strip(JAVA_BLANKS)
    match = _JAVA_DECIMAL.fullmatch(stripped)
    if match is not None:
        sign, nan, infinity, digits = match.groups()
        if nan:
            return math.nan
        number = math.inf if infinity else float(digits)
        return -number if sign == "-" else number
    match = _JAVA_HEX.fullmatch(stripped)
    if match is not None:
        return float.fromhex(match.group(1))
    raise _NumberFormat(text)


def _int_to_float32(number: int) -> float:
    """`number` rounded once to single precision (going through a double could round twice above 2**53)."""
    magnitude = abs(number)
    if magnitude <= 2**53:
        return float32(float(number))
    shift = magnitude.bit_length() - 24
    kept, dropped = divmod(magnitude, 1 << shift)
    half = 1 << (shift - 1)
    if dropped > half or (dropped == half and kept & 1):
        kept += 1
    return math.copysign(float(kept << shift), number)


def _to_float64(value: Any, source: SchemaType) -> float:
    if isinstance(value, bool | int | float):
        return float(value)
    if isinstance(value, str):
        return _parse_double(value)
    raise _unexpected(value)


def _to_float32(value: Any, source: SchemaType) -> float:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int):
        return _int_to_float32(value)
    if isinstance(value, float):
        return float32(value)
    if isinstance(value, str):
        return float32(_parse_double(value))
    raise _unexpected(value)


def _to_boolean(value: Any, source: SchemaType) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value != 0
    if isinstance(value, float):
        return _truncate(value, 64) != 0
    if isinstance(value, str):
        return value.lower() == "true"
    raise _unexpected(value)


def _to_string(value: Any, source: SchemaType) -> str:
    """Kafka's Cast writes what `Values.convertToString` writes, for the types a cast reads; any other
    value (a list under a STRING schema, say) is unexpected, not written as Kafka's JSON-like text."""
    text = value_text(value, Schema(source)) if isinstance(value, _TEXT_SOURCES) else None
    if text is None:
        raise _unexpected(value)
    return text


_CASTS: dict[SchemaType, Callable[[Any, SchemaType], Any]] = {
    **{t: _to_integer(bits) for t, bits in _INT_BITS.items()},
    _T.FLOAT32: _to_float32,
    _T.FLOAT64: _to_float64,
    _T.BOOLEAN: _to_boolean,
    _T.STRING: _to_string,
}
