"""Debezium's MySQL `source` block and offsets.

`source` (schema `io.debezium.connector.mysql.Source`, or `...mariadb.Source`): where a change came from: the
connector (`mysql` for Debezium's MySQL connector class, `mariadb` for its MariaDB one, as Debezium's
module names: whatever the server is), `name` (topic.prefix), `db`, `table`, `server_id` (the database's
id, from the event header, not database.server.id), `gtid`, binlog `file` and `pos` (of the transaction's
start), `row` (the row within its event), `snapshot` and the instant in `ts_ms` / `ts_us` / `ts_ns`.

Offsets (partition `{"server": topic.prefix}`): `file`, `pos`, `gtids`, `row`, `event`, `ts_sec`,
`server_id`; a snapshot's hold `snapshot: true` until its last record's `snapshot_completed: true`.
Streaming resumes at `file`/`pos` (the transaction's start), skipping `event` events and `row` rows.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import connectworker
from connectworker.api.errors import ConnectError
from connectworker.api.record import as_json, is_offset_count
from connectworker.api.schema import Schema, SchemaType

_OPT_STRING = Schema(SchemaType.STRING, optional=True)
_OPT_INT64 = Schema(SchemaType.INT64, optional=True)


@functools.cache
def source_schema(connector: str) -> Schema:
    """Debezium's `source` schema of its MySQL (`io.debezium.connector.mysql.Source`) or MariaDB
    (`io.debezium.connector.mariadb.Source`) connector."""
    return Schema.struct(
        f"io.debezium.connector.{connector}.Source",
        ("version", Schema(SchemaType.STRING)),
        ("connector", Schema(SchemaType.STRING)),
        ("name", Schema(SchemaType.STRING)),
        ("ts_ms", Schema(SchemaType.INT64)),
        (
            "snapshot",
            Schema(
                SchemaType.STRING,
                optional=True,
                name="io.debezium.data.Enum",
                version=1,
                parameters=(
                    ("allowed", "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"),
                ),
            ),
        ),
        ("db", Schema(SchemaType.STRING)),
        ("sequence", _OPT_STRING),
        ("ts_us", _OPT_INT64),
        ("ts_ns", _OPT_INT64),
        ("table", _OPT_STRING),
        ("server_id", Schema(SchemaType.INT64)),
        ("gtid", _OPT_STRING),
        ("file", Schema(SchemaType.STRING)),
        ("pos", Schema(SchemaType.INT64)),
        ("row", Schema(SchemaType.INT32)),
        ("thread", _OPT_INT64),
        ("query", _OPT_STRING),
    )


VERSION = f"connectworker-{connectworker.__version__}"


@dataclass(frozen=True)
class Position:
    """Where a change is in the binlog: its transaction's start (`file`, `pos`), the events and rows of that
    transaction before it, and the GTID set up to the transaction before."""

    file: str
    pos: int
    gtids: str | None = None
    event: int = 0
    row: int = 0
    server_id: int = 0
    ts_sec: int = 0


def source_struct(
    *,
    connector: str,
    name: str,
    db: str,
    table: str | None,
    ts_us: int,
    snapshot: str,
    server_id: int,
    gtid: str | None,
    file: str,
    pos: int,
    row: int,
) -> dict[str, Any]:
    return {
        "version": VERSION,
        "connector": connector,
        "name": name,
        "ts_ms": ts_us // 1000,
        "snapshot": snapshot,
        "db": db,
        "sequence": None,
        "ts_us": ts_us,
        "ts_ns": ts_us * 1000,
        "table": table,
        "server_id": server_id,
        "gtid": gtid,
        "file": file,
        "pos": pos,
        "row": row,
        "thread": None,
        "query": None,
    }


def streaming_offset(position: Position) -> dict[str, Any]:
    offset: dict[str, Any] = {
        "ts_sec": position.ts_sec,
        "file": position.file,
        "pos": position.pos,
        "row": position.row,
        "server_id": position.server_id,
        "event": position.event,
    }
    if position.gtids:
        offset["gtids"] = position.gtids
    return offset


def snapshot_offset(position: Position, *, completed: bool) -> dict[str, Any]:
    offset: dict[str, Any] = {"ts_sec": position.ts_sec, "file": position.file, "pos": position.pos}
    if position.gtids:
        offset["gtids"] = position.gtids
    offset["snapshot"] = True
    if completed:
        offset["snapshot_completed"] = True
    return offset


def resume_position(offset: Mapping[str, Any]) -> Position:
    """The position an offset resumes from; raises ConnectError naming what is malformed."""
    file, pos = offset.get("file"), offset.get("pos")
    if not isinstance(file, str) or not file or not is_offset_count(pos):
        raise ConnectError(
            f"A MySQL offset holds the binlog 'file' (a name) and 'pos' (a non-negative integer); got {as_json(offset)}"
        )
    for key in ("event", "row", "server_id", "ts_sec"):
        if key in offset and not is_offset_count(offset[key]):
            raise ConnectError(f"A MySQL offset's {key!r} is a non-negative integer; got {as_json(offset[key])}")
    gtids = offset.get("gtids")
    if gtids is not None and not isinstance(gtids, str):
        raise ConnectError(f"A MySQL offset's 'gtids' is a GTID set's text; got {as_json(gtids)}")
    return Position(
        file,
        int(pos),
        gtids,
        int(offset.get("event", 0)),
        int(offset.get("row", 0)),
        int(offset.get("server_id", 0)),
        int(offset.get("ts_sec", 0)),
    )


def snapshot_finished(offset: Mapping[str, Any] | None) -> bool:
    """Whether a committed offset is past the snapshot (a streamed change, or the snapshot's last record)."""
    if not offset:
        return False
    return not offset.get("snapshot") or bool(offset.get("snapshot_completed"))
