"""`MySqlCdcConnector`: change data capture from MySQL and MariaDB, Debezium's MySQL (and MariaDB) connector
in Python.

One task (a binlog is read by one replica). Validation checks, beyond each key, that the server keeps a
row-based binary log with full row images and that the user may read it, so a REST create answers 400 and
`connectworker standalone` exits 2 naming the setting to change. The schema history topic is a required
topic: the worker creates it (one partition, infinite retention) before the first record. See docs/cdc.md.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from connectworker.api.config_def import ConfigDef, ConfigValue
from connectworker.api.required_topics import RequiredTopic
from connectworker.api.task import SourceTask
from connectworker.embedded_broker import EMBEDDED

from ..debezium.connector import DebeziumConnector
from ..debezium.offsets import require_server_partition
from ..debezium.validation import validate_on_the_server
from .database import check_setup, connect
from .keys import CONFIG_DEF, HISTORY_SERVERS, HISTORY_TOPIC, HOSTNAME, PASSWORD, PORT, USER
from .schema_history import history_topic
from .settings import deprecated_snapshot_mode, parse_settings, problems_across_keys, unsupported_key_problems
from .source import resume_position
from .unimplemented_keys import DEBEZIUM_KEY_WARNINGS, unimplemented_keys

log = logging.getLogger(__name__)

CONNECTION_KEYS = (HOSTNAME, PORT, USER, PASSWORD)  # in `connect`'s order


class MySqlCdcConnector(DebeziumConnector):
    key_warnings = DEBEZIUM_KEY_WARNINGS
    worker_cluster_keys = (HISTORY_SERVERS,)  # absent or `embedded`: the worker hands it its bootstrap.servers

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def validate(self, props: Mapping[str, str]) -> dict[str, ConfigValue]:
        def check_server(values: Mapping[str, Any], every_key_holds: bool) -> None:
            connection = connect(*(values[key] for key in CONNECTION_KEYS))
            try:
                check_setup(connection)
            finally:
                connection.close()

        values = super().validate(props)
        for key, problem in unsupported_key_problems(props).items():
            values.setdefault(key, ConfigValue(key, props[key])).errors.append(problem)
        return validate_on_the_server(values, problems_across_keys, check_server, HOSTNAME, CONNECTION_KEYS)

    def check_settings(self, props: Mapping[str, str]) -> None:
        parse_settings(props)
        deprecated = deprecated_snapshot_mode(props)
        if deprecated is not None:
            log.warning("Connector %s: %s", props.get("name", type(self).__name__), deprecated)

    def unimplemented_keys(self, props: Mapping[str, str]) -> list[str]:
        return unimplemented_keys(props)

    def task_class(self) -> type[SourceTask]:
        from .task import MySqlCdcTask

        return MySqlCdcTask

    def required_topics(self, props: Mapping[str, str]) -> Sequence[RequiredTopic]:
        topic = (props.get(HISTORY_TOPIC) or "").strip()
        servers = (props.get(HISTORY_SERVERS) or "").strip()
        on_the_worker = servers in ("", EMBEDDED)  # the worker's cluster (worker_cluster_keys)
        return [history_topic(topic, None if on_the_worker else servers)] if topic else []

    def alter_offsets(
        self, props: Mapping[str, str], offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> bool:
        """Debezium's shape: the one partition `{"server": <topic.prefix>}`; an offset None (the next start
        takes a snapshot as `snapshot.mode` says) or one holding the binlog `file` and `pos` to stream from
        (and optionally `gtids`, `event`, `row`, `server_id`, `ts_sec`)."""
        for partition, offset in offsets:
            require_server_partition(props, partition)
            if offset is not None:
                resume_position(offset)
        return True
