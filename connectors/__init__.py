"""Built-in source connectors, and the aliases the worker accepts for them in `connector.class`.

This folder is installed as the package `connectworker.connectors` (a package-dir mapping in
pyproject.toml); import it by that name. Its modules import each other relatively.
"""

from .datagen import DataGenConnector, DataGenTask
from .file_source import FileStreamSourceConnector, FileStreamSourceTask

_FILE_SOURCE = "connectworker.connectors.file_source.FileStreamSourceConnector"
_DATAGEN = "connectworker.connectors.datagen.DataGenConnector"
_SQL_SOURCE = "connectworker.connectors.sql.connector.SqlSourceConnector"  # needs the `sql` extra
_POSTGRES_CDC = "connectworker.connectors.postgres_cdc.connector.PostgresCdcConnector"  # needs the `sql` extra
_MYSQL_CDC = "connectworker.connectors.mysql_cdc.connector.MySqlCdcConnector"  # needs the `sql` extra

BUILTIN_CONNECTORS: dict[str, str] = {
    "FileStreamSource": _FILE_SOURCE,
    "FileStreamSourceConnector": _FILE_SOURCE,
    # Kafka's own class name, so connector files written for connect-standalone.sh work unchanged.
    "org.apache.kafka.connect.file.FileStreamSourceConnector": _FILE_SOURCE,
    "DataGen": _DATAGEN,
    "DataGenConnector": _DATAGEN,
    "SqlSource": _SQL_SOURCE,
    "SqlSourceConnector": _SQL_SOURCE,
    # Confluent's JDBC source, whose connector files run unchanged apart from the broker address
    "io.confluent.connect.jdbc.JdbcSourceConnector": _SQL_SOURCE,
    "PostgresCdc": _POSTGRES_CDC,
    "PostgresCdcConnector": _POSTGRES_CDC,
    # Debezium's PostgreSQL connector, whose connector files run unchanged (docs/cdc.md says what differs)
    "io.debezium.connector.postgresql.PostgresConnector": _POSTGRES_CDC,
    "MySqlCdc": _MYSQL_CDC,
    "MySqlCdcConnector": _MYSQL_CDC,
    # Debezium's MySQL and MariaDB connectors, whose connector files run unchanged (docs/cdc.md says what differs)
    "io.debezium.connector.mysql.MySqlConnector": _MYSQL_CDC,
    "io.debezium.connector.mariadb.MariaDbConnector": _MYSQL_CDC,
}
"""Alias -> dotted path of the connector class."""

__all__ = [
    "BUILTIN_CONNECTORS",
    "DataGenConnector",
    "DataGenTask",
    "FileStreamSourceConnector",
    "FileStreamSourceTask",
]
