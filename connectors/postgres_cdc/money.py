"""PostgreSQL's `money` as Debezium writes it, by `decimal.handling.mode` and `money.fraction.digits`.

The connector's sessions print money with ``lc_monetary=C`` (``$1,234.11``, ``-$1,234.11``), which
Debezium's `PostgresMoney.parse` reads by dropping the parentheses or minus, the currency sign and the
thousands separators; then
- `precise`: Connect's `Decimal` at scale `money.fraction.digits` (a schema with `scale` alone, no
  precision), the value rounded half up to that scale;
- `double`: float64;
- `string`: the number as parsed, in plain notation (``-1234.11``).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from connectworker.api.schema import Schema, SchemaType

from ..debezium import decimals


def parse(text: str) -> Decimal:
    """`PostgresMoney.parse`: ``$1,234.11`` is 1234.11, ``-$1,234.11`` and ``($1,234.11)`` are -1234.11."""
    negative = text[:1] in ("-", "(")
    value = text[1:] if text[:1] == "-" else text
    value = value.removeprefix("(").removesuffix(")")
    if value and not value[0].isdigit() and value[0] != ".":
        value = value[1:]  # the currency sign
    try:
        number = Decimal(value.replace(",", ""))
    except InvalidOperation:
        raise ValueError(f"not a money value: {text!r}") from None
    return -number if negative else number


def money_type(decimal_handling: str, fraction_digits: int) -> tuple[Schema, Callable[[str], Any], Any]:
    """The schema, the parser and the NOT NULL fallback (Debezium's zero at the scale) of a money column."""
    if decimal_handling == "double":
        return Schema(SchemaType.FLOAT64), lambda text: float(parse(text)), 0.0
    if decimal_handling == "string":
        zero = format(Decimal(0).scaleb(-fraction_digits), "f")
        return Schema(SchemaType.STRING), lambda text: format(parse(text), "f"), zero
    schema = Schema(SchemaType.BYTES, name=decimals.DECIMAL, version=1, parameters=(("scale", str(fraction_digits)),))
    quantum = Decimal(1).scaleb(-fraction_digits)

    def precise(text: str) -> bytes:
        scaled = parse(text).quantize(quantum, rounding=ROUND_HALF_UP)
        return decimals.unscaled_bytes(int(scaled.scaleb(fraction_digits)))

    return schema, precise, b"\x00"
