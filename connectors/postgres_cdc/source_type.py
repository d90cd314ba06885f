"""`column.propagate.source.type` and `datatype.propagate.source.type`: a column's PostgreSQL type in its
schema's parameters, as Debezium puts it there (`PropagateSourceMetadataToSchemaParameter`).

The parameters, in Debezium's order: ``__debezium.source.column.type`` (the type's name, upper case:
``NUMERIC``, ``VARCHAR``, ``_INT4`` for an int array), ``__debezium.source.column.length`` and
``__debezium.source.column.scale`` (what the PostgreSQL JDBC driver's `TypeInfoCache.getPrecision` and
`getScale` give for the type and its modifier, which Debezium reads: ``numeric(5,2)`` is 5 and 2,
``varchar(128)`` 128 and 0, ``real`` 8 and 8), and ``__debezium.source.column.name``.
"""

from __future__ import annotations

from .columns import (
    ARRAYS,
    BIT,
    BOOL,
    BPCHAR,
    CHAR,
    DATE_OID,
    FLOAT4,
    FLOAT8,
    INT2,
    INT4,
    INT8,
    INTERVAL,
    NUMERIC,
    OID,
    TIME_OID,
    TIMESTAMP_OID,
    TIMESTAMPTZ,
    TIMETZ,
    VARBIT,
    VARCHAR,
)

UNKNOWN_LENGTH = 2_147_483_647  # the driver's length of a type without one (text, bytea, enums...)
_FIXED_LENGTHS = {INT2: 5, OID: 10, INT4: 10, INT8: 19, FLOAT4: 8, FLOAT8: 17, CHAR: 1, BOOL: 1, DATE_OID: 13}
_TEMPORAL = (TIME_OID, TIMETZ, TIMESTAMP_OID, TIMESTAMPTZ)
_TEMPORAL_WIDTH = {TIME_OID: 8, TIMETZ: 14, TIMESTAMP_OID: 22, TIMESTAMPTZ: 28}  # before the fraction


def length(oid: int, modifier: int) -> int:
    """`TypeInfoCache.getPrecision`: an array's is its element's."""
    oid = ARRAYS.get(oid, oid)
    if oid in _FIXED_LENGTHS:
        return _FIXED_LENGTHS[oid]
    if oid == NUMERIC:
        return 0 if modifier == -1 else ((modifier - 4) & 0xFFFF0000) >> 16
    if oid in (BPCHAR, VARCHAR):
        return UNKNOWN_LENGTH if modifier == -1 else modifier - 4
    if oid in _TEMPORAL:  # the length of its text: seconds' fraction digits and the point
        fraction = 7 if modifier == -1 else 0 if modifier == 0 else 3 if modifier == 1 else modifier + 1
        return _TEMPORAL_WIDTH[oid] + fraction
    if oid == INTERVAL:
        return 49  # the driver's longest interval text
    if oid == BIT or (oid == VARBIT and modifier != -1):
        return modifier
    return UNKNOWN_LENGTH


def scale(oid: int, modifier: int) -> int:
    """`TypeInfoCache.getScale`."""
    oid = ARRAYS.get(oid, oid)
    if oid in (FLOAT4, FLOAT8):
        return 8 if oid == FLOAT4 else 17
    if oid == NUMERIC:
        return 0 if modifier == -1 else (modifier - 4) & 0xFFFF
    if oid in _TEMPORAL:
        return 6 if modifier == -1 else modifier
    if oid == INTERVAL:
        return 6 if modifier == -1 else modifier & 0xFFFF
    return 0
