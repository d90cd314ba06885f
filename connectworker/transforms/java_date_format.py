"""Java's `SimpleDateFormat` patterns, for formatting only, in UTC, as a JVM with an English locale
formats them (the locale Kafka's `TimestampRouter` gets by default on a typical server).

Every pattern letter `SimpleDateFormat` defines is supported; the count of a letter chooses the form:

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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

__all__ = ["JavaDateFormat", "TimestampOutOfRange"]

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")  # datetime.weekday()
_LETTERS = "GyYMLwWDdFEuaHkKhmsSzZX"

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# Java's calendar is Julian before the Gregorian cutover: earlier instants would print other dates.
_GREGORIAN_CUTOVER_MS = -12_219_292_800_000  # 1582-10-15T00:00:00Z
_MAX_MS = 253_402_300_799_999  # 9999-12-31T23:59:59.999Z, the last instant a Python datetime holds


class TimestampOutOfRange(ValueError):
    """A timestamp this module cannot format as Java would (before 1582-10-15 or after year 9999)."""


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


def _number(count: int, value: int) -> str:
    return str(value).zfill(count)


def _year(count: int, year: int) -> str:
    return f"{year % 100:02d}" if count == 2 else _number(count, year)


def _month(count: int, month: int) -> str:
    if count >= 4:
        return _MONTHS[month - 1]
    return _MONTHS[month - 1][:3] if count == 3 else _number(count, month)


def _field(letter: str, count: int) -> Callable[[datetime], str]:
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
    return lambda t: _number(count, get(t))


def _compile(pattern: str) -> tuple[str | Callable[[datetime], str], ...]:
    parts: list[str | Callable[[datetime], str]] = []
    literal: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        char = pattern[i]
        if char == "'":
            if pattern.startswith("''", i):
                literal.append("'")
                i += 2
                continue
            i += 1
            while True:
                if i >= n:
                    raise ValueError(f"Unterminated quote in SimpleDateFormat pattern {pattern!r}")
                if pattern.startswith("''", i):
                    literal.append("'")
                    i += 2
                elif pattern[i] == "'":
                    i += 1
                    break
                else:
                    literal.append(pattern[i])
                    i += 1
            continue
        if not ("a" <= char <= "z" or "A" <= char <= "Z"):
            literal.append(char)
            i += 1
            continue
        if char not in _LETTERS:
            raise ValueError(f"Illegal pattern character {char!r} in SimpleDateFormat pattern {pattern!r} "
                             f"(pattern letters: {' '.join(_LETTERS)}; quote literal text with '...')")
        end = i
        while end < n and pattern[end] == char:
            end += 1
        count = end - i
        if char == "X" and count > 3:
            raise ValueError(f"invalid ISO 8601 format: length={count} in SimpleDateFormat pattern {pattern!r} "
                             "(X, XX or XXX)")
        if literal:
            parts.append("".join(literal))
            literal.clear()
        parts.append(_field(char, count))
        i = end
    if literal:
        parts.append("".join(literal))
    return tuple(parts)


@dataclass(frozen=True, slots=True)
class JavaDateFormat:
    """A compiled `SimpleDateFormat` pattern; `JavaDateFormat.compile` raises ValueError saying what is
    wrong with a pattern Java would refuse."""

    pattern: str
    _parts: tuple[str | Callable[[datetime], str], ...]

    @classmethod
    def compile(cls, pattern: str) -> JavaDateFormat:
        return cls(pattern, _compile(pattern))

    def format(self, epoch_millis: int) -> str:
        """The instant `epoch_millis` (milliseconds since the epoch) in UTC, as Java formats it."""
        if not _GREGORIAN_CUTOVER_MS <= epoch_millis <= _MAX_MS:
            raise TimestampOutOfRange(f"timestamp {epoch_millis} is outside the range that can be formatted as "
                                      "Java does (1582-10-15 to 9999-12-31 UTC)")
        moment = _EPOCH + timedelta(milliseconds=epoch_millis)
        return "".join(part if isinstance(part, str) else part(moment) for part in self._parts)
