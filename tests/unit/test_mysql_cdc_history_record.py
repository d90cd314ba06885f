"""Schema history records (connectors/mysql_cdc/history.py) in Debezium's HistoryRecord JSON: a record as
Debezium's MySQL connector writes one is read into the table it describes (a text column without a
charsetName takes the table's default), and the connector's records go to JSON and back unchanged."""

from __future__ import annotations

import json

from connectworker.connectors.mysql_cdc.ddl_parser import parse_ddl
from connectworker.connectors.mysql_cdc.history import HistoryRecord
from connectworker.connectors.mysql_cdc.schema_state import SchemaState
from connectworker.connectors.mysql_cdc.source import Position
from connectworker.connectors.mysql_cdc.tables import Column

DEBEZIUM_WROTE = {
    "source": {"server": "dbserver1"},
    "position": {"ts_sec": 1700000000, "file": "mysql-bin.000003", "pos": 154, "gtids": "3e11:1-5", "snapshot": True},
    "ts_ms": 1700000000000,
    "databaseName": "inventory",
    "ddl": "CREATE TABLE `customers` (...)",
    "tableChanges": [
        {
            "type": "CREATE",
            "id": '"inventory"."customers"',
            "table": {
                "defaultCharsetName": "latin1",
                "primaryKeyColumnNames": ["id"],
                "columns": [
                    {"name": "id", "jdbcType": 4, "typeName": "INT UNSIGNED", "typeExpression": "INT UNSIGNED",
                     "charsetName": None, "length": 10, "position": 1, "optional": False, "autoIncremented": True,
                     "generated": True, "comment": None, "hasDefaultValue": False},
                    {"name": "email", "jdbcType": 12, "typeName": "VARCHAR", "typeExpression": "VARCHAR",
                     "charsetName": None, "length": 255, "position": 2, "optional": True, "autoIncremented": False,
                     "generated": False, "hasDefaultValue": True},
                    {"name": "tier", "jdbcType": 1, "typeName": "ENUM", "typeExpression": "ENUM",
                     "charsetName": "utf8mb4", "length": 1, "position": 3, "optional": True, "autoIncremented": False,
                     "generated": False, "enumValues": ["'gold'", "'it''s'"]},
                ],
                "attributes": [],
            },
            "comment": None,
        }
    ],
}  # fmt: skip


def test_a_record_as_debezium_writes_it_is_read_into_its_table() -> None:
    record = HistoryRecord.from_json(DEBEZIUM_WROTE)
    assert (record.position, record.database, record.snapshot) == (
        Position("mysql-bin.000003", 154, "3e11:1-5", ts_sec=1700000000),
        "inventory",
        True,
    )
    [change] = record.changes
    assert (change.kind, change.id) == ("CREATE", ("inventory", "customers"))
    assert change.table is not None and change.table.primary_key == ("id",)
    assert change.table.columns == (
        Column("id", "INT UNSIGNED", 10, optional=False, auto_incremented=True, generated=True),
        Column("email", "VARCHAR", 255, charset="latin1", has_default=True),
        Column("tier", "ENUM", 1, charset="utf8mb4", enum_values=("gold", "it's")),
    )
    assert [c.column_type for c in change.table.columns] == ["int(10) unsigned", "varchar(255)", "enum('gold','it''s')"]


def test_the_connector_s_records_go_to_json_and_back() -> None:
    state = SchemaState()
    statements = (
        "CREATE TABLE t (id BIGINT UNSIGNED PRIMARY KEY, f FLOAT(7,3), d DECIMAL(9,4) DEFAULT 1.5, "
        "s SET('a','b') CHARACTER SET latin1, ok BOOL NOT NULL COMMENT 'yes?', ts DATETIME(6) ON UPDATE NOW(6))",
        "RENAME TABLE t TO u",
    )
    for ddl in statements:
        record = HistoryRecord(Position("b.000001", 4), "shop", ddl, tuple(state.apply(parse_ddl(ddl, "shop"))), 17)
        assert HistoryRecord.from_json(json.loads(json.dumps(record.to_json("shop")))) == record
