"""PostgreSQL's temporal text forms (DateStyle=ISO, TimeZone=UTC) as Debezium's values, including those
Python's `datetime` cannot hold: `infinity` and `-infinity`, years after 9999, dates before Christ
(``0002-12-01 BC``) and the end of day ``24:00:00``.

Values Python can hold take the fast path (`fromisoformat`, in C); the others are computed here on the
proleptic Gregorian calendar, as Java's `java.time` (and so Debezium) computes them. What Debezium writes
for the special values, and why (see docs/cdc.md):
- a `timestamp`'s infinity is pgjdbc's sentinel ``PGStatement.DATE_POSITIVE_INFINITY`` (and NEGATIVE),
  which Debezium reads as microseconds (`MicroTimestamp`) or milliseconds (`Timestamp`);
- a `timestamptz`'s infinity is the string ``infinity`` / ``-infinity``;
- a `date`'s infinity is the epoch day of the `LocalDate` sentinel Debezium's parser returns
  (``-5877611-06-21`` for infinity, the day after for -infinity);
- ``24:00:00`` is 86,400,000,000 microseconds (a `time`), ``24:00:00Z`` (a `timetz` at offset zero).
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
_DAY_US = 86_400_000_000

POSITIVE_INFINITY_US = 9_223_372_036_825_200_000
NEGATIVE_INFINITY_US = -9_223_372_036_832_400_000
POSITIVE_INFINITY_DAYS = -2_147_472_692
NEGATIVE_INFINITY_DAYS = -2_147_472_691

_DATE = r"(\d{4,})-(\d\d)-(\d\d)"
_CLOCK = r"(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?"
_OFFSET = r"([+-])(\d\d)(?::?(\d\d))?(?::?(\d\d))?"
_DATE_TEXT = re.compile(_DATE + r"( BC)?")
_CLOCK_TEXT = re.compile(_CLOCK)
_TIMESTAMP_TEXT = re.compile(_DATE + r"[ T]" + _CLOCK + rf"(?:{_OFFSET})?( BC)?")


def epoch_day(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date, for any year (0 is 1 BC)."""
    y = year - (month <= 2)
    era = y // 400
    year_of_era = y - era * 400
    day_of_year = (153 * ((month + 9) % 12) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146_097 + day_of_era - 719_468


def civil_date(days: int) -> tuple[int, int, int]:
    """The proleptic Gregorian (year, month, day) `days` after 1970-01-01: `epoch_day`'s inverse."""
    z = days + 719_468
    era = z // 146_097
    day_of_era = z - era * 146_097
    year_of_era = (day_of_era - day_of_era // 1460 + day_of_era // 36_524 - day_of_era // 146_096) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted_month = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * shifted_month + 2) // 5 + 1
    month = shifted_month + 3 if shifted_month < 10 else shifted_month - 9
    return year_of_era + era * 400 + (month <= 2), month, day


def days(text: str) -> int:
    """A `date` as `io.debezium.time.Date`: days since the epoch."""
    if len(text) == 10:
        return date.fromisoformat(text).toordinal() - _EPOCH_ORDINAL
    if text == "infinity":
        return POSITIVE_INFINITY_DAYS
    if text == "-infinity":
        return NEGATIVE_INFINITY_DAYS
    match = _DATE_TEXT.fullmatch(text)
    if match is None:
        raise ValueError(f"not a date: {text!r}")
    return _day_number(*match.groups())


def _day_number(year: str, month: str, day: str, bc: str | None) -> int:
    return epoch_day(1 - int(year) if bc else int(year), int(month), int(day))


def _clock_micros(hours: str, minutes: str, seconds: str, fraction: str | None) -> int:
    micros = ((int(hours) * 60 + int(minutes)) * 60 + int(seconds)) * 1_000_000
    return micros + (int(fraction.ljust(6, "0")) if fraction else 0)


def micros_of_day(text: str) -> int:
    """A `time` (``HH:MM:SS[.ffffff]``, ``24:00:00`` included) as microseconds since midnight."""
    match = _CLOCK_TEXT.fullmatch(text)
    if match is None:
        raise ValueError(f"not a time of day: {text!r}")
    return _clock_micros(*match.groups())


def epoch_micros(text: str) -> int:
    """A `timestamp` (read as UTC) or `timestamptz` as microseconds since the epoch; infinity as Debezium's
    sentinels."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return _general_epoch_micros(text)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    delta = moment - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def _general_epoch_micros(text: str) -> int:
    if text == "infinity":
        return POSITIVE_INFINITY_US
    if text == "-infinity":
        return NEGATIVE_INFINITY_US
    match = _TIMESTAMP_TEXT.fullmatch(text)
    if match is None:
        raise ValueError(f"not a timestamp: {text!r}")
    year, month, day, hours, minutes, seconds, fraction, sign, off_h, off_m, off_s, bc = match.groups()
    day_number = _day_number(year, month, day, bc)
    clock = _clock_micros(hours, minutes, seconds, fraction)
    offset = 0
    if sign is not None:
        offset = (int(off_h) * 3600 + int(off_m or 0) * 60 + int(off_s or 0)) * 1_000_000
        offset = offset if sign == "+" else -offset
    return day_number * _DAY_US + clock - offset


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def zoned_timestamp(text: str, width: int) -> str:
    """A `timestamptz` as Debezium's `ZonedTimestamp`: the instant in UTC, ISO-8601, with exactly `width`
    fraction digits (the column's precision, 6 without one); with width 0, the fraction's significant
    digits only. Years after 9999 carry a ``+``, years before 1 a ``-`` (year 0 is 1 BC)."""
    if text == "infinity" or text == "-infinity":
        return text
    micros = epoch_micros(text)
    day_number, clock = divmod(micros, _DAY_US)
    year, month, day = civil_date(day_number)
    seconds, fraction = divmod(clock, 1_000_000)
    minutes, second = divmod(seconds, 60)
    hour, minute = divmod(minutes, 60)
    year_text = f"{year:04d}" if 0 <= year <= 9999 else f"+{year}" if year > 0 else f"-{-year:04d}"
    if width > 0:
        fraction_text = "." + f"{fraction:06d}000"[:width]
    else:
        fraction_text = f".{fraction:06d}".rstrip("0") if fraction else ""
    return f"{year_text}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}{fraction_text}Z"


def zoned_time(text: str) -> str:
    """A `timetz` as Debezium's `ZonedTime`: the time in UTC (``HH:MM:SS[.f]Z``, significant fraction
    digits only); ``24:00:00`` at offset zero stays ``24:00:00Z`` as Debezium 3.7 writes it."""
    sign_at = max(text.rfind("+"), text.rfind("-"))
    clock, zone = text[:sign_at], text[sign_at:]
    parts = zone[1:].split(":")
    offset = int(parts[0]) * 3600 + (int(parts[1]) * 60 if len(parts) > 1 else 0)
    offset += int(parts[2]) if len(parts) > 2 else 0
    offset = offset if zone[0] == "+" else -offset
    micros = micros_of_day(clock)
    if micros == _DAY_US and offset == 0:
        return "24:00:00Z"
    micros = (micros - offset * 1_000_000) % _DAY_US
    hours, rest = divmod(micros, 3_600_000_000)
    minutes, rest = divmod(rest, 60_000_000)
    seconds, fraction = divmod(rest, 1_000_000)
    out = f"{hours:02d}:{minutes:02d}:{seconds:02d}"
    return out + (f".{fraction:06d}".rstrip("0") if fraction else "") + "Z"
