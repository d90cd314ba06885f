"""A MySQL table's shape (connectors/mysql_cdc/table_shape.py): Debezium's schema names and envelope, the
columns column.exclude.list keeps, the key from the primary key or message.key.columns, and a row from the
snapshot (a list) or the binlog (a dict by column name) mapped to the same Value struct."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from connectworker.api.errors import ConnectError
from connectworker.api.schema import SchemaType
from connectworker.connectors.debezium.envelope import TRANSACTION_SCHEMA, envelope
from connectworker.connectors.debezium.table_shape import UnmappableValueError
from connectworker.connectors.mysql_cdc.catalog import CatalogColumn
from connectworker.connectors.mysql_cdc.settings import parse_settings
from connectworker.connectors.mysql_cdc.source import source_schema
from connectworker.connectors.mysql_cdc.table_shape import MySqlTableShape as TableShape

PROPS = {
    "database.hostname": "localhost",
    "database.user": "cdc",
    "database.server.id": "5400",
    "topic.prefix": "shop",
    "schema.history.internal.kafka.topic": "history.shop",
    "schema.history.internal.kafka.bootstrap.servers": "kafka:9092",
}
CATALOG = [
    CatalogColumn("order_id", "int(10) unsigned", None, False, 2),
    CatalogColumn("region", "varchar(8)", "utf8mb4", False, 1),
    CatalogColumn("amount", "decimal(8,2)", None, True, 0),
    CatalogColumn("placed", "datetime", None, True, 0),
    CatalogColumn("secret", "varchar(20)", "utf8mb4", True, 0),
]


def shape(**overrides: str) -> TableShape:
    return TableShape(parse_settings({**PROPS, **overrides}), "inventory", "orders", CATALOG)


def test_schemas_are_named_as_debeziums() -> None:
    orders = shape()
    assert orders.topic == "shop.inventory.orders"
    assert orders.key_schema is not None and orders.key_schema.name == "shop.inventory.orders.Key"
    assert orders.row_schema.name == "shop.inventory.orders.Value" and orders.row_schema.optional
    envelope_schema = orders.envelope_schema
    assert (envelope_schema.name, envelope_schema.version) == ("shop.inventory.orders.Envelope", 1)
    fields = {f.name: f.schema for f in envelope_schema.fields}
    assert list(fields) == ["before", "after", "source", "op", "ts_ms", "ts_us", "ts_ns", "transaction"]
    assert fields["before"] is orders.row_schema and fields["source"] is source_schema("mysql")
    assert fields["transaction"] is TRANSACTION_SCHEMA and fields["op"].type is SchemaType.STRING
    value_fields = [(f.name, f.schema.type, f.schema.optional) for f in orders.row_schema.fields]
    assert value_fields == [
        ("order_id", SchemaType.INT64, False),
        ("region", SchemaType.STRING, False),
        ("amount", SchemaType.BYTES, True),
        ("placed", SchemaType.INT64, True),
        ("secret", SchemaType.STRING, True),
    ]


def test_the_key_is_the_primary_key_in_its_order() -> None:
    orders = shape()
    assert orders.key_schema is not None
    assert [f.name for f in orders.key_schema.fields] == ["region", "order_id"]
    row = orders.row([7, "eu", Decimal("1.50"), None, "x"])
    assert orders.key(row) == {"region": "eu", "order_id": 7}


def test_message_key_columns_replace_the_primary_key_and_a_missing_one_is_named() -> None:
    keyed = shape(**{"message.key.columns": r"inventory\.orders:secret"})
    assert keyed.key({"secret": "s", "region": "eu"}) == {"secret": "s"}
    assert shape(**{"message.key.columns": r"other\.orders:secret"}).key({"region": "eu", "order_id": 1}) == {
        "region": "eu",
        "order_id": 1,
    }
    with pytest.raises(ConnectError, match=r"message.key.columns keys table inventory.orders by nope"):
        shape(**{"message.key.columns": r"inventory\.orders:nope"})


def test_a_table_without_primary_key_has_no_key() -> None:
    settings = parse_settings(PROPS)
    plain = TableShape(settings, "inventory", "log", [CatalogColumn("line", "text", "utf8mb4", True, 0)])
    assert not plain.keyed and plain.key_schema is None and plain.key({"line": "x"}) is None


def test_excluded_columns_are_left_out_of_snapshot_and_binlog_rows_alike() -> None:
    orders = shape(**{"column.exclude.list": r"inventory\.orders\.secret"})
    assert orders.column_names == ("order_id", "region", "amount", "placed")
    assert [c[0] for c in orders.binlog_view] == ["order_id", "region", "amount", "placed", "secret"]
    snapshot = orders.row([4294967295, "eu", Decimal("1.50"), datetime(2024, 1, 2, 3, 4, 5)])
    binlog = orders.change_row(
        {
            "order_id": -1,
            "region": "eu",
            "amount": Decimal("1.50"),
            "placed": datetime(2024, 1, 2, 3, 4, 5),
            "secret": "s",
        }
    )
    # unsigned INT read signed (no metadata) wraps back; DECIMAL(8,2) 1.50 is 150 unscaled; DATETIME in ms
    assert (
        snapshot == binlog == {"order_id": 4294967295, "region": "eu", "amount": b"\x00\x96", "placed": 1704164645000}
    )


def test_nulls_stay_null_and_an_unmappable_value_names_the_column() -> None:
    orders = shape()
    assert orders.row([1, "eu", None, None, None])["amount"] is None
    with pytest.raises(
        UnmappableValueError, match=r"Column 'amount' of table inventory.orders \(type decimal\(8,2\)\)"
    ):
        orders.row([1, "eu", "not a number", None, None])


def test_the_shared_envelope_gives_one_instant_in_three_units() -> None:
    value = envelope(None, {"id": 1}, {"db": "x"}, "c", 1_700_000_000_123_456_789)
    assert value == {
        "before": None,
        "after": {"id": 1},
        "source": {"db": "x"},
        "op": "c",
        "ts_ms": 1_700_000_000_123,
        "ts_us": 1_700_000_000_123_456,
        "ts_ns": 1_700_000_000_123_456_789,
        "transaction": None,
    }
