"""`numeric` as Debezium writes it, by `decimal.handling.mode`.

`precise` (the default): a `numeric(p, s)` is Kafka Connect's `Decimal` logical type, bytes with the
`scale` (and Debezium's `connect.decimal.precision`) schema parameter; a `numeric` without a scale is
Debezium's `VariableScaleDecimal` struct, `{scale, value}`. Either value is the unscaled number as
Java's `BigInteger.toByteArray` writes it (big-endian two's complement, as few bytes as hold it), which is
what Kafka's converters put on the wire for a `BigDecimal`: the connector hands on those bytes, so the
JsonConverter writes them in base64 as Kafka's does. NaN and the infinities have no `Decimal` form; they
fail the task naming the column (Debezium logs them and writes null), and `string` mode writes them as
Debezium does: ``NAN``, ``POSITIVE_INFINITY``, ``NEGATIVE_INFINITY``.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from connectworker.api.schema import Schema, SchemaType

DECIMAL = "org.apache.kafka.connect.data.Decimal"
VARIABLE_SCALE_DECIMAL = "io.debezium.data.VariableScaleDecimal"
VARIABLE_SCALE_SCHEMA = Schema(
    SchemaType.STRUCT,
    name=VARIABLE_SCALE_DECIMAL,
    version=1,
    doc="Variable scaled decimal",
    fields=Schema.struct(None, ("scale", Schema(SchemaType.INT32)), ("value", Schema(SchemaType.BYTES))).fields,
)
SPECIAL_NAMES = {"NaN": "NAN", "Infinity": "POSITIVE_INFINITY", "-Infinity": "NEGATIVE_INFINITY"}


def unscaled_bytes(number: int) -> bytes:
    """`number` as Java's `BigInteger.toByteArray`: big-endian two's complement, minimal length."""
    length = (number if number >= 0 else ~number).bit_length() // 8 + 1
    return number.to_bytes(length, "big", signed=True)


def scale_and_precision(modifier: int) -> tuple[int, int] | None:
    """A `numeric` column's (scale, precision) from its type modifier; None when it has none."""
    if modifier < 4:
        return None
    packed = modifier - 4
    return packed & 0xFFFF, packed >> 16


def decimal_schema(scale: int, precision: int) -> Schema:
    return Schema(
        SchemaType.BYTES,
        name=DECIMAL,
        version=1,
        parameters=(("scale", str(scale)), ("connect.decimal.precision", str(precision))),
    )


def _finite(text: str) -> Decimal:
    if text in SPECIAL_NAMES:
        raise ValueError(
            f"{text} has no Decimal form; decimal.handling.mode=string (or double) carries it, as Debezium advises"
        )
    try:
        return Decimal(text)
    except InvalidOperation:
        raise ValueError(f"not a number: {text!r}") from None


def fixed_scale(scale: int) -> Callable[[str], bytes]:
    """The parser of a `numeric(p, s)` in precise mode: the unscaled value's bytes at scale `s`."""

    def parse(text: str) -> bytes:
        sign, digits, exponent = _finite(text).as_tuple()
        assert isinstance(exponent, int)
        unscaled = int("".join(map(str, digits)) or "0")
        shift = scale + exponent  # PostgreSQL writes the column's scale: 0, unless the type changed under us
        unscaled = unscaled * 10**shift if shift >= 0 else _round_half_up(unscaled, -shift)
        return unscaled_bytes(-unscaled if sign else unscaled)

    return parse


def _round_half_up(unscaled: int, drop: int) -> int:
    quotient, remainder = divmod(unscaled, 10**drop)
    return quotient + (2 * remainder >= 10**drop)


def variable_scale(text: str) -> dict[str, Any]:
    """A `numeric` without a scale in precise mode: `{scale, value}`, trailing zeros stripped (Debezium's
    `VariableScaleDecimal`: 10.10 is scale 1, 101; 100 is scale 0, 100)."""
    sign, digits, exponent = _finite(text).as_tuple()
    assert isinstance(exponent, int)
    number = "".join(map(str, digits)).lstrip("0")
    stripped = number.rstrip("0")
    if not stripped:
        return {"scale": 0, "value": b"\x00"}
    zeros = len(number) - len(stripped)
    scale = -(exponent + zeros)
    unscaled = int(stripped)
    if scale < 0:  # no negative scale: 1E+2 is 100 at scale 0
        unscaled, scale = unscaled * 10**-scale, 0
    return {"scale": scale, "value": unscaled_bytes(-unscaled if sign else unscaled)}


def string_mode(text: str) -> str:
    """`decimal.handling.mode=string`: the decimal text as PostgreSQL writes it (at the column's scale),
    NaN and the infinities by Debezium's names for them."""
    return SPECIAL_NAMES.get(text, text)
