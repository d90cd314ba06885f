"""Row events decoded by a plan made once per table map and null pattern, instead of column by column.

mysql-replication decodes every value of every row through one generic function: a chain of type tests,
a bitmap lookup and a buffered read per value. On a plain table that is most of a change's cost in the
connector (a BIGINT, INT, VARCHAR row takes about 20 µs). Here a table map's columns are looked at once:
the values of a row are read from the event's bytes by a short plan (the fixed-width columns next to one
another in one `struct` read, each string with its prefix and codec already chosen), cached per pattern
of NULL columns. The values are exactly mysql-replication's: the same Python types, the same quirks
(YEAR 0 is 1900, a zero DATE or DATETIME is None, an empty SET is None, a TIMESTAMP is a naive UTC
datetime), checked value by value against it in tests/integration/test_mysql_cdc_row_decoder.py.

The plan covers the column types of ordinary tables: the integers, FLOAT, DOUBLE, DECIMAL, YEAR, DATE,
DATETIME and TIMESTAMP (MySQL 5.6's formats), CHAR, VARCHAR, BINARY, VARBINARY, the TEXTs and BLOBs, ENUM
and SET. A table with another column type (TIME, BIT, JSON, a geometry, the pre-5.6 temporal formats), an
event that is not a plain full row image (MySQL's partial JSON updates, a columns-present bitmap without
every column) or a table map mysql-replication did not complete is decoded by mysql-replication itself.
"""

from __future__ import annotations

import codecs
import datetime
import decimal
import struct
from collections.abc import Callable, Sequence
from typing import Any

from pymysql.charset import charset_by_name

DECODED = "connectworker_rows"  # the attribute a decoded row event keeps its rows in

Op = Callable[[bytes, int, list[Any]], int]
"""One step of a plan: reads from the event's bytes at an offset, appends value(s), returns the next offset."""

# mysql-replication's event type codes of the plain row events (v1 and v2)
_WRITE, _UPDATE, _DELETE = frozenset({23, 30}), frozenset({24, 31}), frozenset({25, 32})
_ROW_EVENTS = _WRITE | _UPDATE | _DELETE

# the binlog's column type codes this module decodes
_TINY, _SHORT, _LONG, _FLOAT, _DOUBLE, _LONGLONG, _INT24 = 1, 2, 3, 4, 5, 8, 9
_DATE, _YEAR, _VARCHAR, _TIMESTAMP2, _DATETIME2 = 10, 13, 15, 17, 18
_NEWDECIMAL, _ENUM, _SET, _BLOB, _STRING = 246, 247, 248, 252, 254
_FIXED = {  # type -> struct format (signed, unsigned)
    _TINY: ("b", "B"),
    _SHORT: ("h", "H"),
    _LONG: ("i", "I"),
    _LONGLONG: ("q", "Q"),
    _FLOAT: ("f", "f"),
    _DOUBLE: ("d", "d"),
}
_DECIMAL_BYTES = (0, 1, 1, 2, 2, 3, 3, 4, 4, 4)  # bytes of a group of 0-9 leftover digits
_EPOCH = datetime.datetime(1970, 1, 1)


class _Unsupported(Exception):
    """A column type (or attribute) this module leaves to mysql-replication."""


def decode_rows(event: Any) -> list[dict[str, Any]]:
    """The rows of a row event, as mysql-replication's `event.rows` gives them (`values`, or
    `before_values` and `after_values`, each a dict by column name); decoded once, kept on the event."""
    rows: list[dict[str, Any]] | None = event.__dict__.get(DECODED)
    if rows is None:
        decoder = decoder_for(event)
        rows = event.rows if decoder is None else decoder.rows(event)
        setattr(event, DECODED, rows)
    return rows


def decoder_for(event: Any) -> RowDecoder | None:
    """The plan decoder of a row event's table map; None when the event is left to mysql-replication."""
    if event.event_type not in _ROW_EVENTS or not getattr(event, "complete", False):
        return None
    every = (1 << event.number_of_columns) - 1
    bitmaps = [event.columns_present_bitmap]
    if event.event_type in _UPDATE:
        bitmaps.append(event.columns_present_bitmap2)
    if any(int.from_bytes(b, "little") != every for b in bitmaps) or len(event.columns) != event.number_of_columns:
        return None
    return _cached(event.columns, getattr(event, "_ignore_decode_errors", False))


_CACHE: dict[int, tuple[Sequence[Any], RowDecoder | None]] = {}  # id(columns) -> (the columns, their decoder)


def _cached(columns: Sequence[Any], ignore_decode_errors: bool) -> RowDecoder | None:
    """The decoder of a table map's columns (made once per table map event: they are primed, and so
    final, before its row events are decoded). Keyed by the columns list's identity, which the entry holds."""
    entry = _CACHE.get(id(columns))
    if entry is not None and entry[0] is columns:
        return entry[1]
    if len(_CACHE) >= 256:
        _CACHE.clear()
    try:
        decoder: RowDecoder | None = RowDecoder(columns, ignore_decode_errors)
    except _Unsupported:
        decoder = None
    _CACHE[id(columns)] = (columns, decoder)
    return decoder


