"""`InsertHeader`: add a header with a fixed value to every record.

Kafka's keys: `header` (required, the header's name) and `value.literal` (required, its value). The
header is added after the existing ones, even when a header of that name is already there.

Kafka does not add the literal as it is: it reads it as a Connect value (`Values.parseString`), and
the worker's header converter writes that value. For a literal that is one token (none of
``: , { } [ ]`` or ``"``) the value Kafka reads is reproduced here:

- ``null`` gives a header without a value; ``true`` and ``false`` a boolean;
- a number Java's `BigDecimal` reads: a whole number within a long an int8, int16, int32 or int64, the
  smallest that holds it (``+5``, ``1.0`` and ``1e3`` are the integers 5, 1 and 1000); another number
  with a fractional part a float32 if it fits one, else a float64 (``3.14159265358979`` is the float32
  3.1415927); anything larger is a Decimal in Kafka, and here the text `BigDecimal.toString` writes
  (``1.5e400`` → ``1.5E+400``), which is what `SimpleHeaderConverter` writes for it too;
- anything else a string, as written.

With the default `SimpleHeaderConverter` the header is then the text Kafka writes (``1.50`` → ``1.5``,
``0.0001`` → ``1.0E-4``, ``1e-50`` → ``0.0``); with JsonConverter the typed value in its envelope.

A literal with those delimiters is a string as written; Kafka would read some as arrays and maps
(``[1, 2]``), and a literal that *starts* like a number or a time (``10,20``, ``12:30``) is cut to its
first token (``10``, ``12``). Dates are strings here too, where Kafka reads a date leniently
(``2020-13-45`` → ``2021-02-14``) and one before 1970-01-02 as a time. These are accidents of Kafka's
parser, not features a configuration could want.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from decimal import Decimal

from connectworker.api.config_def import ConfigDef, ConfigType, Importance
from connectworker.api.record import SourceRecord
from connectworker.api.schema import BOOLEAN_SCHEMA, STRING_SCHEMA, Schema, SchemaAndValue, SchemaType
from connectworker.api.transform import Transformation
from connectworker.converters.values_text import JAVA_BLANKS, float32
from connectworker.transforms.side import with_headers

__all__ = ["InsertHeader", "literal_header_value"]

HEADER_CONFIG = "header"
VALUE_LITERAL_CONFIG = "value.literal"

_DELIMITERS = frozenset(':,{}[]"')
_BIG_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
# The integer schemas Kafka tries in turn, with the largest value each holds.
_INTEGERS = (
    (SchemaType.INT8, 2**7 - 1),
    (SchemaType.INT16, 2**15 - 1),
    (SchemaType.INT32, 2**31 - 1),
    (SchemaType.INT64, 2**63 - 1),
)
_FLOAT32_SCHEMA, _FLOAT64_SCHEMA = Schema(SchemaType.FLOAT32), Schema(SchemaType.FLOAT64)


def literal_header_value(literal: str) -> SchemaAndValue | None:
    """The header value Kafka reads from `value.literal` = `literal` (see the module's notes); None for
    ``null``."""
    token = literal.strip(JAVA_BLANKS)
    if not token or any(char in _DELIMITERS for char in literal):
        return SchemaAndValue(STRING_SCHEMA, literal)
    if token == "null":
        return None
    if token in ("true", "false"):
        return SchemaAndValue(BOOLEAN_SCHEMA, token == "true")
    if token[0] in "+-" or token[0].isdigit():
        number = _number(token)
        if number is not None:
            return number
    return SchemaAndValue(STRING_SCHEMA, literal)


def _number(token: str) -> SchemaAndValue | None:
    """`token` as Kafka parses a number (`Values.parseAsNumber`), or None if it is not one."""
    if not _BIG_DECIMAL.fullmatch(token):
        return None
    number = Decimal(token)
    exponent = number.as_tuple().exponent
    scale = -exponent if isinstance(exponent, int) else 0
    # Whole numbers in a long's range are integers; `adjusted()` first keeps 1e999999 from becoming an int.
    if number.adjusted() < 19 and number == number.to_integral_value():
        whole = int(number)
        for kind, largest in _INTEGERS:
            if -largest - 1 <= whole <= largest:
                return SchemaAndValue(Schema(kind), whole)
    if scale != 0:
        double = float(number)
        single = float32(double)
        if math.isfinite(single):
            return SchemaAndValue(_FLOAT32_SCHEMA, single)
        if math.isfinite(double):
            return SchemaAndValue(_FLOAT64_SCHEMA, double)
    # A Decimal in Kafka, which Schema cannot describe here: its text (Python's Decimal and Java's
    # BigDecimal print by the same scientific-string rules), what SimpleHeaderConverter writes for it.
    return SchemaAndValue(STRING_SCHEMA, str(number))


class InsertHeader(Transformation):
    """Adds a header with a literal value to each record."""

    def __init__(self) -> None:
        self._header = ""
        self._value: SchemaAndValue | None = None

    def config_def(self) -> ConfigDef:
        return (
            ConfigDef()
            .define(
                HEADER_CONFIG, ConfigType.STRING, importance=Importance.HIGH, documentation="The name of the header."
            )
            .define(
                VALUE_LITERAL_CONFIG,
                ConfigType.STRING,
                importance=Importance.HIGH,
                documentation="The literal value that is to be set as the header value on all records.",
            )
        )

    def configure(self, props: Mapping[str, str]) -> None:
        config = self.config_def().parse(props)
        self._header = config[HEADER_CONFIG]
        self._value = literal_header_value(config[VALUE_LITERAL_CONFIG])

    def apply(self, record: SourceRecord) -> SourceRecord:
        return with_headers(record, [*record.headers, (self._header, self._value)])
