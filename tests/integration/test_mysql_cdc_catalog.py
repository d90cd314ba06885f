"""What the server says of the databases and tables the connector holds schemas of
(connectors/mysql_cdc/catalog.py), on a real MariaDB: the captured databases with their character sets
(filters applied, system databases left out), their base tables (views left out), each table's SHOW
CREATE TABLE, and the table it parses into."""

from __future__ import annotations

import uuid

from connectworker.connectors.mysql_cdc.catalog import (
    CatalogColumn,
    base_tables,
    held_databases,
    server_charset,
    show_create_table,
)
from connectworker.connectors.mysql_cdc.database import connect
from connectworker.connectors.mysql_cdc.schema_snapshot import parsed_table
from connectworker.connectors.mysql_cdc.settings import parse_settings
from tests.mariadb import PASSWORD, USER, MariaDb


def test_captured_databases_their_tables_and_a_table_s_columns(mariadb: MariaDb) -> None:
    name = f"k_{uuid.uuid4().hex[:10]}"
    mariadb.execute(
        f"CREATE DATABASE {name} CHARACTER SET latin1",
        f"CREATE DATABASE {name}_not",
        f"CREATE TABLE {name}.orders (b INT NOT NULL, a VARCHAR(5) NOT NULL, note TEXT, "
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
            "database.include.list": f"{name}|mysql",
            "table.exclude.list": f"{name}\\.audit",
        }
    )
    connection = connect(mariadb.host, mariadb.port, USER, PASSWORD)
    try:
        charset = server_charset(connection)
        databases = held_databases(connection, settings)
        tables = base_tables(connection, [name])
        ddl = show_create_table(connection, name, "orders")
        orders = parsed_table(connection, name, "orders")
    finally:
        connection.close()
        mariadb.execute(f"DROP DATABASE {name}", f"DROP DATABASE {name}_not")
    assert charset == ("latin1", "latin1_swedish_ci")  # MariaDB's defaults
    assert databases == [(name, "latin1", "latin1_swedish_ci")]  # mysql is the server's own: never held
    assert tables == [(name, "audit"), (name, "orders")]  # excluded tables are held too, as in Debezium
    assert ddl.startswith("CREATE TABLE `orders` (")
    assert orders.catalog() == (
        CatalogColumn("b", "int(11)", None, False, 2),
        CatalogColumn("a", "varchar(5)", "utf8mb4", False, 1),
        CatalogColumn("note", "text", "utf8mb4", True, 0),
    )