class RowDecoder:
    """Decodes the row images of one table map's columns."""

    def __init__(self, columns: Sequence[Any], ignore_decode_errors: bool = False) -> None:
        errors = "ignore" if ignore_decode_errors else "strict"
        if any(c.name is None for c in columns):  # a table map nobody primed: mysql-replication names them
            raise _Unsupported("unnamed columns")
        self.names = tuple(str(c.name) for c in columns)
        self._steps = [_step(c, errors) for c in columns]
        self._null_bytes = (len(columns) + 7) // 8
        self._plans: dict[int, list[Op]] = {}

    def rows(self, event: Any) -> list[dict[str, Any]]:
        packet = event.packet
        data = packet.read(event.event_size - packet.read_bytes)
        end, offset, image = len(data), 0, self.image
        out: list[dict[str, Any]] = []
        if event.event_type in _UPDATE:
            while offset < end:
                before, offset = image(data, offset)
                after, offset = image(data, offset)
                out.append({"before_values": before, "after_values": after})
        else:
            while offset < end:
                values, offset = image(data, offset)
                out.append({"values": values})
        return out

    def image(self, data: bytes, offset: int) -> tuple[dict[str, Any], int]:
        """One row image at `offset`: its values by column name, and where the next image starts."""
        size = self._null_bytes
        nulls = int.from_bytes(data[offset : offset + size], "little")
        offset += size
        plan = self._plans.get(nulls)
        if plan is None:
            plan = self._plans[nulls] = self._plan(nulls)
        values: list[Any] = []
        for op in plan:
            offset = op(data, offset, values)
        return dict(zip(self.names, values, strict=True)), offset

    def _plan(self, nulls: int) -> list[Op]:
        """The ops for one pattern of NULL columns: each NULL appends None, runs of fixed-width values are
        one struct read."""
        plan: list[Op] = []
        run = ""
        for index, step in enumerate(self._steps):
            null = bool(nulls >> index & 1)
            if isinstance(step, str) and not null:
                run += step
                continue
            if run:
                plan.append(_struct_op(run))
                run = ""
            plan.append(_null if null or isinstance(step, str) else step)
        if run:
            plan.append(_struct_op(run))
        return plan


def _null(data: bytes, offset: int, values: list[Any]) -> int:
    values.append(None)
    return offset


def _struct_op(formats: str) -> Op:
    reader = struct.Struct("<" + formats)
    unpack, size = reader.unpack_from, reader.size

    def op(data: bytes, offset: int, values: list[Any]) -> int:
        values.extend(unpack(data, offset))
        return offset + size

    return op


def _step(column: Any, errors: str) -> str | Op:
    """A column's reader: a struct format for a fixed-width number, else an op."""
    kind = int(column.type)
    unsigned = bool(getattr(column, "unsigned", False))
    if kind in _FIXED:
        return _FIXED[kind][unsigned]
    if kind == _INT24:
        return _int24(unsigned)
    if kind == _YEAR:
        return _year
    if kind in (_VARCHAR, _STRING):
        return _string(2 if column.max_length > 255 else 1, column.character_set_name, errors)
    if kind == _BLOB:
        return _string(int(column.length_size), column.character_set_name, errors)
    if kind == _ENUM:
        return _enum(int(column.size), column.enum_values)
    if kind == _SET:
        return _set(int(column.size), column.set_values)
    if kind == _NEWDECIMAL:
        return _decimal(int(column.precision), int(column.decimals))
    if kind == _DATE:
        return _date
    if kind == _DATETIME2:
        return _datetime2(int(column.fsp))
    if kind == _TIMESTAMP2:
        return _timestamp2(int(column.fsp))
    raise _Unsupported(kind)


def _int24(unsigned: bool) -> Op:
    signed = not unsigned

    def op(data: bytes, offset: int, values: list[Any]) -> int:
        values.append(int.from_bytes(data[offset : offset + 3], "little", signed=signed))
        return offset + 3

    return op


def _year(data: bytes, offset: int, values: list[Any]) -> int:
    values.append(data[offset] + 1900)
    return offset + 1


def _string(prefix: int, charset: str | None, errors: str) -> Op:
    """A length-prefixed string, decoded with its column's character set as mysql-replication does
    (UTF-8 when none is known; the bytes themselves when Python has no codec of that name)."""
    encoding: str | None = "utf-8"
    if charset is not None:
        known = charset_by_name(charset)
        encoding = known.encoding if known else charset
        try:
            codecs.lookup(encoding)
        except LookupError:
            encoding = None

    def op(data: bytes, offset: int, values: list[Any]) -> int:
        size = data[offset] if prefix == 1 else int.from_bytes(data[offset : offset + prefix], "little")
        offset += prefix
        raw = data[offset : offset + size]
        values.append(raw if encoding is None else raw.decode(encoding, errors))
        return offset + size

    return op


