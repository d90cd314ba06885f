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

Text is formatted with `java_date_format` and read by the parser below, which follows
`SimpleDateFormat`'s lenient parsing (English names, UTC unless the text names a zone): fields out of
range roll over (``2020-13-45`` is 2021-02-14), a numeric field followed directly by another field
takes at most its letter count of digits (``yyyyMMdd``), blanks before a field are skipped, text after
the pattern is ignored, and ``yy`` picks the century that puts the year within 80 years before and 20
after now. Zones: ``z``/``Z`` read ``UTC``, ``GMT``, their long names, ``GMT+h:mm`` and ``+hhmm``;
``X`` reads ``Z`` and ``+hh``, ``+hhmm`` or ``+hh:mm`` by count. Not read (a `DataError` naming the
letter when a string arrives): week-based fields (``Y w W F``), and zone names other than UTC/GMT.
Day names (``E``, ``u``) are read and ignored. Instants before 1582-10-15 (where Java's calendar is
Julian) or after year 9999 are refused rather than converted differently.
"""

from __future__ import annotations

import dataclasses
import re
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
from connectworker.transforms.java_date_format import JavaDateFormat, TimestampOutOfRange
from connectworker.transforms.side import Side, require_map, require_struct, schema_of, value_of, with_side

__all__ = ["TimestampConverterKey", "TimestampConverterValue"]

FIELD_CONFIG = "field"
TARGET_TYPE_CONFIG = "target.type"
FORMAT_CONFIG = "format"
UNIX_PRECISION_CONFIG = "unix.precision"
REPLACE_NULL_WITH_DEFAULT_CONFIG = "replace.null.with.default"
PURPOSE = "converting timestamp formats"

STRING, UNIX, DATE, TIME, TIMESTAMP = "string", "unix", "Date", "Time", "Timestamp"
SECONDS, MILLISECONDS, MICROSECONDS, NANOSECONDS = "seconds", "milliseconds", "microseconds", "nanoseconds"

_MILLIS_PER_DAY = 86_400_000
_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1
_GREGORIAN_CUTOVER_MS = -12_219_292_800_000  # 1582-10-15T00:00:00Z
_MAX_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z
_LOGICAL_KINDS = {logical.TIMESTAMP: TIMESTAMP, logical.DATE: DATE, logical.TIME: TIME}


# -- reading SimpleDateFormat text ----------------------------------------------------------------
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
_NAMES: dict[str, tuple[tuple[str, int], ...]] = {  # text field -> (name, value), longest first
    "M": tuple(sorted([(m, i + 1) for i, m in enumerate(_MONTHS)] + [(m[:3], i + 1) for i, m in enumerate(_MONTHS)],
                      key=lambda pair: -len(pair[0]))),
    "E": tuple(sorted([(d, i) for i, d in enumerate(_DAYS)] + [(d[:3], i) for i, d in enumerate(_DAYS)],
                      key=lambda pair: -len(pair[0]))),
    "a": (("AM", 0), ("PM", 1)),
    "G": (("AD", 1), ("BC", 0)),
}
_ZONE_NAMES = (("Coordinated Universal Time", 0), ("Greenwich Mean Time", 0), ("UTC", 0), ("GMT", 0))
_NUMERIC = frozenset("yMLdHkKhmsSDu")
_UNREADABLE = frozenset("YwWF")  # week-based fields: Java resolves them by rules not reproduced here
_NUMBER = re.compile(r"-?\d+")  # \d: any Unicode digit, as Java's DecimalFormat reads them
_TWO_DIGITS = re.compile(r"[0-9]{2}", re.ASCII)
_GMT_OFFSET = re.compile(r"([0-9]{1,2}):([0-9]{2})", re.ASCII)


class _NoMatch(Exception):
    """The text does not match the pattern."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Letter:
    letter: str
    count: int
    abutting: bool  # another field follows at once: a number takes at most `count` characters


