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

from connectworker.api.config_def import ConfigDef
from connectworker.api.required_topics import RequiredTopic
from connectworker.embedded_broker import EMBEDDED

from ..debezium.capture_keys import HOSTNAME, PASSWORD, PORT, USER
from ..debezium.connector import DebeziumConnector
from ..debezium.offsets import require_server_partition
from ..debezium.signal_keys import SIGNAL_SERVERS
from ..debezium.unimplemented_tables import MYSQL_KEY_WARNINGS as DEBEZIUM_KEY_WARNINGS
from ..debezium.unimplemented_tables import MYSQL_UNIMPLEMENTED as UNIMPLEMENTED
from .database import check_setup, connect
from .keys import CONFIG_DEF, HISTORY_SERVERS, HISTORY_TOPIC
from .schema_history import history_topic
from .settings import NAMESPACE, MySqlSettings, deprecated_snapshot_mode, parse_settings
from .source import resume_position
from .task import MySqlCdcTask

log = logging.getLogger(__name__)


class MySqlCdcConnector(DebeziumConnector):
    namespace = NAMESPACE
    connection_keys = (HOSTNAME, PORT, USER, PASSWORD)  # in `connect`'s order
    unimplemented = UNIMPLEMENTED
    task_type = MySqlCdcTask
    key_warnings = DEBEZIUM_KEY_WARNINGS
    worker_cluster_keys = (HISTORY_SERVERS, SIGNAL_SERVERS)  # absent or `embedded`: the worker's bootstrap.servers

    def config_def(self) -> ConfigDef:
        return CONFIG_DEF

    def parse_settings(self, props: Mapping[str, str]) -> MySqlSettings:
        settings = parse_settings(props)
        deprecated = deprecated_snapshot_mode(props)
        if deprecated is not None:
            log.warning("Connector %s: %s", props.get("name", type(self).__name__), deprecated)
        return settings

    def check_server(self, props: Mapping[str, str], values: Mapping[str, Any], every_key_holds: bool) -> None:
        connection = connect(*(values[key] for key in self.connection_keys))
        try:
            check_setup(connection)
        finally:
            connection.close()

    def required_topics(self, props: Mapping[str, str]) -> Sequence[RequiredTopic]:
        topic = (props.get(HISTORY_TOPIC) or "").strip()
        servers = (props.get(HISTORY_SERVERS) or "").strip()
        on_the_worker = servers in ("", EMBEDDED)  # the worker's cluster (worker_cluster_keys)
        history = [history_topic(topic, None if on_the_worker else servers)] if topic else []
        return [*history, *super().required_topics(props)]

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
