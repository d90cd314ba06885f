"""PostgreSQL's `interval` as Debezium writes it, by `interval.handling.mode`.

Debezium reads an interval's text (IntervalStyle=postgres: ``1 year 2 mons -3 days +04:05:06.78``) with
pgjdbc's `PGInterval`, in the snapshot and in the stream alike, and then writes
- `numeric` (its default): int64 `io.debezium.time.MicroDuration`, `MicroDuration.durationMicros`: months
  taken as 365.25 / 12 days each, computed in Java doubles and cut toward zero, so an interval with months
  is approximate;
- `string`: `io.debezium.time.Interval`, `P<years>Y<months>M<days>DT<hours>H<minutes>M<seconds>S` with each
  part signed as PostgreSQL prints it (``P-1Y-2M3DT-4H-5M-6.78S``), the seconds as Java's `BigDecimal` of the
  double `PGInterval` holds, trailing zeros stripped.

The arithmetic here is Java's, step for step (Python's floats are the same IEEE doubles), so the values
are Debezium's to the microsecond.
"""

from __future__ import annotations

import math
from decimal import ROUND_DOWN, Decimal

from connectworker.api.schema import Schema, SchemaType

MICRO_DURATION = Schema(SchemaType.INT64, name="io.debezium.time.MicroDuration", version=1)
INTERVAL = Schema(SchemaType.STRING, name="io.debezium.time.Interval", version=1)
DAYS_PER_MONTH_AVG = 365.25 / 12.0
ZERO_TEXT = "P0Y0M0DT0H0M0S"  # Debezium's value for a NOT NULL interval a change leaves out
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
_NINE_PLACES = Decimal("1e-9")

Parts = tuple[int, int, int, int, int, float]  # years, months, days, hours, minutes, seconds


def _int(text: str) -> int:
    """Java's `Integer.parseInt`: a 32-bit integer or an error."""
    value = int(text)
    if not _INT_MIN <= value <= _INT_MAX:
        raise ValueError(f"{text} does not fit a 32-bit integer (pgjdbc's PGInterval)")
    return value


def _round_half_up(value: float) -> int:
    """Java's `Math.round`: the nearest integer, halves toward positive infinity."""
    floor = math.floor(value)
    return floor + 1 if value - floor >= 0.5 else floor


def _held_seconds(seconds: float) -> float:
    """The seconds `PGInterval.setSeconds` keeps (whole seconds and microseconds) and `getSeconds` gives back."""
    total = _round_half_up(seconds * 1_000_000)
    whole = abs(total) // 1_000_000 * (1 if total >= 0 else -1)  # Java's division: toward zero
    micros = total - whole * 1_000_000  # and its remainder, signed as the dividend
    if not _INT_MIN <= whole <= _INT_MAX:
        raise ValueError("the seconds do not fit a 32-bit integer (pgjdbc's PGInterval)")
    return whole + micros / 1_000_000


def parts(text: str) -> Parts:
    """An interval's text (IntervalStyle=postgres) read as `PGInterval.setValue` reads it."""
    years = months = days = hours = minutes = 0
    seconds = 0.0
    number: str | None = None
    for index, token in enumerate(text.replace("+", " ").lower().split(), start=1):
        if index % 2:
            colon = token.find(":")
            if colon < 0:
                number = token
                continue
            negative = token.startswith("-")
            hours = _int(token[int(negative) : colon])
            minutes = _int(token[colon + 1 : colon + 3])
            second_colon = token.find(":", colon + 1)
            if second_colon >= 0:
                seconds = float(token[second_colon + 1 :])
            if negative:
                hours, minutes, seconds = -hours, -minutes, -seconds
            number = None
        elif token.startswith("year"):
            years = _int(number or "0")
        elif token.startswith("mon"):
            months = _int(number or "0")
        elif token.startswith("day"):
            days = _int(number or "0")
        elif token.startswith("hour"):
            hours = _int(number or "0")
        elif token.startswith("min"):
            minutes = _int(number or "0")
        elif token.startswith("sec"):
            seconds = float(number or "0")
    return years, months, days, hours, minutes, _held_seconds(seconds)


def micro_duration(text: str) -> int:
    """`interval.handling.mode=numeric`: `MicroDuration.durationMicros` of the interval's parts."""
    years, months, days, hours, minutes, seconds = parts(text)
    number_of_days = (years * 12 + months) * DAYS_PER_MONTH_AVG + days
    number_of_seconds = ((number_of_days * 24 + hours) * 60 + minutes) * 60 + seconds
    micros = number_of_seconds * 1e6
    if math.isnan(micros):
        return 0
    return max(-(2**63), min(2**63 - 1, math.trunc(micros)))  # Java's (long) cast saturates


def iso_text(text: str) -> str:
    """`interval.handling.mode=string`: Debezium's `Interval.toIsoString` of the interval's parts."""
    years, months, days, hours, minutes, seconds = parts(text)
    exact = Decimal(repr(seconds))  # Java's BigDecimal.valueOf(double): the double's shortest decimal form
    if exact.as_tuple().exponent < -9:  # type: ignore[operator]
        exact = exact.quantize(_NINE_PLACES, rounding=ROUND_DOWN)
    plain = format(exact.normalize(), "f")
    return f"P{years}Y{months}M{days}DT{hours}H{minutes}M{plain}S"