def _elements(pattern: str) -> tuple[str | _Letter, ...]:
    """`pattern` (already accepted by `JavaDateFormat.compile`) as literal text and field runs."""
    raw: list[str | tuple[str, int]] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "'":
            if pattern.startswith("''", i):
                raw.append("'")
                i += 2
                continue
            end = i + 1
            text: list[str] = []
            while end < n:
                if pattern.startswith("''", end):
                    text.append("'")
                    end += 2
                elif pattern[end] == "'":
                    break
                else:
                    text.append(pattern[end])
                    end += 1
            raw.append("".join(text))
            i = end + 1
        elif char.isascii() and char.isalpha():
            end = i
            while end < n and pattern[end] == char:
                end += 1
            raw.append((char, end - i))
            i = end
        else:
            raw.append(char)
            i += 1
    out: list[str | _Letter] = []
    for k, part in enumerate(raw):
        if isinstance(part, str):
            if out and isinstance(out[-1], str):
                out[-1] += part
            elif part:
                out.append(part)
        else:
            out.append(_Letter(part[0], part[1], k + 1 < len(raw) and isinstance(raw[k + 1], tuple)))
    return tuple(out)


def _century_start(now: datetime) -> datetime:
    """80 years before `now`, as Java's `Calendar.add(YEAR, -80)` (29 February becomes the 28th)."""
    try:
        return now.replace(year=now.year - 80)
    except ValueError:
        return now.replace(year=now.year - 80, day=28)


class _DateParser:
    """Reads text as `SimpleDateFormat.parse` (lenient, UTC) reads it; see the module's notes."""

    def __init__(self, pattern: str, now: datetime) -> None:
        self.pattern = pattern
        self._elements = _elements(pattern)
        start = _century_start(now)
        self._century_start_year = start.year
        self._century_start_ms = int(start.timestamp() * 1000)

    def parse(self, text: str) -> int:
        """Milliseconds since the epoch; `_NoMatch` when the text does not match, `DataError` when the
        pattern has a field this parser cannot read or the instant is out of range."""
        fields: dict[str, int] = {}
        offset_ms = 0
        ambiguous_year = False
        pos = 0
        for element in self._elements:
            if isinstance(element, str):
                if not text.startswith(element, pos):
                    raise _NoMatch
                pos += len(element)
                continue
            letter = "M" if element.letter == "L" else element.letter
            if letter in _UNREADABLE:
                raise DataError(f"{FORMAT_CONFIG} pattern {self.pattern!r}: the week-based field {letter!r} is not "
                                "supported for reading timestamps from text")
            while pos < len(text) and text[pos] in " \t":
                pos += 1
            if pos >= len(text):
                raise _NoMatch
            if letter in "zZX":
                offset_ms, pos = _zone(text, pos, element.count if letter == "X" else 0)
            elif letter in _NAMES and (letter != "M" or element.count >= 3):
                fields[letter], pos = _name(text, pos, _NAMES[letter])
            elif letter in _NUMERIC:
                start = pos
                fields[letter], pos = _number(text, pos, element)
                if letter == "y" and element.count <= 2 and _TWO_DIGITS.fullmatch(text, start, pos):
                    # Java's two-digit year: the one in the 100 years from its century start (now - 80y).
                    pivot = self._century_start_year % 100
                    ambiguous_year = fields["y"] == pivot
                    fields["y"] += self._century_start_year // 100 * 100 + (100 if fields["y"] < pivot else 0)
        millis = _instant(fields, offset_ms)
        if ambiguous_year and millis < self._century_start_ms:
            fields["y"] += 100
            millis = _instant(fields, offset_ms)
        return millis


def _number(text: str, pos: int, element: _Letter) -> tuple[int, int]:
    end = len(text)
    if element.abutting:
        end = pos + element.count
        if end > len(text):
            raise _NoMatch
    match = _NUMBER.match(text, pos, end)
    if match is None:
        raise _NoMatch
    try:
        value = int(match.group())
    except ValueError:  # more digits than Python converts: no date has them
        raise _NoMatch from None
    if (element.letter, value) in (("k", 24), ("h", 12)):  # Java reads 24 o'clock and 12 a.m. as hour 0
        value = 0
    return value, match.end()


def _name(text: str, pos: int, names: tuple[tuple[str, int], ...]) -> tuple[int, int]:
    for name, value in names:
        if text[pos:pos + len(name)].lower() == name.lower():
            return value, pos + len(name)
    raise _NoMatch


def _two_digits(text: str, pos: int, limit: int) -> int:
    if pos + 2 > len(text) or not _TWO_DIGITS.fullmatch(text, pos, pos + 2):
        raise _NoMatch
    value = int(text[pos:pos + 2])
    if value > limit:
        raise _NoMatch
    return value