def _enum(size: int, labels: Sequence[str] | None) -> Op:
    def op(data: bytes, offset: int, values: list[Any]) -> int:
        index = int.from_bytes(data[offset : offset + size], "little")
        values.append(labels[index] if labels else None)
        return offset + size

    return op


def _set(size: int, labels: Sequence[str] | None) -> Op:
    def op(data: bytes, offset: int, values: list[Any]) -> int:
        mask = int.from_bytes(data[offset : offset + size], "little")
        chosen = {label for bit, label in enumerate(labels) if mask >> bit & 1} if labels else None
        values.append(chosen or None)
        return offset + size

    return op


def _decimal(precision: int, scale: int) -> Op:
    """MySQL's packed DECIMAL: groups of nine digits in four bytes, the leftover digits of each side in
    fewer; big-endian; a negative number stored inverted; the sign in the first byte's high bit."""
    integral = precision - scale
    whole_int, left_int = divmod(integral, 9)
    whole_frac, left_frac = divmod(scale, 9)
    head, tail = _DECIMAL_BYTES[left_int], _DECIMAL_BYTES[left_frac]
    size = head + 4 * (whole_int + whole_frac) + tail

    def op(data: bytes, offset: int, values: list[Any]) -> int:
        raw = bytearray(data[offset : offset + size])
        negative = not raw[0] & 0x80
        raw[0] ^= 0x80
        mask = -1 if negative else 0
        at = 0
        text = "-" if negative else ""
        if head:
            text += str(int.from_bytes(raw[:head], "big", signed=True) ^ mask)
            at = head
        for _ in range(whole_int):
            text += f"{int.from_bytes(raw[at : at + 4], 'big', signed=True) ^ mask:09d}"
            at += 4
        text += "."
        for _ in range(whole_frac):
            text += f"{int.from_bytes(raw[at : at + 4], 'big', signed=True) ^ mask:09d}"
            at += 4
        if tail:
            text += f"{int.from_bytes(raw[at : at + tail], 'big', signed=True) ^ mask:0{left_frac}d}"
        values.append(decimal.Decimal(text))
        return offset + size

    return op


def _date(data: bytes, offset: int, values: list[Any]) -> int:
    packed = int.from_bytes(data[offset : offset + 3], "little")
    year, month, day = packed >> 9 & 0x7FFF, packed >> 5 & 0xF, packed & 0x1F
    values.append(datetime.date(year, month, day) if year and month and day else None)
    return offset + 3


def _fraction(fsp: int) -> tuple[int, Callable[[bytes], int]]:
    """The bytes of a fractional-seconds part and its reading in microseconds."""
    size = (fsp + 1) // 2
    scale = 10 ** (6 - fsp)

    def micros(raw: bytes) -> int:
        value = int.from_bytes(raw, "big", signed=True)
        if fsp % 2:
            value = int(value / 10)
        return value * scale

    return size, micros


def _datetime2(fsp: int) -> Op:
    """MySQL 5.6's DATETIME: 40 bits big-endian (sign, year * 13 + month, day, hour, minute, second), then
    the fraction; a date Python has no datetime for (a zero date) is None."""
    fraction, micros = _fraction(fsp)

    def op(data: bytes, offset: int, values: list[Any]) -> int:
        packed = int.from_bytes(data[offset : offset + 5], "big")
        year_month = packed >> 22 & 0x1FFFF
        try:
            value: datetime.datetime | None = datetime.datetime(
                year_month // 13,
                year_month % 13,
                packed >> 17 & 0x1F,
                packed >> 12 & 0x1F,
                packed >> 6 & 0x3F,
                packed & 0x3F,
            )
        except ValueError:
            value = None
        if value is not None and fraction and (us := micros(data[offset + 5 : offset + 5 + fraction])) > 0:
            value = value.replace(microsecond=us)
        values.append(value)
        return offset + 5 + fraction

    return op


def _timestamp2(fsp: int) -> Op:
    """MySQL 5.6's TIMESTAMP: seconds since the epoch (four bytes big-endian), then the fraction; a naive
    UTC datetime, as mysql-replication's."""
    fraction, micros = _fraction(fsp)

    def op(data: bytes, offset: int, values: list[Any]) -> int:
        seconds = int.from_bytes(data[offset : offset + 4], "big", signed=True)
        value = _EPOCH + datetime.timedelta(seconds=seconds)
        if fraction and (us := micros(data[offset + 4 : offset + 4 + fraction])) > 0:
            value = value.replace(microsecond=us)
        values.append(value)
        return offset + 4 + fraction

    return op
