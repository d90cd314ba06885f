"""`PostgresCdcConnector`: change data capture from PostgreSQL, Debezium's PostgreSQL connector in Python.

One task (a replication slot is read by one client). Validation checks, beyond each key, that the server
decodes logically (`wal_level=logical`), that the user may replicate and that every captured column's type
has a mapping, so a REST create answers 400 and `connectworker standalone` exits 2 naming the setting to
change. See docs/cdc.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigValue
from connectworker.api.errors import ConnectError
from connectworker.api.record import as_json, is_offset_count
from connectworker.api.task import SourceTask

from ..debezium.connector import DebeziumConnector
from ..debezium.offsets import require_server_partition
from ..debezium.validation import validate_on_the_server
from .column_check import check_column_types
from .database import Login, check_setup, connect
from .keys import CONFIG_DEF, DBNAME, HOSTNAME, PASSWORD, PORT, SSLMODE, USER
from .settings import parse_settings, problems_across_keys
from .unimplemented_keys import DEBEZIUM_KEY_WARNINGS, unimplemented_keys

CONNECTION_KEYS = (HOSTNAME, PORT, USER, PASSWORD, DBNAME, SSLMODE)  # in `Login`'s order


class PostgresCdcConnector(DebeziumConnector):
    key_warnings = DEBEZIUM_KEY_WARNINGS

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> dict[str, ConfigValue]:
        def check_server(values: Mapping[str, Any], every_key_holds: bool) -> None:
            login = Login(*(values[key] for key in CONNECTION_KEYS))
            connection = connect(login)
            try:
                check_setup(connection, login)
                if every_key_holds:  # which tables and columns are captured
                    check_column_types(connection, parse_settings(props))
            finally:
                connection.close()

        values = super().validate(props)
        return validate_on_the_server(values, problems_across_keys, check_server, HOSTNAME, CONNECTION_KEYS)

    def check_settings(self, props: Mapping[str, str]) -> None:
        parse_settings(props)

    def unimplemented_keys(self, props: Mapping[str, str]) -> list[str]:
        return unimplemented_keys(props)

    def task_class(self) -> type[SourceTask]:
        from .task import PostgresCdcTask

        return PostgresCdcTask

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