def _zone(text: str, pos: int, iso_count: int) -> tuple[int, int]:
    """(offset in ms, position after it): `iso_count` 0 for ``z``/``Z`` (names, GMT+h:mm, +hhmm), else
    the count of ``X`` (``Z``, or +hh / +hhmm / +hh:mm)."""
    char = text[pos]
    if iso_count:
        if char == "Z":
            return 0, pos + 1
        if char not in "+-":
            raise _NoMatch
        hours = _two_digits(text, pos + 1, 23)
        minutes, end = 0, pos + 3
        if iso_count > 1:
            if iso_count == 3:
                if not text.startswith(":", end):
                    raise _NoMatch
                end += 1
            minutes, end = _two_digits(text, end, 59), end + 2
        return (-1 if char == "-" else 1) * (hours * 60 + minutes) * 60_000, end
    if char in "+-":  # RFC 822: +hhmm
        hours, minutes = _two_digits(text, pos + 1, 23), _two_digits(text, pos + 3, 59)
        return (-1 if char == "-" else 1) * (hours * 60 + minutes) * 60_000, pos + 5
    if text[pos:pos + 3].lower() == "gmt":
        end = pos + 3
        if end >= len(text) or text[end] not in "+-":
            return 0, end
        match = _GMT_OFFSET.match(text, end + 1)  # after "GMT+", Java wants h:mm or hh:mm
        if match is None or int(match[1]) > 23 or int(match[2]) > 59:
            raise _NoMatch
        return (-1 if text[end] == "-" else 1) * (int(match[1]) * 60 + int(match[2])) * 60_000, match.end()
    for name, offset in _ZONE_NAMES:
        if text[pos:pos + len(name)].lower() == name.lower():
            return offset, pos + len(name)
    raise _NoMatch


def _instant(fields: Mapping[str, int], offset_ms: int) -> int:
    """The instant the parsed fields name, rolling over out-of-range values as a lenient Java calendar."""
    year = fields.get("y", 1970)
    if fields.get("G", 1) == 0:  # BC: year 1 BC is year 0, before anything representable
        year = 1 - year
    years, month0 = divmod(year * 12 + fields.get("M", 1) - 1, 12)
    if not 1 <= years <= 9999:
        raise DataError(f"year {years} is outside the range of timestamps that can be converted (1582-10-15 to "
                        "9999-12-31)")
    if "d" not in fields and "D" in fields:
        days = date(years, 1, 1).toordinal() + fields["D"] - 1
    else:
        days = date(years, month0 + 1, 1).toordinal() + fields.get("d", 1) - 1
    if "H" in fields or "k" in fields:
        hour = fields.get("H", fields.get("k", 0))
    else:
        hour = fields.get("h", fields.get("K", 0)) + 12 * fields.get("a", 0)
    millis = ((((days - _EPOCH_ORDINAL) * 24 + hour) * 60 + fields.get("m", 0)) * 60 + fields.get("s", 0)) * 1000
    millis += fields.get("S", 0) - offset_ms
    if not _GREGORIAN_CUTOVER_MS <= millis <= _MAX_MS:
        raise DataError(f"timestamp {millis} is outside the range that can be converted as Java does "
                        "(1582-10-15 to 9999-12-31 UTC)")
    return millis


# -- the conversions ------------------------------------------------------------------------------
def _trunc_div(value: int, divisor: int) -> int:
    """Integer division rounding toward zero, as Java's."""
    quotient = abs(value) // divisor
    return quotient if value >= 0 else -quotient


def _saturate(value: int) -> int:
    return max(_LONG_MIN, min(_LONG_MAX, value))


