"""`PostgresCdcConnector`: change data capture from PostgreSQL, Debezium's PostgreSQL connector in Python.

One task (a replication slot is read by one client). Validation checks, beyond each key, that the server
decodes logically (`wal_level=logical`), that the user may replicate and that every captured column's type
has a mapping, so a REST create answers 400 and `connectworker standalone` exits 2 naming the setting to
change. See docs/cdc.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from connectworker.api.config_def import ConfigDef
from connectworker.api.errors import ConnectError
from connectworker.api.record import as_json, is_offset_count

from ..debezium.capture_keys import HOSTNAME, PASSWORD, PORT, USER
from ..debezium.connector import DebeziumConnector
from ..debezium.offsets import require_server_partition
from ..debezium.signal_keys import SIGNAL_SERVERS
from ..debezium.unimplemented_tables import POSTGRES_KEY_WARNINGS as DEBEZIUM_KEY_WARNINGS
from ..debezium.unimplemented_tables import POSTGRES_UNIMPLEMENTED as UNIMPLEMENTED
from .column_check import check_column_types
from .database import Login, check_setup, connect
from .keys import CONFIG_DEF, DBNAME, SSLMODE
from .settings import NAMESPACE, CdcSettings, parse_settings
from .task import PostgresCdcTask


class PostgresCdcConnector(DebeziumConnector):
    namespace = NAMESPACE
    connection_keys = (HOSTNAME, PORT, USER, PASSWORD, DBNAME, SSLMODE)  # in `Login`'s order
    unimplemented = UNIMPLEMENTED
    task_type = PostgresCdcTask
    worker_cluster_keys = (SIGNAL_SERVERS,)  # absent or `embedded`: the worker hands it its bootstrap.servers
    key_warnings = DEBEZIUM_KEY_WARNINGS

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def parse_settings(self, props: Mapping[str, str]) -> CdcSettings:
        return parse_settings(props)

    def check_server(self, props: Mapping[str, str], values: Mapping[str, Any], every_key_holds: bool) -> None:
        login = Login(*(values[key] for key in self.connection_keys))
        connection = connect(login)
        try:
            check_setup(connection, login)
            if every_key_holds:  # which tables and columns are captured
                check_column_types(connection, parse_settings(props))
        finally:
            connection.close()

    def alter_offsets(
        self, props: Mapping[str, str], offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> bool:
        """Debezium's shape: the one partition `{"server": <topic.prefix>}`; an offset None (the next start
        takes a snapshot as `snapshot.mode` says) or one holding the `lsn` (a non-negative integer) to stream
        from. The slot keeps only changes it has not confirmed: an older LSN than the slot's cannot be
        replayed, and a later one skips changes."""
        for partition, offset in offsets:
            require_server_partition(props, partition)
            if offset is None:
                continue
            if not is_offset_count(offset.get("lsn")):
                raise ConnectError(
                    f"An offset is null or holds the LSN to stream from under 'lsn', a non-negative integer (got "
                    f"{as_json(offset)})"
                )
        return True
