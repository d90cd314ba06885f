"""Change data capture from MySQL and MariaDB, Debezium-compatible (see docs/cdc.md). Needs the `sql` extra
(PyMySQL, mysql-replication); nothing here imports them until a connector starts."""

from .connector import MySqlCdcConnector
from .task import MySqlCdcTask

__all__ = ["MySqlCdcConnector", "MySqlCdcTask"]