_FROM_UNIX: dict[str, Callable[[int], int]] = {
    SECONDS: lambda v: _saturate(v * 1000), MILLISECONDS: lambda v: v,
    MICROSECONDS: lambda v: _trunc_div(v, 1000), NANOSECONDS: lambda v: _trunc_div(v, 1_000_000),
}
_TO_UNIX: dict[str, Callable[[int], int]] = {
    SECONDS: lambda ms: _trunc_div(ms, 1000), MILLISECONDS: lambda ms: ms,
    MICROSECONDS: lambda ms: _saturate(ms * 1000), NANOSECONDS: lambda ms: _saturate(ms * 1_000_000),
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
    raise DataError(f"Expected {kind} to be a datetime.datetime, datetime.date or datetime.time, but found "
                    f"{type(value).__name__}")


class TimestampConverter(Transformation):
    """Shared by the `$Key` and `$Value` variants; `_side` says which half of the record they convert."""

    _side: Side

    def __init__(self) -> None:
        self._field = ""
        self._target = TIMESTAMP
        self._precision = MILLISECONDS
        self._formatter: JavaDateFormat | None = None
        self._parser: _DateParser | None = None
        self._schemas: SchemaCache[Schema] = SchemaCache(self._struct_schema, max_size=16)

    def config_def(self) -> ConfigDef:
        return (ConfigDef()
                .define(FIELD_CONFIG, ConfigType.STRING, "", importance=Importance.HIGH,
                        documentation="The field containing the timestamp, or empty if the entire value is a "
                                      "timestamp")
                .define(TARGET_TYPE_CONFIG, ConfigType.STRING,
                        validator=one_of(STRING, UNIX, DATE, TIME, TIMESTAMP, case_sensitive=True),
                        importance=Importance.HIGH,
                        documentation="The desired timestamp representation: string, unix, Date, Time, or Timestamp")
                .define(FORMAT_CONFIG, ConfigType.STRING, "", importance=Importance.MEDIUM,
                        documentation="A SimpleDateFormat-compatible format for the timestamp. Used to generate the "
                                      "output when type=string or used to parse the input if the input is a string.")
                .define(UNIX_PRECISION_CONFIG, ConfigType.STRING, MILLISECONDS,
                        validator=one_of(NANOSECONDS, MICROSECONDS, MILLISECONDS, SECONDS, case_sensitive=True),
                        importance=Importance.LOW,
                        documentation="The desired Unix precision for the timestamp: seconds, milliseconds, "
                                      "microseconds, or nanoseconds. Used to generate the output when type=unix or "
                                      "used to parse the input if the input is a Long. Sub-millisecond parts are "
                                      "lost in conversions from, and to, such values.")
                .define(REPLACE_NULL_WITH_DEFAULT_CONFIG, ConfigType.BOOLEAN, True, importance=Importance.MEDIUM,
                        documentation="Whether to replace fields that have a default value and that are null to "
                                      "the default value (no effect here: schemas carry no default values)."))

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        pattern: str = config[FORMAT_CONFIG]
        if config[TARGET_TYPE_CONFIG] == STRING and not pattern.strip():
            raise ConfigError({FORMAT_CONFIG: "TimestampConverter requires format option to be specified when "
                                              "using string timestamps"})
        formatter = parser = None
        if pattern.strip():
            try:
                formatter = JavaDateFormat.compile(pattern)
            except ValueError as exc:
                raise ConfigError({FORMAT_CONFIG: "TimestampConverter requires a SimpleDateFormat-compatible "
                                                  f"pattern for string timestamps: {pattern} ({exc})"}) from None
            # Java fixes the two-digit-year century when the format is made, at configure time.
            parser = _DateParser(pattern, datetime.now(UTC))
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
                raise DataError(f"Cannot list fields on non-struct type {schema.type.name} (record "
                                f"{self._side.value} on topic {record.topic!r}, field {self._field!r})")
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
        fields = tuple(Field(f.name, _type_schema(self._target, f.schema.optional)) if f.name == self._field else f
                       for f in schema.fields)
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
                raise DataError(f"TimestampConverter requires the {FORMAT_CONFIG} option to read the string "
                                f"timestamp {value!r}")
            try:
                return self._parser.parse(value)
            except _NoMatch:
                raise DataError(f"Could not parse timestamp: value ({value}) does not match pattern "
                                f"({self._parser.pattern})") from None
            except DataError as exc:
                raise DataError(f"Could not parse timestamp: value ({value}) with pattern ({self._parser.pattern}): "
                                f"{exc}") from None
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
                raise DataError(f"Cannot format timestamp with {FORMAT_CONFIG} ({self._formatter.pattern}): "
                                f"{exc}") from None
        if target == TIME:
            return logical.from_wire(logical.TIME, millis % _MILLIS_PER_DAY)
        try:
            if target == DATE:
                return logical.from_wire(logical.DATE, millis // _MILLIS_PER_DAY)
            return logical.from_wire(logical.TIMESTAMP, millis)
        except (OverflowError, ValueError):
            raise DataError(f"Timestamp {millis} ms since the epoch is outside the range of a Python "
                            f"{'date' if target == DATE else 'datetime'} (years 1 to 9999)") from None


class TimestampConverterKey(TimestampConverter):
    """Converts the record key, or a field of it (Kafka's `TimestampConverter$Key`)."""

    _side = Side.KEY


class TimestampConverterValue(TimestampConverter):
    """Converts the record value, or a field of it (Kafka's `TimestampConverter$Value`)."""

    _side = Side.VALUE
