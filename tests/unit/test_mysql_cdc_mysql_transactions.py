"""The binlog stream on MySQL's (not MariaDB's) transaction framing, which the MariaDB test server cannot
produce: a GTID event (`source_uuid:number`), then `BEGIN`, the row events and the XID event. The changes'
`source.gtid` and offsets follow Debezium's MySQL connector: the offset's `file`/`pos` are the GTID event's
(the transaction's start), `gtids` the set before the transaction, and after the commit the set includes it.
The events are mysql-replication's classes, filled in as its parser fills them."""

from __future__ import annotations

import threading
from types import SimpleNamespace
from typing import Any

from pymysqlreplication.event import GtidEvent, QueryEvent, XidEvent
from pymysqlreplication.row_event import TableMapEvent, WriteRowsEvent

from connectworker.connectors.mysql_cdc.database import ServerInfo
from connectworker.connectors.mysql_cdc.ddl_parser import parse_ddl
from connectworker.connectors.mysql_cdc.held_schemas import PRIMED
from connectworker.connectors.mysql_cdc.row_decoder import DECODED
from connectworker.connectors.mysql_cdc.schema_state import SchemaState
from connectworker.connectors.mysql_cdc.settings import parse_settings
from connectworker.connectors.mysql_cdc.source import Position
from connectworker.connectors.mysql_cdc.stream import BinlogStream
from tests.unit.mysql_cdc_props import MYSQL_PROPS

UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562"  # as MySQL writes its server_uuid
PROPS = MYSQL_PROPS


def _orders() -> SchemaState:
    state = SchemaState()
    state.apply(parse_ddl("CREATE TABLE orders (id INT PRIMARY KEY, name VARCHAR(20)) CHARSET utf8mb4", "shop"))
    return state


def _event(kind: type, end: int, **fields: Any) -> Any:
    event = object.__new__(kind)
    event.packet = SimpleNamespace(log_pos=end, server_id=223344)
    event.timestamp = 1_700_000_000
    event.__dict__.update(fields)
    return event


def _transaction(number: int, start: int, ids: list[int]) -> list[tuple[int, Any]]:
    """(position, event) of one MySQL transaction inserting `ids` into shop.orders, from `start`."""
    rows = [{"values": {"id": i, "name": f"n{i}"}} for i in ids]
    return [
        (start, _event(GtidEvent, start + 65, sid=bytes.fromhex(UUID.replace("-", "")), gno=number)),
        (start + 65, _event(QueryEvent, start + 140, query="BEGIN", schema="shop")),
        (start + 140, _event(TableMapEvent, start + 200, schema="shop", table="orders", **{PRIMED: True})),
        (start + 200, _event(WriteRowsEvent, start + 300, schema="shop", table="orders", **{DECODED: rows})),
        (start + 300, _event(XidEvent, start + 331)),
    ]


class ListReader:
    def __init__(self, events: list[tuple[int, Any]]) -> None:
        self.events = list(events)

    def next(self, timeout: float) -> tuple[str, int, Any] | None:
        return ("mysql-bin.000003", *self.events.pop(0)) if self.events else None

    def close(self) -> None:
        self.events = []


def test_mysql_gtid_transactions_give_debezium_s_source_and_offsets() -> None:
    stream = BinlogStream(
        parse_settings({**PROPS, "poll.interval.ms": "200"}),
        ServerInfo("8.0.36", False, 223344),
        {"server": "shop"},
        Position("mysql-bin.000003", 1000, f"{UUID}:1-22"),
        _orders(),
        history=None,  # type: ignore[arg-type]  # no DDL here
    )
    stream._reader = ListReader([*_transaction(23, 1000, [1, 2]), *_transaction(24, 1331, [3])])  # type: ignore[assignment]
    stream._schemas.catalog = object()  # started, as _ensure_started would

    records = stream.read(threading.Event())

    assert [r.topic for r in records] == ["shop.shop.orders"] * 3
    assert [r.key for r in records] == [{"id": 1}, {"id": 2}, {"id": 3}]
    sources = [r.value["source"] for r in records]
    assert [(s["connector"], s["gtid"], s["file"], s["pos"], s["row"]) for s in sources] == [
        ("mysql", f"{UUID}:23", "mysql-bin.000003", 1000, 0),
        ("mysql", f"{UUID}:23", "mysql-bin.000003", 1000, 1),
        ("mysql", f"{UUID}:24", "mysql-bin.000003", 1331, 0),
    ]
    assert sources[0]["server_id"] == 223344 and sources[0]["ts_ms"] == 1_700_000_000_000
    offsets = [r.source_offset for r in records]
    assert [(o["file"], o["pos"], o["gtids"], o["event"], o["row"]) for o in offsets] == [
        ("mysql-bin.000003", 1000, f"{UUID}:1-22", 0, 1),
        ("mysql-bin.000003", 1000, f"{UUID}:1-22", 0, 2),
        ("mysql-bin.000003", 1331, f"{UUID}:1-23", 0, 1),  # the set now holds the first transaction
    ]
    # after the second commit a restart resumes past both transactions, with both in the set
    assert stream._resume == Position("mysql-bin.000003", 1662, f"{UUID}:1-24", server_id=223344, ts_sec=1_700_000_000)
