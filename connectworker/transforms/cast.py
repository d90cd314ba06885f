"""`Cast$Key` / `Cast$Value`: cast the whole key (or value), or some of its top-level fields, to another type.

Kafka's keys: `spec` (required list: one type for the whole key or value, e.g. ``int64``, or
``field:type`` pairs, e.g. ``f1:int32,f2:string``) and `replace.null.with.default` (boolean, default true;
accepted, without effect, as schemas here carry no default values). Types are Kafka's schema type names,
case-insensitive: int8, int16, int32, int64, float32, float64, boolean and string. Casting from bytes is
possible to string only (base64); casting from or to a struct, map or array is refused, and so is a
nested field (Kafka casts top-level fields only). A null key (or value) passes through unchanged.

The conversions follow Java's, since Kafka's are Java's: a number narrows by dropping high bits
(300 → int8 44), a float to an integer truncates toward zero and saturates at the int32 (int64) bounds, a
number is true when its integer part is not 0, a string parses as `Integer.parseInt` / `Double.parseDouble`
do (no blanks, no underscores) and as boolean is true only for "true" in any case, and a float becomes
the string Java prints (``1.0E10``). Date, Time and Timestamp values become their day, millisecond or
epoch-millisecond numbers, or an ISO 8601 text (in UTC) when cast to string.
"""

from __future__ import annotations

import base64
import math
import re
import struct
from collections.abc import Callable, Mapping
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigType, Importance
from connectworker.api.errors import DataError
from connectworker.api.record import SourceRecord
from connectworker.api.schema import Field, Schema, SchemaType
from connectworker.api.transform import Transformation
from connectworker.converters import logical
from connectworker.converters.encoding import SchemaCache
from connectworker.transforms.side import Side, require_map, require_struct, schema_of, value_of, with_side

__all__ = ["CastKey", "CastValue", "cast_value", "parse_cast_spec"]

SPEC_CONFIG = "spec"
REPLACE_NULL_WITH_DEFAULT_CONFIG = "replace.null.with.default"
PURPOSE = "cast types"

_T = SchemaType
OUTPUT_TYPES = (_T.INT8, _T.INT16, _T.INT32, _T.INT64, _T.FLOAT32, _T.FLOAT64, _T.BOOLEAN, _T.STRING)
INPUT_TYPES = (*OUTPUT_TYPES, _T.BYTES)
_INT_BITS = {_T.INT8: 8, _T.INT16: 16, _T.INT32: 32, _T.INT64: 64}
_LOGICAL_NAMES = frozenset({logical.DATE, logical.TIME, logical.TIMESTAMP})
_MILLIS_PER_DAY = 86_400_000
_EPOCH = datetime(1970, 1, 1)

# What Java's Integer.parseInt and Double.parseDouble accept (Python's int() and float() accept more).
_JAVA_INTEGER = re.compile(r"[+-]?\d+")
_JAVA_DECIMAL = re.compile(r"([+-]?)(?:(NaN)|(Infinity)|((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[fFdD]?)", re.ASCII)
_JAVA_HEX = re.compile(r"([+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+)[fFdD]?", re.ASCII)
_JAVA_BLANKS = "".join(chr(code) for code in range(0x21))  # what Java's String.trim() removes


def _type_list(types: tuple[SchemaType, ...]) -> str:
    return "[" + ", ".join(t.name for t in types) + "]"


def parse_cast_spec(entries: list[str]) -> tuple[SchemaType | None, dict[str, SchemaType]]:
    """The whole-value type (or None) and the per-field types `spec` asks for. Raises ValueError saying
    what is wrong, as Kafka's `ConfigException`s do."""
    if not entries:
        raise ValueError("Must specify at least one field to cast.")
    whole: SchemaType | None = None
    fields: dict[str, SchemaType] = {}
    for entry in entries:
        parts = entry.split(":")
        if len(parts) > 1:  # Java's split drops trailing empty parts, so "f:" names the type "f"
            while parts and not parts[-1]:
                parts.pop()
        if len(parts) > 2 or not parts:
            raise ValueError(f"Invalid cast mapping: {entry}")
        target = _output_type(parts[-1].strip())
        if len(parts) == 1:
            whole = target
        else:
            fields[parts[0].strip()] = target
    if whole is not None and len(entries) > 1:
        raise ValueError("Cast transformations that specify a type to cast the entire value to may only specify "
                         "a single cast in their spec")
    return whole, fields


