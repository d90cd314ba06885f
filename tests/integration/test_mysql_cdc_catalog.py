"""The captured tables and their columns as information_schema gives them (connectors/mysql_cdc/catalog.py),
on a real MariaDB: filters applied, system databases left out, primary key order and charsets kept."""

from __future__ import annotations

import uuid

from connectworker.connectors.mysql_cdc.catalog import CatalogColumn, captured_tables, table_columns
from connectworker.connectors.mysql_cdc.database import connect
from connectworker.connectors.mysql_cdc.settings import parse_settings
from tests.mariadb import PASSWORD, USER, MariaDb


def test_captured_tables_and_their_columns(mariadb: MariaDb) -> None:
    name = f"k_{uuid.uuid4().hex[:10]}"
    mariadb.execute(
        f"CREATE DATABASE {name}",
        f"CREATE TABLE {name}.orders (b INT NOT NULL, a VARCHAR(5) CHARACTER SET latin1 NOT NULL, note TEXT, "
        "PRIMARY KEY (a, b)) CHARACTER SET utf8mb4",
        f"CREATE TABLE {name}.audit (id INT PRIMARY KEY)",
        f"CREATE VIEW {name}.v AS SELECT 1 AS one",
    )
    settings = parse_settings(
        {
            "database.hostname": mariadb.host,
            "database.user": USER,
            "database.server.id": "5401",
            "topic.prefix": "p",
            "schema.history.internal.kafka.topic": "h",
            "schema.history.internal.kafka.bootstrap.servers": "localhost:9092",
            "database.include.list": name,
            "table.exclude.list": f"{name}\\.audit",
        }
    )
    connection = connect(mariadb.host, mariadb.port, USER, PASSWORD)
    try:
        tables = captured_tables(connection, settings)
        columns = table_columns(connection, name, "orders")
    finally:
        connection.close()
        mariadb.execute(f"DROP DATABASE {name}")
    assert tables == [(name, "orders")]
    assert columns == [
        CatalogColumn("b", "int(11)", None, False, 2),
        CatalogColumn("a", "varchar(5)", "latin1", False, 1),
        CatalogColumn("note", "text", "utf8mb4", True, 0),
    ]
