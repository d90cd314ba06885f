"""Decoding pgoutput, PostgreSQL's built-in logical decoding output plugin (protocol version 1).

Each replication message is one of the logical replication protocol's messages (PostgreSQL's "Logical
Replication Message Formats"): Begin, Commit, Origin, Relation, Type, Insert, Update, Delete, Truncate,
Message. Column values come in text form (the type's output function), as `str`; a column pgoutput
leaves out because it is an unchanged TOASTed value is `UNCHANGED_TOAST`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)


class _UnchangedToast:
    def __repr__(self) -> str:
        return "UNCHANGED_TOAST"


UNCHANGED_TOAST: Any = _UnchangedToast()
Tuple = list[Any]  # str | None | UNCHANGED_TOAST per column


@dataclass(frozen=True, slots=True)
class Begin:
    final_lsn: int
    commit_time: datetime
    xid: int


@dataclass(frozen=True, slots=True)
class Commit:
    commit_lsn: int
    end_lsn: int
    commit_time: datetime


@dataclass(frozen=True, slots=True)
class RelationColumn:
    name: str
    type_oid: int
    type_modifier: int
    key: bool  # part of the replica identity


@dataclass(frozen=True, slots=True)
class Relation:
    relid: int
    namespace: str
    name: str
    replica_identity: str  # d(efault), n(othing), f(ull), i(ndex)
    columns: tuple[RelationColumn, ...]


@dataclass(frozen=True, slots=True)
class TypeInfo:
    oid: int
    namespace: str
    name: str


@dataclass(frozen=True, slots=True)
class Insert:
    relid: int
    new: Tuple


@dataclass(frozen=True, slots=True)
class Update:
    relid: int
    old: Tuple | None  # the old key ('K') or whole old row ('O'), when the replica identity sends one
    new: Tuple


@dataclass(frozen=True, slots=True)
class Delete:
    relid: int
    old: Tuple


@dataclass(frozen=True, slots=True)
class Truncate:
    relids: tuple[int, ...]
    cascade: bool
    restart_identity: bool


@dataclass(frozen=True, slots=True)
class Other:
    """A message this connector has no use for (Origin, logical Message)."""

    kind: str


Message = Begin | Commit | Relation | TypeInfo | Insert | Update | Delete | Truncate | Other


class PgOutputError(ValueError):
    pass


def pg_time(micros: int) -> datetime:
    """A PostgreSQL timestamp on the wire (microseconds since 2000-01-01 UTC) as an aware datetime."""
    return PG_EPOCH + timedelta(microseconds=micros)


class _Reader:
    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def unpack(self, fmt: struct.Struct) -> tuple[Any, ...]:
        values = fmt.unpack_from(self.data, self.pos)
        self.pos += fmt.size
        return values

    def byte(self) -> str:
        value = chr(self.data[self.pos])
        self.pos += 1
        return value

    def string(self) -> str:
        end = self.data.index(0, self.pos)
        value = self.data[self.pos : end].decode()
        self.pos = end + 1
        return value


_INT16 = struct.Struct("!h")
_INT32 = struct.Struct("!i")
_BEGIN = struct.Struct("!qqI")
_COMMIT = struct.Struct("!bqqq")
_RELATION_HEAD = struct.Struct("!I")
_COLUMN_TAIL = struct.Struct("!Ii")
_RELID = struct.Struct("!I")
_TRUNCATE = struct.Struct("!Ib")


def _tuple_at(data: bytes, pos: int) -> tuple[Tuple, int]:
    """The TupleData at `pos`, and the position after it (the hot path: a function, no reader object)."""
    (count,) = _INT16.unpack_from(data, pos)
    pos += 2
    values: Tuple = []
    append, int32 = values.append, _INT32.unpack_from
    for _ in range(count):
        kind = data[pos]
        pos += 1
        if kind == 116:  # 't'
            (length,) = int32(data, pos)
            start = pos + 4
            pos = start + length
            append(data[start:pos].decode())
        elif kind == 110:  # 'n'
            append(None)
        elif kind == 117:  # 'u'
            append(UNCHANGED_TOAST)
        elif kind == 98:  # 'b'
            (length,) = int32(data, pos)
            start = pos + 4
            pos = start + length
            append(bytes(data[start:pos]))
        else:
            raise PgOutputError(f"unknown tuple column kind {chr(kind)!r}")
    return values, pos


CHANGE_KINDS = frozenset(b"IUD")
"""The first byte of an Insert, Update or Delete message."""


def decode_change(payload: bytes) -> tuple[int, Tuple | None, Tuple | None]:
    """An Insert, Update or Delete message (first byte in `CHANGE_KINDS`) as (relid, old tuple, new tuple):
    what `decode` gives as an `Insert`, `Update` or `Delete`, without the message object (the stream's path,
    a change at a time)."""
    first = payload[0]
    relid = _RELID.unpack_from(payload, 1)[0]
    if first == 73:  # 'I'
        return relid, None, _tuple_at(payload, 6)[0]
    if first == 68:  # 'D'
        return relid, _tuple_at(payload, 6)[0], None
    tag, pos, old = payload[5], 6, None
    if tag in (75, 79):
        old, pos = _tuple_at(payload, 6)
        tag, pos = payload[pos], pos + 1
    if tag != 78:
        raise PgOutputError(f"Update without its new tuple (tag {chr(tag)!r})")
    return relid, old, _tuple_at(payload, pos)[0]


def decode(payload: bytes) -> Message:
    """One pgoutput message."""
    first = payload[0]
    if first in (73, 85, 68):  # 'I', 'U', 'D': the changes, read as `decode_change` reads them
        relid, old, new = decode_change(payload)
        if first == 73:
            assert new is not None
            return Insert(relid, new)
        if first == 85:
            assert new is not None
            return Update(relid, old, new)
        assert old is not None
        return Delete(relid, old)
    reader = _Reader(payload)
    kind = reader.byte()
    if kind == "B":
        final_lsn, micros, xid = reader.unpack(_BEGIN)
        return Begin(final_lsn, pg_time(micros), xid)
    if kind == "C":
        _flags, commit_lsn, end_lsn, micros = reader.unpack(_COMMIT)
        return Commit(commit_lsn, end_lsn, pg_time(micros))
    if kind == "R":
        (relid,) = reader.unpack(_RELATION_HEAD)
        namespace, name = reader.string(), reader.string()
        identity = reader.byte()
        (count,) = reader.unpack(_INT16)
        columns = []
        for _ in range(count):
            flags = reader.data[reader.pos]
            reader.pos += 1
            column = reader.string()
            type_oid, modifier = reader.unpack(_COLUMN_TAIL)
            columns.append(RelationColumn(column, type_oid, modifier, bool(flags & 1)))
        return Relation(relid, namespace or "pg_catalog", name, identity, tuple(columns))
    if kind == "Y":
        (oid,) = reader.unpack(_RELID)
        return TypeInfo(oid, reader.string(), reader.string())
    if kind == "T":
        count, options = reader.unpack(_TRUNCATE)
        relids = tuple(reader.unpack(_RELID)[0] for _ in range(count))
        return Truncate(relids, bool(options & 1), bool(options & 2))
    if kind in ("O", "M"):
        return Other(kind)
    raise PgOutputError(f"unknown pgoutput message type {kind!r}")


def format_lsn(lsn: int) -> str:
    return f"{lsn >> 32:X}/{lsn & 0xFFFFFFFF:X}"


def parse_lsn(text: str) -> int:
    high, low = text.split("/")
    return (int(high, 16) << 32) | int(low, 16)
