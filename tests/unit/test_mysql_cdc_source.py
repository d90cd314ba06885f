"""Debezium's MySQL `source` block and offsets (connectors/mysql_cdc/source.py), as its documentation shows them."""

from __future__ import annotations

import pytest

from connectworker.api.errors import ConnectError
from connectworker.connectors.mysql_cdc.source import (
    Position,
    resume_position,
    snapshot_finished,
    snapshot_offset,
    source_schema,
    source_struct,
    streaming_offset,
)


@pytest.mark.parametrize("connector", ["mysql", "mariadb"])
def test_source_fields_in_debeziums_order(connector: str) -> None:
    schema = source_schema(connector)
    assert schema.name == f"io.debezium.connector.{connector}.Source"
    assert [field.name for field in schema.fields or ()] == [
        "version", "connector", "name", "ts_ms", "snapshot", "db", "sequence", "ts_us", "ts_ns", "table",
        "server_id", "gtid", "file", "pos", "row", "thread", "query",
    ]  # fmt: skip


def test_source_of_a_streamed_mariadb_change() -> None:
    at = Position("mysql-bin.000003", 484, server_id=223344)
    source = source_struct(
        "mariadb", "fulfillment", "inventory", "customers", at, 1_465_581_029_100_123, "false", "0-223344-7"
    )
    assert source["connector"] == "mariadb"
    assert (source["ts_ms"], source["ts_us"], source["ts_ns"]) == (1465581029100, 1465581029100123, 1465581029100123000)
    assert (source["server_id"], source["gtid"], source["file"], source["pos"], source["row"]) == (
        223344,
        "0-223344-7",
        "mysql-bin.000003",
        484,
        0,
    )


def test_offsets_as_debeziums_and_back() -> None:
    position = Position("mysql-bin.000003", 805, None, 2, 1, 223344, 1465581)
    streamed = streaming_offset(position)
    assert streamed == {
        "ts_sec": 1465581,
        "file": "mysql-bin.000003",
        "pos": 805,
        "row": 1,
        "server_id": 223344,
        "event": 2,
    }
    assert resume_position(streamed) == position
    assert snapshot_offset(Position("b.000001", 4, "0-1-9"), completed=False) == {
        "ts_sec": 0,
        "file": "b.000001",
        "pos": 4,
        "gtids": "0-1-9",
        "snapshot": True,
    }
    assert not snapshot_finished(snapshot_offset(position, completed=False))
    assert snapshot_finished(snapshot_offset(position, completed=True)) and snapshot_finished(streamed)
    assert not snapshot_finished(None)


@pytest.mark.parametrize(
    ("offset", "named"),
    [({"pos": 4}, "'file'"), ({"file": "b.1", "pos": -1}, "'pos'"), ({"file": "b.1", "pos": 4, "row": "x"}, "'row'")],
)
def test_a_malformed_offset_is_refused_naming_the_field(offset: dict[str, object], named: str) -> None:
    with pytest.raises(ConnectError, match=named):
        resume_position(offset)
