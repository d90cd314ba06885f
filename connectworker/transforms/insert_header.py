"""`InsertHeader`: add a header with a fixed value to every record.

Kafka's keys: `header` (required, the header's name) and `value.literal` (required, its value). The
header is added after the existing ones, even when a header of that name is already there.

Kafka does not write the literal as it is: it reads it as a Connect value (`Values.parseString`), and
the worker's default header converter writes that value back as text. For a literal that is one token
(none of ``: , { } [ ]`` or ``"``) the text Kafka writes is reproduced here:

- ``null`` gives a header without a value; ``true`` and ``false`` stay as they are;
- a number Java's `BigDecimal` reads is written as Kafka writes it: a whole number within a long as an
  integer (``+5`` → ``5``, ``1.0`` → ``1``, ``1e3`` → ``1000``), another number with a fractional part
  as a float32 if it fits one, else a double, printed as Java prints them (``1.50`` → ``1.5``,
  ``3.14159265358979`` → ``3.1415927``, ``0.0001`` → ``1.0E-4``, ``1e-50`` → ``0.0``), and anything
  larger as `BigDecimal.toString` writes it (``1.5e400`` → ``1.5E+400``);
- anything else is written as it is.

A literal with those delimiters is written as it is; Kafka would rewrite some: arrays and maps are
re-serialized (``[1, 2]`` → ``[1,2]``), and a literal that *starts* like a number or a time
(``10,20``, ``12:30``) is cut to its first token (``10``, ``12``). Dates are kept as written too,
where Kafka rewrites a date it reads leniently (``2020-13-45`` → ``2021-02-14``) or one before
1970-01-02 (written as ``00:00:00.000Z``). These are accidents of Kafka's parser, not features a
configuration could want.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from decimal import Decimal

from connectworker.api.config_def import ConfigDef, ConfigType, Importance
from connectworker.api.record import SourceRecord
from connectworker.api.transform import Transformation
from connectworker.transforms.side import with_headers
from connectworker.transforms.values_text import JAVA_BLANKS, float32, java_float_text

__all__ = ["InsertHeader", "literal_header_value"]

HEADER_CONFIG = "header"
VALUE_LITERAL_CONFIG = "value.literal"

_DELIMITERS = frozenset(':,{}[]"')
_BIG_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def literal_header_value(literal: str) -> str | None:
    """The header value Kafka produces for `value.literal` = `literal` (see the module's notes)."""
    token = literal.strip(JAVA_BLANKS)
    if not token or any(char in _DELIMITERS for char in literal):
        return literal
    if token == "null":
        return None
    if token in ("true", "false"):
        return token
    if token[0] in "+-" or token[0].isdigit():
        number = _number_text(token)
        if number is not None:
            return number
    return literal


def _number_text(token: str) -> str | None:
    """`token` as Kafka parses (`Values.parseAsNumber`) and prints a number, or None if not one."""
    if not _BIG_DECIMAL.fullmatch(token):
        return None
    number = Decimal(token)
    exponent = number.as_tuple().exponent
    scale = -exponent if isinstance(exponent, int) else 0
    # Whole numbers in a long's range are integers; `adjusted()` first keeps 1e999999 from becoming an int.
    if number.adjusted() < 19 and number == number.to_integral_value():
        whole = int(number)
        if _LONG_MIN <= whole <= _LONG_MAX:
            return str(whole)
    if scale != 0:
        double = float(number)
        single = float32(double)
        if math.isfinite(single):
            return java_float_text(single, single=True)
        if math.isfinite(double):
            return java_float_text(double, single=False)
    return str(number)  # Python's Decimal and Java's BigDecimal print by the same (scientific string) rules


class InsertHeader(Transformation):
    """Adds a header with a literal value to each record."""

    def __init__(self) -> None:
        self._header = ""
        self._value: str | None = None

    def config_def(self) -> ConfigDef:
        return (ConfigDef()
                .define(HEADER_CONFIG, ConfigType.STRING, importance=Importance.HIGH,
                        documentation="The name of the header.")
                .define(VALUE_LITERAL_CONFIG, ConfigType.STRING, importance=Importance.HIGH,
                        documentation="The literal value that is to be set as the header value on all records."))

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        self._header = config[HEADER_CONFIG]
        self._value = literal_header_value(config[VALUE_LITERAL_CONFIG])

    def apply(self, record: SourceRecord) -> SourceRecord:
        return with_headers(record, [*record.headers, (self._header, self._value)])