def _output_type(text: str) -> SchemaType:
    target = SchemaType.__members__.get(text.upper())
    if target is None:
        raise ValueError(f"Invalid type found in casting spec: {text}")
    if target not in OUTPUT_TYPES:
        raise ValueError(f"Cast transformation does not support casting to {target.name}; supported types are "
                         f"{_type_list(OUTPUT_TYPES)}")
    return target


def _validate_spec(key: str, value: Any) -> None:
    parse_cast_spec(list(value or []))


class _NumberFormat(ValueError):
    """A string that does not parse as the number asked for (Java's NumberFormatException)."""


# -- the conversions --------------------------------------------------------------------------------------
def cast_value(value: Any, schema: Schema | None, target: SchemaType) -> Any:
    """`value` (described by `schema`, or schemaless when None) cast to `target`, as Kafka's Cast does."""
    if value is None:
        return None
    source = schema.type if schema is not None else _inferred_type(value)
    if source is None:
        raise DataError(f"Cast transformation was passed a value of type {type(value).__name__} which is not "
                        "supported by Connect's data API")
    if source not in INPUT_TYPES:
        raise DataError(f"Cast transformation does not support casting from {source.name}; supported types are "
                        f"{_type_list(INPUT_TYPES)}")
    if isinstance(value, int) and not isinstance(value, bool):
        if not -(2**63) <= value < 2**63:
            raise DataError(f"Cast transformation was passed an integer outside Connect's int64 range: {value}")
        if source in (_T.FLOAT32, _T.FLOAT64):
            value = float(value)  # Python lets an int stand for a float; Java would hold a Float or Double
    if (schema is not None and schema.name in _LOGICAL_NAMES and target is not _T.STRING
            and isinstance(value, date | time)):
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
    stripped = text.strip(_JAVA_BLANKS)
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


def _float32(number: float) -> float:
    """`number` rounded to the nearest single-precision float (to infinity beyond its range, as Java)."""
    try:
        rounded: float = struct.unpack("<f", struct.pack("<f", number))[0]
    except OverflowError:
        return math.copysign(math.inf, number)
    return rounded


def _int_to_float32(number: int) -> float:
    """`number` rounded once to single precision (going through a double could round twice above 2**53)."""
    magnitude = abs(number)
    if magnitude <= 2**53:
        return _float32(float(number))
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
        return _float32(value)
    if isinstance(value, str):
        return _float32(_parse_double(value))
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
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return java_float_text(value, single=source is _T.FLOAT32)
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, date | time):
        return _instant_text(value)
    raise _unexpected(value)


_CASTS: dict[SchemaType, Callable[[Any, SchemaType], Any]] = {
    **{t: _to_integer(bits) for t, bits in _INT_BITS.items()},
    _T.FLOAT32: _to_float32, _T.FLOAT64: _to_float64, _T.BOOLEAN: _to_boolean, _T.STRING: _to_string,
}


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
            whole, fraction = digits[:exponent + 1].ljust(exponent + 1, "0"), digits[exponent + 1:]
        else:
            whole, fraction = "0", "0" * (-exponent - 1) + digits
        return f"{sign}{whole}.{fraction or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def _shortest_digits(magnitude: float, single: bool) -> tuple[str, int]:
    """The significant digits of `magnitude` and the power of ten of the first one."""
    def reads_back(text: str) -> bool:
        return (_float32(float(text)) if single else float(text)) == magnitude

    # A float32 holds at most 9 significant digits; Python's repr is already the shortest for a double.
    candidates = (f"{magnitude:.{p}e}" for p in range(9)) if single else iter([repr(magnitude)])
    text = next(t for t in candidates if reads_back(t))
    # Java (since JDK 19) writes the closest of the one- and two-digit decimals when one digit would do:
    # 4.9E-324 rather than 5e-324.
    two_digits = f"{magnitude:.1e}"
    if len(Decimal(text).normalize().as_tuple().digits) == 1 and reads_back(two_digits):
        text = two_digits
    sign_digits_exponent = Decimal(text).normalize().as_tuple()
    digits = "".join(str(d) for d in sign_digits_exponent.digits)
    exponent = int(sign_digits_exponent.exponent)
    return digits, exponent + len(digits) - 1


