"""Helpers of the MySQL / MariaDB change data capture tests: a database of its own per test on the shared
MariaDB server, the connector's props, and a worker whose converters write JSON with schemas."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from connectworker.config.worker_config import WorkerConfig
from connectworker.connectors.mysql_cdc.catalog import CatalogColumn
from tests.integration.harness import wait_until, worker_config
from tests.mariadb import MariaDb, replica_id


class MySqlDatabase:
    def __init__(self, server: MariaDb, name: str) -> None:
        self.server, self.name = server, name
        self.history = f"history.{name}"

    def execute(self, *statements: str) -> None:
        self.server.execute(*statements, database=self.name)

    def props(self, bootstrap: str, **overrides: str) -> dict[str, str]:
        return {
            "name": f"cdc-{self.name}",
            "connector.class": "io.debezium.connector.mysql.MySqlConnector",
            "database.hostname": self.server.host,
            "database.port": str(self.server.port),
            "database.user": self.server.user,
            "database.password": self.server.password,
            "database.server.id": str(replica_id()),
            "topic.prefix": self.name,
            "database.include.list": self.name,
            "schema.history.internal.kafka.topic": self.history,
            "schema.history.internal.kafka.bootstrap.servers": bootstrap,
            **overrides,
        }


@contextmanager
def mysql_database(server: MariaDb) -> Iterator[MySqlDatabase]:
    name = f"m_{uuid.uuid4().hex[:10]}"
    server.execute(f"CREATE DATABASE {name}")
    try:
        yield MySqlDatabase(server, name)
    finally:
        server.execute(f"DROP DATABASE IF EXISTS {name}")


def json_worker(bootstrap: str, tmp_path: Path, **overrides: str) -> WorkerConfig:
    return worker_config(
        bootstrap,
        tmp_path,
        **{
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "false",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "true",
            "topic.creation.enable": "true",
            **overrides,
        },
    )


def payloads(messages: list[Any]) -> list[dict[str, Any]]:
    """The change events' payloads (tombstones left out)."""
    return [value["payload"] for _, value in messages if value is not None]


def purge_binlogs(server: MariaDb) -> None:
    """Every binlog but a new current one purged. (MariaDB keeps a file until the engines have checkpointed
    its transactions, a moment later: the PURGE is repeated until it took.)"""
    server.execute("FLUSH BINARY LOGS")
    [(current, *_)] = server.query("SHOW MASTER STATUS")

    def purged() -> bool:
        server.execute("FLUSH ENGINE LOGS", f"PURGE BINARY LOGS TO '{current}'")
        return [row[0] for row in server.query("SHOW BINARY LOGS")] == [current]

    wait_until(purged, 30, lambda: f"the binlogs before {current} purged ({server.query('SHOW BINARY LOGS')})")


def information_schema_columns(connection: Any, database: str, table: str) -> list[CatalogColumn]:
    """A table's columns as information_schema describes them now (name, COLUMN_TYPE, character set,
    nullability, place in the primary key): what the tests hold the connector's parsed schema against."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.COLUMN_NAME, c.COLUMN_TYPE, c.CHARACTER_SET_NAME, c.IS_NULLABLE, "
            "COALESCE(k.ORDINAL_POSITION, 0) FROM information_schema.COLUMNS c "
            "LEFT JOIN information_schema.KEY_COLUMN_USAGE k ON k.TABLE_SCHEMA = c.TABLE_SCHEMA "
            "AND k.TABLE_NAME = c.TABLE_NAME AND k.COLUMN_NAME = c.COLUMN_NAME AND k.CONSTRAINT_NAME = 'PRIMARY' "
            "WHERE c.TABLE_SCHEMA = %s AND c.TABLE_NAME = %s ORDER BY c.ORDINAL_POSITION",
            (database, table),
        )
        return [
            CatalogColumn(str(name), str(kind), str(charset) if charset else None, nullable == "YES", int(key))
            for name, kind, charset, nullable, key in cursor.fetchall()
        ]
