"""The MySQL / MariaDB CDC connector's settings: the shared keys (debezium/settings.py) and its own (keys.py),
parsed once into `MySqlSettings`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..debezium.capture_keys import BINARY_MODE, DECIMAL_MODE
from ..debezium.settings import CaptureSettings, read_settings
from ..debezium.unimplemented_tables import MYSQL_UNIMPLEMENTED as UNIMPLEMENTED
from . import keys as k
from .types import MySqlTypeOptions

NAMESPACE = "database"  # MySQL's tables live in databases: database.include.list, <database>.<table>


@dataclass(frozen=True, kw_only=True)
class MySqlSettings(CaptureSettings):
    replica_id: int  # database.server.id: the connector's own id among the server's replicas
    locking_mode: str
    history_servers: str
    history_topic: str
    schema_changes: bool
    types: MySqlTypeOptions
    skip_unparseable_ddl: bool = False
    connector_name: str = "mysql"  # source.connector: Debezium's module of the connector class (mysql, mariadb)


def parse_settings(props: Mapping[str, str], *, source: str = "MySqlConnector") -> MySqlSettings:
    """The typed settings of `props`; raises ConfigError naming every bad or unsupported key."""
    values, shared = read_settings(k.CONFIG_DEF, props, NAMESPACE, UNIMPLEMENTED, source=source)
    return MySqlSettings(
        **shared,
        replica_id=values[k.SERVER_ID],
        snapshot_mode=snapshot_mode(values[k.SNAPSHOT_MODE]),
        locking_mode=values[k.LOCKING_MODE].lower(),
        history_servers=values[k.HISTORY_SERVERS],
        history_topic=values[k.HISTORY_TOPIC],
        schema_changes=values[k.SCHEMA_CHANGES],
        types=MySqlTypeOptions(
            decimal_handling=values[DECIMAL_MODE].lower(),
            time_precision=values[k.TIME_MODE].lower(),
            binary_handling=values[BINARY_MODE].lower(),
            bigint_unsigned=values[k.BIGINT_MODE].lower(),
        ),
        skip_unparseable_ddl=values[k.SKIP_UNPARSEABLE_DDL],
        connector_name=connector_name(props),
    )


MARIADB_CONNECTOR = "io.debezium.connector.mariadb.MariaDbConnector"


def connector_name(props: Mapping[str, str]) -> str:
    """Debezium's name of the connector the class stands for (its `source.connector`): `mariadb` for its
    MariaDB connector class, `mysql` for its MySQL one and this connector's own names, whatever the server."""
    return "mariadb" if (props.get("connector.class") or "").strip() == MARIADB_CONNECTOR else "mysql"


def snapshot_mode(value: str) -> str:
    """snapshot.mode, Debezium 2.x's deprecated names read as their successors."""
    mode = value.strip().lower()
    return k.DEPRECATED_SNAPSHOT_MODES.get(mode, mode)


def deprecated_snapshot_mode(props: Mapping[str, str]) -> str | None:
    """Debezium's deprecation of a snapshot.mode of its 2.x names, for a warning; None for the others."""
    mode = (props.get(k.SNAPSHOT_MODE) or "").strip().lower()
    successor = k.DEPRECATED_SNAPSHOT_MODES.get(mode)
    if successor is None:
        return None
    return (
        f"{k.SNAPSHOT_MODE}={mode} is deprecated (Debezium: to be removed in Debezium 3.0, replaced by "
        f"{successor}): it runs as {k.SNAPSHOT_MODE}={successor}"
    )
