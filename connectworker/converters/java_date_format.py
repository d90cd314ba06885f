"""Java's `SimpleDateFormat` patterns, in UTC, as a JVM with an English locale formats and (leniently)
parses them (the locale Kafka's `TimestampRouter` and `TimestampConverter` get by default on a typical
server). `JavaDateFormat` formats; `JavaDateParser` reads text back into an instant.

Formatting. Every pattern letter `SimpleDateFormat` defines is supported; the count of a letter
chooses the form:

- numbers (`d`, `H`, `m`, `s`, `S`, `D`, `w`, ...) are zero-padded to the count; `S` is the
  millisecond as a number (`SSS` gives ``007``), not a fraction;
- `y` and `Y` (week year): two letters keep the last two digits, any other count pads the year;
- `M` and `L`: one or two letters give the number, three the short name (``Jan``), four or more the
  full name (``January``); `E` gives ``Tue`` up to three letters and ``Tuesday`` from four;
- `a` is ``AM``/``PM``, `G` ``AD``; the zone is UTC: `z` ``UTC`` (``Coordinated Universal Time`` from
  four letters), `Z` ``+0000``, `X` to `XXX` ``Z``;
- weeks (`w`, `W`, `Y`) follow the English locale's rules: weeks start on Sunday, and week 1 of a year
  (or month) is the one holding its first day, so 2017-12-31 is in week 1 of week-year 2018.

Text between single quotes is literal, and ``''`` is a quote (inside quotes too). Any other ASCII
letter is refused, as Java refuses it, and so are `XXXX` and longer.

Parsing follows `SimpleDateFormat`'s lenient parsing (English names, UTC unless the text names a
zone): fields out of range roll over (``2020-13-45`` is 2021-02-14), a numeric field followed directly
by another field takes at most its letter count of digits (``yyyyMMdd``), blanks before a field are
skipped, text after the pattern is ignored, and ``yy`` picks the century that puts the year within 80
years before and 20 after the parser's creation, as Java fixes it when the format is made. Zones:
``z``/``Z`` read ``UTC``, ``GMT``, their long names, ``GMT+h:mm`` and ``+hhmm``; ``X`` reads ``Z`` and
``+hh``, ``+hhmm`` or ``+hh:mm`` by count. Not read (a `DataError` naming the letter when text
arrives): week-based fields (``Y w W F``), and zone names other than UTC/GMT. Day names (``E``, ``u``)
are read and ignored. Instants before 1582-10-15 (where Java's calendar is Julian) or after year 9999
are refused rather than converted differently.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from connectworker.api.errors import DataError

__all__ = ["JavaDateFormat", "JavaDateParser", "PatternMismatch", "TimestampOutOfRange"]

_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")  # datetime.weekday()
_LETTERS = "GyYMLwWDdFEuaHkKhmsSzZX"

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_EPOCH_ORDINAL = _EPOCH.date().toordinal()
# Java's calendar is Julian before the Gregorian cutover: earlier instants would print other dates.
_GREGORIAN_CUTOVER_MS = -12_219_292_800_000  # 1582-10-15T00:00:00Z
_MAX_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z, the last instant a Python datetime holds


class TimestampOutOfRange(ValueError):
    """A timestamp this module cannot format as Java would (before 1582-10-15 or after year 9999)."""


class PatternMismatch(Exception):
    """The text does not match the pattern."""


# -- reading a pattern ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Field:
    """A run of `count` pattern letters `letter`."""

    letter: str
    count: int
    abutting: bool  # another field follows at once: when parsing, a number takes at most `count` characters


def _pattern_elements(pattern: str) -> tuple[str | _Field, ...]:
    """`pattern` as literal text (adjacent pieces joined) and field runs; ValueError saying what is wrong
    with a pattern Java would refuse. Formatting and parsing both read patterns through this."""
    raw: list[str | tuple[str, int]] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "'":
            if pattern.startswith("''", i):
                raw.append("'")
                i += 2
                continue
            i += 1
            while True:
                if i >= n:
                    raise ValueError(f"Unterminated quote in SimpleDateFormat pattern {pattern!r}")
                if pattern.startswith("''", i):
                    raw.append("'")
                    i += 2
                elif pattern[i] == "'":
                    i += 1
                    break
                else:
                    raw.append(pattern[i])
                    i += 1
            continue
        if not ("a" <= char <= "z" or "A" <= char <= "Z"):
            raw.append(char)
            i += 1
            continue
        if char not in _LETTERS:
            raise ValueError(
                f"Illegal pattern character {char!r} in SimpleDateFormat pattern {pattern!r} "
                f"(pattern letters: {' '.join(_LETTERS)}; quote literal text with '...')"
            )
        end = i
        while end < n and pattern[end] == char:
            end += 1
        count = end - i
        if char == "X" and count > 3:
            raise ValueError(
                f"invalid ISO 8601 format: length={count} in SimpleDateFormat pattern {pattern!r} (X, XX or XXX)"
            )
        raw.append((char, count))
        i = end
    elements: list[str | _Field] = []
    for k, part in enumerate(raw):
        if isinstance(part, str):
            if elements and isinstance(elements[-1], str):
                elements[-1] += part
            else:
                elements.append(part)
        else:
            elements.append(_Field(part[0], part[1], k + 1 < len(raw) and isinstance(raw[k + 1], tuple)))
    return tuple(elements)


# -- formatting -----------------------------------------------------------------------------------
def _days_since_sunday(day: date) -> int:
    return (day.weekday() + 1) % 7


def _week_of_year(day: date) -> tuple[int, int]:
    """(week-year, week) with Sunday-first weeks, week 1 being the week that holds 1 January.

    Day ordinals rather than dates, so that the last week of year 9999 does not overflow `date`."""
    week_start = day.toordinal() - _days_since_sunday(day)
    if week_start + 6 > date(day.year, 12, 31).toordinal():
        return day.year + 1, 1
    jan1 = date(day.year, 1, 1)
    first_week_start = jan1.toordinal() - _days_since_sunday(jan1)
    return day.year, (week_start - first_week_start) // 7 + 1


def _week_of_month(day: date) -> int:
    return (day.day - 1 + _days_since_sunday(day.replace(day=1))) // 7 + 1


def _padded(count: int, value: int) -> str:
    return str(value).zfill(count)


def _year(count: int, year: int) -> str:
    return f"{year % 100:02d}" if count == 2 else _padded(count, year)


def _month(count: int, month: int) -> str:
    if count >= 4:
        return _MONTHS[month - 1]
    return _MONTHS[month - 1][:3] if count == 3 else _padded(count, month)


def _field_formatter(letter: str, count: int) -> Callable[[datetime], str]:
    """The formatter of one run of `count` pattern letters `letter` (a letter of `_LETTERS`)."""
    if letter in "ML":
        return lambda t: _month(count, t.month)
    if letter == "y":
        return lambda t: _year(count, t.year)
    if letter == "Y":
        return lambda t: _year(count, _week_of_year(t.date())[0])
    if letter == "E":
        return lambda t: _DAYS[t.weekday()] if count >= 4 else _DAYS[t.weekday()][:3]
    if letter == "a":
        return lambda t: "AM" if t.hour < 12 else "PM"
    constants = {"G": "AD", "Z": "+0000", "X": "Z", "z": "Coordinated Universal Time" if count >= 4 else "UTC"}
    if letter in constants:
        text = constants[letter]
        return lambda t: text
    numbers: dict[str, Callable[[datetime], int]] = {
        "w": lambda t: _week_of_year(t.date())[1],
        "W": lambda t: _week_of_month(t.date()),
        "D": lambda t: t.timetuple().tm_yday,
        "d": lambda t: t.day,
        "F": lambda t: (t.day - 1) // 7 + 1,
        "u": lambda t: t.isoweekday(),
        "H": lambda t: t.hour,
        "k": lambda t: t.hour or 24,
        "K": lambda t: t.hour % 12,
        "h": lambda t: t.hour % 12 or 12,
        "m": lambda t: t.minute,
        "s": lambda t: t.second,
        "S": lambda t: t.microsecond // 1000,
    }
    get = numbers[letter]
    return lambda t: _padded(count, get(t))


@dataclass(frozen=True, slots=True)
class JavaDateFormat:
    """A compiled `SimpleDateFormat` pattern; `JavaDateFormat.compile` raises ValueError saying what is
    wrong with a pattern Java would refuse."""

    pattern: str
    _parts: tuple[str | Callable[[datetime], str], ...]

    @classmethod
    def compile(cls, pattern: str) -> JavaDateFormat:
        parts = tuple(
            element if isinstance(element, str) else _field_formatter(element.letter, element.count)
            for element in _pattern_elements(pattern)
        )
        return cls(pattern, parts)

    def format(self, epoch_millis: int) -> str:
        """The instant `epoch_millis` (milliseconds since the epoch) in UTC, as Java formats it."""
        if not _GREGORIAN_CUTOVER_MS <= epoch_millis <= _MAX_MS:
            raise TimestampOutOfRange(
                f"timestamp {epoch_millis} is outside the range that can be formatted as "
                "Java does (1582-10-15 to 9999-12-31 UTC)"
            )
        moment = _EPOCH + timedelta(milliseconds=epoch_millis)
        return "".join(part if isinstance(part, str) else part(moment) for part in self._parts)


# -- parsing --------------------------------------------------------------------------------------
def _with_short_names(names: tuple[str, ...], first: int) -> tuple[tuple[str, int], ...]:
    """Each name and its three-letter form, numbered from `first`, longest first (``June`` before ``Jun``)."""
    numbered = [(name, i + first) for i, name in enumerate(names)]
    pairs = numbered + [(name[:3], number) for name, number in numbered]
    return tuple(sorted(pairs, key=lambda pair: -len(pair[0])))


_NAMES: dict[str, tuple[tuple[str, int], ...]] = {  # text field -> (name, value), longest first
    "M": _with_short_names(_MONTHS, 1),
    "E": _with_short_names(_DAYS, 0),  # read and ignored
    "a": (("AM", 0), ("PM", 1)),
    "G": (("AD", 1), ("BC", 0)),
}
_ZONE_NAMES = (("Coordinated Universal Time", 0), ("Greenwich Mean Time", 0), ("UTC", 0), ("GMT", 0))
_NUMERIC = frozenset("yMLdHkKhmsSDu")
_UNREADABLE = frozenset("YwWF")  # week-based fields: Java resolves them by rules not reproduced here
_NUMBER = re.compile(r"-?\d+")  # \d: any Unicode digit, as Java's DecimalFormat reads them
_TWO_DIGITS = re.compile(r"[0-9]{2}", re.ASCII)
_GMT_OFFSET = re.compile(r"([0-9]{1,2}):([0-9]{2})", re.ASCII)


def _century_start(now: datetime) -> datetime:
    """80 years before `now`, as Java's `Calendar.add(YEAR, -80)` (29 February becomes the 28th)."""
    try:
        return now.replace(year=now.year - 80)
    except ValueError:
        return now.replace(year=now.year - 80, day=28)