def _instant_text(value: date | time) -> str:
    """A Date, Time or Timestamp as Kafka's `Values.dateFormatFor` writes it, chosen by the instant as
    Kafka chooses: before the second day of 1970 a time, at a midnight a date, else a timestamp. Kafka
    formats in the JVM's zone though it writes "Z"; this writes UTC."""
    if isinstance(value, datetime):
        millis = logical.to_wire(logical.TIMESTAMP, value)
    elif isinstance(value, date):
        millis = logical.to_wire(logical.DATE, value) * _MILLIS_PER_DAY
    else:
        millis = logical.to_wire(logical.TIME, value)
    instant = _EPOCH + timedelta(milliseconds=millis)
    clock = f"{instant:%H:%M:%S}.{instant.microsecond // 1000:03d}Z"
    day = f"{instant.year:04d}-{instant:%m-%d}"
    if millis < _MILLIS_PER_DAY:
        return clock
    if millis % _MILLIS_PER_DAY == 0:
        return day
    return f"{day}T{clock}"


# -- the transform --------------------------------------------------------------------------------------
class Cast(Transformation):
    """Shared by the `$Key` and `$Value` variants; `_side` says which half of the record they cast."""

    _side: Side

    def __init__(self) -> None:
        self._whole: SchemaType | None = None
        self._fields: dict[str, SchemaType] = {}
        self._schemas: SchemaCache[Schema] = SchemaCache(self._cast_schema, max_size=16)

    def config_def(self) -> ConfigDef:
        return (ConfigDef()
                .define(SPEC_CONFIG, ConfigType.LIST, validator=_validate_spec, importance=Importance.HIGH,
                        documentation="Fields and the types to cast them to, as field1:type,field2:type, to cast "
                                      "fields of maps or structs; or a single type to cast the entire value. Valid "
                                      "types are int8, int16, int32, int64, float32, float64, boolean and string; "
                                      "bytes can be cast to string only.")
                .define(REPLACE_NULL_WITH_DEFAULT_CONFIG, ConfigType.BOOLEAN, True, importance=Importance.MEDIUM,
                        documentation="Whether a null field that has a default value takes that default. "
                                      "Accepted for compatibility: schemas here carry no default values."))

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        self._whole, self._fields = parse_cast_spec(config[SPEC_CONFIG])
        self._schemas = SchemaCache(self._cast_schema, max_size=16)

    def apply(self, record: SourceRecord) -> SourceRecord:
        value, schema = value_of(record, self._side), schema_of(record, self._side)
        if value is None:
            return record
        if self._whole is not None:
            cast = cast_value(value, schema, self._whole)
            return with_side(record, self._side, cast, None if schema is None else self._schemas.get(schema))
        if schema is None:
            updated = dict(require_map(record, self._side, PURPOSE))
            for name, target in self._fields.items():
                # As Kafka: a field the map lacks is added, as null.
                updated[name] = _cast_field(updated.get(name), None, target, name)
            return with_side(record, self._side, updated, None)
        struct_value, struct_schema = require_struct(record, self._side, PURPOSE)
        new_schema = self._schemas.get(struct_schema)
        cast_struct: dict[str, Any] = {}
        for field in struct_schema.fields:
            field_target = self._fields.get(field.name)
            item = struct_value.get(field.name)
            cast_struct[field.name] = (item if field_target is None
                                       else _cast_field(item, field.schema, field_target, field.name))
        return with_side(record, self._side, cast_struct, new_schema)

    def _cast_schema(self, schema: Schema) -> Schema:
        if self._whole is not None:
            # Kafka keeps the name even when it is a logical type's, which then describes a value it no
            # longer is (a Timestamp schema over a long): a logical name is dropped here.
            name = None if schema.name in _LOGICAL_NAMES else schema.name
            return Schema(self._whole, schema.optional, name, schema.version, schema.doc)
        fields = tuple(
            field if field.name not in self._fields
            else Field(field.name, Schema(self._fields[field.name], field.schema.optional))
            for field in schema.fields)
        return Schema(SchemaType.STRUCT, schema.optional, schema.name, schema.version, schema.doc, fields=fields)


def _cast_field(value: Any, schema: Schema | None, target: SchemaType, name: str) -> Any:
    try:
        return cast_value(value, schema, target)
    except DataError as exc:
        raise DataError(f"{exc} (field {name!r})") from None


class CastKey(Cast):
    """Casts the record key (Kafka's `Cast$Key`)."""

    _side = Side.KEY


class CastValue(Cast):
    """Casts the record value (Kafka's `Cast$Value`)."""

    _side = Side.VALUE
