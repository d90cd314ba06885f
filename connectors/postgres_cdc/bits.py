"""PostgreSQL's `bit(n)` and `bit varying(n)` as Debezium writes them: a one-bit column as a boolean, a
longer one as bytes `io.debezium.data.Bits` with the column's length in bits as the `length` parameter
(2147483647 for a `bit varying` without one). The value is the bits as one number, little-endian, in as
few bytes as hold its highest set bit (`BitSet.toByteArray`): ``B'101'`` is ``05``, ``B'00'`` no bytes."""

from __future__ import annotations

from connectworker.api.schema import Schema, SchemaType

UNLIMITED = 2_147_483_647


def bits_schema(length: int) -> Schema:
    return Schema(SchemaType.BYTES, name="io.debezium.data.Bits", version=1, parameters=(("length", str(length)),))


def as_boolean(text: str) -> bool:
    return int(text, 2) != 0


def as_bytes(text: str) -> bytes:
    number = int(text, 2)
    return number.to_bytes((number.bit_length() + 7) // 8, "little")