class JavaDateParser:
    """Reads text as `SimpleDateFormat.parse` (lenient, UTC) reads it; see the module's notes. `now` fixes
    the century of two-digit years, as Java fixes it when the format is made. A pattern Java would
    refuse raises ValueError, as `JavaDateFormat.compile` does."""

    def __init__(self, pattern: str, now: datetime) -> None:
        self.pattern = pattern
        self._elements = _pattern_elements(pattern)
        start = _century_start(now)
        self._century_start_year = start.year
        self._century_start_ms = int(start.timestamp() * 1000)

    def parse(self, text: str) -> int:
        """Milliseconds since the epoch; `PatternMismatch` when the text does not match, `DataError` when
        the pattern has a field this parser cannot read or the instant is out of range."""
        fields: dict[str, int] = {}
        offset_ms = 0
        ambiguous_year = False
        pos = 0
        for element in self._elements:
            if isinstance(element, str):
                if not text.startswith(element, pos):
                    raise PatternMismatch
                pos += len(element)
                continue
            letter = "M" if element.letter == "L" else element.letter
            if letter in _UNREADABLE:
                raise DataError(
                    f"format pattern {self.pattern!r}: the week-based field {letter!r} is not "
                    "supported for reading timestamps from text"
                )
            while pos < len(text) and text[pos] in " \t":
                pos += 1
            if pos >= len(text):
                raise PatternMismatch
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


