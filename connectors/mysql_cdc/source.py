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

from connectworker.api.errors import ConnectError
from connectworker.api.record import as_json, is_offset_count
from connectworker.api.schema import Schema, SchemaType

from ..debezium.source_info import OPTIONAL_INT64, OPTIONAL_STRING, common_source
from ..debezium.source_info import source_schema as common_schema


@functools.cache
def source_schema(connector: str) -> Schema:
    """Debezium's `source` schema of its MySQL (`io.debezium.connector.mysql.Source`) or MariaDB
    (`io.debezium.connector.mariadb.Source`) connector."""
    return common_schema(
        connector,
        ("table", OPTIONAL_STRING),
        ("server_id", Schema(SchemaType.INT64)),
        ("gtid", OPTIONAL_STRING),
        ("file", Schema(SchemaType.STRING)),
        ("pos", Schema(SchemaType.INT64)),
        ("row", Schema(SchemaType.INT32)),
        ("thread", OPTIONAL_INT64),
        ("query", OPTIONAL_STRING),
    )


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
    connector: str, name: str, db: str, table: str | None, at: Position, ts_us: int, snapshot: str, gtid: str | None
) -> dict[str, Any]:
    """`source` of a change of `db.table` (`connector`: mysql or mariadb; `name`: topic.prefix) at `at`, its
    transaction's start (or the snapshot's position), at the instant `ts_us`; `row` is 0 (a row event's rows
    set theirs)."""
    return {
        **common_source(connector, name, ts_us=ts_us, snapshot=snapshot, db=db, sequence=None),
        "table": table,
        "server_id": at.server_id,
        "gtid": gtid,
        "file": at.file,
        "pos": at.pos,
        "row": 0,
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
