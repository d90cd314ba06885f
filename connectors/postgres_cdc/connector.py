"""`PostgresCdcConnector`: change data capture from PostgreSQL, Debezium's PostgreSQL connector in Python.

One task (a replication slot is read by one client). Validation checks, beyond each key, that the server
decodes logically (`wal_level=logical`) and that the user may replicate, so a REST create answers 400 and
`connectworker standalone` exits 2 naming the setting to change. See docs/cdc.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import connectworker
from connectworker.api.config_def import ConfigDef, ConfigValue
from connectworker.api.connector import SourceConnector, offset_refusal
from connectworker.api.errors import ConnectError
from connectworker.api.exactly_once import ExactlyOnceSupport
from connectworker.api.record import is_offset_count
from connectworker.api.task import SourceTask

from ..debezium.offsets import exactly_once_support, require_server_partition
from ..debezium.validation import validate_on_the_server
from .database import check_setup, connect
from .keys import CONFIG_DEF, HOSTNAME
from .settings import parse_settings, problems_across_keys
from .unimplemented_keys import DEBEZIUM_KEY_WARNINGS, unimplemented_keys


class PostgresCdcConnector(SourceConnector):
    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    def version(self) -> str:
        return connectworker.__version__

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> dict[str, ConfigValue]:
        def check_server() -> None:
            settings = parse_settings(props)
            connection = connect(settings)
            try:
                check_setup(connection, settings)
            finally:
                connection.close()

        return validate_on_the_server(super().validate(props), problems_across_keys, check_server, HOSTNAME)

    def start(self, props: Mapping[str, str]) -> None:
        parse_settings(props)
        self._props = dict(props)
        DEBEZIUM_KEY_WARNINGS.report(props.get("name", "postgres-cdc"), unimplemented_keys(props))

    def task_class(self) -> type[SourceTask]:
        from .task import PostgresCdcTask

        return PostgresCdcTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        """One task whatever tasks.max says, as Debezium: a slot streams to one client."""
        return [{}]

    def stop(self) -> None:
        self._props = {}

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport | None:
        """Streaming resumes exactly after the committed change (a transaction cut short is skipped up to
        it); a snapshot cut short is read again from the start, so only modes without one qualify."""
        return exactly_once_support(props)

    def unused_offset_reason(
        self, props: Mapping[str, str], partition: Mapping[str, Any], offset: Mapping[str, Any]
    ) -> str | None:
        """An offset of another `topic.prefix` (a renamed connector's server), or a malformed one."""
        return offset_refusal(self, props, partition, offset)

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
                    f"{dict(offset)!r})"
                )
        return True