def _number(text: str, pos: int, element: _Field) -> tuple[int, int]:
    end = len(text)
    if element.abutting:
        end = pos + element.count
        if end > len(text):
            raise PatternMismatch
    match = _NUMBER.match(text, pos, end)
    if match is None:
        raise PatternMismatch
    try:
        value = int(match.group())
    except ValueError:  # more digits than Python converts: no date has them
        raise PatternMismatch from None
    if (element.letter, value) in (("k", 24), ("h", 12)):  # Java reads 24 o'clock and 12 a.m. as hour 0
        value = 0
    return value, match.end()


def _name(text: str, pos: int, names: tuple[tuple[str, int], ...]) -> tuple[int, int]:
    for name, value in names:
        if text[pos : pos + len(name)].lower() == name.lower():
            return value, pos + len(name)
    raise PatternMismatch


def _two_digits(text: str, pos: int, limit: int) -> int:
    if pos + 2 > len(text) or not _TWO_DIGITS.fullmatch(text, pos, pos + 2):
        raise PatternMismatch
    value = int(text[pos : pos + 2])
    if value > limit:
        raise PatternMismatch
    return value


def _zone(text: str, pos: int, iso_count: int) -> tuple[int, int]:
    """(offset in ms, position after it): `iso_count` 0 for ``z``/``Z`` (names, GMT+h:mm, +hhmm), else
    the count of ``X`` (``Z``, or +hh / +hhmm / +hh:mm)."""
    char = text[pos]
    if iso_count:
        if char == "Z":
            return 0, pos + 1
        if char not in "+-":
            raise PatternMismatch
        hours = _two_digits(text, pos + 1, 23)
        minutes, end = 0, pos + 3
        if iso_count > 1:
            if iso_count == 3:
                if not text.startswith(":", end):
                    raise PatternMismatch
                end += 1
            minutes, end = _two_digits(text, end, 59), end + 2
        return (-1 if char == "-" else 1) * (hours * 60 + minutes) * 60_000, end
    if char in "+-":  # RFC 822: +hhmm
        hours, minutes = _two_digits(text, pos + 1, 23), _two_digits(text, pos + 3, 59)
        return (-1 if char == "-" else 1) * (hours * 60 + minutes) * 60_000, pos + 5
    if text[pos : pos + 3].lower() == "gmt":
        end = pos + 3
        if end >= len(text) or text[end] not in "+-":
            return 0, end
        match = _GMT_OFFSET.match(text, end + 1)  # after "GMT+", Java wants h:mm or hh:mm
        if match is None or int(match[1]) > 23 or int(match[2]) > 59:
            raise PatternMismatch
        return (-1 if text[end] == "-" else 1) * (int(match[1]) * 60 + int(match[2])) * 60_000, match.end()
    for name, offset in _ZONE_NAMES:
        if text[pos : pos + len(name)].lower() == name.lower():
            return offset, pos + len(name)
    raise PatternMismatch


def _instant(fields: Mapping[str, int], offset_ms: int) -> int:
    """The instant the parsed fields name, rolling over out-of-range values as a lenient Java calendar."""
    year = fields.get("y", 1970)
    if fields.get("G", 1) == 0:  # BC: year 1 BC is year 0, before anything representable
        year = 1 - year
    years, month0 = divmod(year * 12 + fields.get("M", 1) - 1, 12)
    if not 1 <= years <= 9999:
        raise DataError(
            f"year {years} is outside the range of timestamps that can be converted (1582-10-15 to 9999-12-31)"
        )
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
        raise DataError(
            f"timestamp {millis} is outside the range that can be converted as Java does (1582-10-15 to 9999-12-31 UTC)"
        )
    return millis
