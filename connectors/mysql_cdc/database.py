"""Connections to MySQL / MariaDB and the server checks Debezium's MySQL connector needs to hold before a
snapshot: a binary log (`log_bin`), row-based (`binlog_format=ROW`) with full row images
(`binlog_row_image=FULL`), and a user holding REPLICATION SLAVE and REPLICATION CLIENT (MariaDB 10.5+ names
the latter BINLOG MONITOR). Each failure is a `SetupError` naming the config key to blame and the change to
make, so validation answers on that key and a task fails with the reason.
"""

from __future__ import annotations

import functools
import ssl
from dataclasses import dataclass
from typing import Any

from connectworker.api.errors import ConnectError

from ..debezium.setup_errors import SetupError, first_line, raise_setup_errors

HOSTNAME, PORT, USER, PASSWORD = "database.hostname", "database.port", "database.user", "database.password"
SESSION_INIT = "SET time_zone = '+00:00'"  # a snapshot reads TIMESTAMP in the session's zone; the binlog is UTC
ACCESS_DENIED, UNKNOWN_HOST, CANNOT_CONNECT = 1045, 2005, 2003

__all__ = ["ServerInfo", "SetupError", "check_position_available", "check_setup", "connect", "open_connection"]


@dataclass(frozen=True)
class ServerInfo:
    version: str
    mariadb: bool
    server_id: int
    full_row_metadata: bool = False  # binlog_row_metadata=FULL: each table map says its columns


@functools.cache
def _preferred_tls() -> ssl.SSLContext:
    """The TLS context of PyMySQL's default mode (TLS when the server offers it, its certificate not
    verified, as MySQL's own client and Debezium's `database.ssl.mode=preferred` do), made once."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


@functools.cache
def _connection_class() -> type:
    import pymysql.connections

    class Connection(pymysql.connections.Connection):
        """PyMySQL's connection, but its default mode's TLS context made once per process: PyMySQL makes one
        per connection, loading the system's CA certificates (50 to 200 ms each, five connections to a
        task's start) that this mode never checks a certificate against."""

        def _create_ssl_ctx(self, sslp: Any) -> Any:
            return _preferred_tls() if sslp == {} else super()._create_ssl_ctx(sslp)

    return Connection


def open_connection(**kwargs: Any) -> Any:
    """`pymysql.connect(**kwargs)`, with the TLS context of its default mode shared (see _connection_class)."""
    return _connection_class()(**kwargs)


def connect(host: str, port: int, user: str, password: str | None, *, database: str | None = None) -> Any:
    """A PyMySQL connection in a UTC session; a wrong password or user is a SetupError on database.password,
    an unreachable server a ConnectError naming host and port."""
    try:
        import pymysql
    except ImportError:
        raise ConnectError(
            "The MySQL CDC connector needs PyMySQL, of connectworker's sql extra: pip install -e '.[sql]' in the "
            "checkout (make run-cdc installs it)"
        ) from None
    try:
        return open_connection(
            host=host,
            port=port,
            user=user,
            password=password or "",
            database=database,
            autocommit=True,
            connect_timeout=10,
            init_command=SESSION_INIT,
            binary_prefix=False,
        )
    except pymysql.err.OperationalError as exc:
        code = exc.args[0] if exc.args else 0
        if code == ACCESS_DENIED:
            raise SetupError(
                PASSWORD, f"The server refused user {user!r} (wrong user or password): {first_line(exc)}"
            ) from None
        raise ConnectError(f"Cannot connect to MySQL at {host}:{port}: {first_line(exc)}") from None


def _variables(connection: Any, *names: str) -> dict[str, str]:
    with connection.cursor() as cursor:
        cursor.execute(f"SHOW GLOBAL VARIABLES WHERE Variable_name IN ({', '.join(['%s'] * len(names))})", names)
        return {str(name).lower(): str(value) for name, value in cursor.fetchall()}


def _grants(connection: Any) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW GRANTS FOR CURRENT_USER()")
        return " ".join(str(row[0]) for row in cursor.fetchall()).upper()


def check_setup(connection: Any) -> ServerInfo:
    """The server's version and id; raises SetupError (or SetupErrors, every problem found) when it cannot be
    captured from."""
    found = _variables(
        connection, "log_bin", "binlog_format", "binlog_row_image", "binlog_row_metadata", "version", "server_id"
    )
    errors: list[SetupError] = []
    if found.get("log_bin", "OFF").upper() not in ("ON", "1"):
        errors.append(
            SetupError(
                HOSTNAME,
                "The server has no binary log (log_bin is OFF): start it with --log-bin (and --binlog-format=ROW, "
                "--binlog-row-image=FULL) so that changes can be streamed",
            )
        )
    binlog_format = found.get("binlog_format", "").upper()
    logging = not errors  # without a binary log its format is moot: the message above names the flags
    if logging and binlog_format != "ROW":
        errors.append(
            SetupError(
                HOSTNAME,
                f"The server's binlog_format is {binlog_format or 'unknown'}; change data capture needs ROW "
                "(SET GLOBAL binlog_format = 'ROW', and binlog_format=ROW in its configuration)",
            )
        )
    row_image = found.get("binlog_row_image", "FULL").upper()
    if logging and row_image != "FULL":
        errors.append(
            SetupError(
                HOSTNAME,
                f"The server's binlog_row_image is {row_image}; change data capture needs FULL "
                "(SET GLOBAL binlog_row_image = 'FULL', and binlog_row_image=FULL in its configuration)",
            )
        )
    grants = _grants(connection)
    every = "ALL PRIVILEGES ON *.*" in grants
    missing = [
        name
        for name, spellings in (
            ("REPLICATION SLAVE", ("REPLICATION SLAVE",)),
            ("REPLICATION CLIENT", ("REPLICATION CLIENT", "BINLOG MONITOR")),
        )
        if not every and not any(spelling in grants for spelling in spellings)
    ]
    if missing:
        errors.append(
            SetupError(
                USER,
                f"The user lacks the {' and '.join(missing)} privilege{'s' if len(missing) > 1 else ''} the binlog "
                f"is read with: GRANT {', '.join(missing)} ON *.* TO the connector's user",
            )
        )
    raise_setup_errors(errors)
    version = found.get("version", "")
    return ServerInfo(
        version,
        "mariadb" in version.lower(),
        int(found.get("server_id", "0") or 0),
        found.get("binlog_row_metadata", "").upper() == "FULL",
    )


def check_position_available(connection: Any, file: str, pos: int) -> None:
    """Raises ConnectError when the binlog file an offset resumes from is gone (purged, or another server's):
    the changes since it are lost, and only a new snapshot recovers (snapshot.mode=when_needed)."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW BINARY LOGS")
        sizes = {str(row[0]): int(row[1]) for row in cursor.fetchall()}
    if file not in sizes:
        kept = f"{min(sizes)} to {max(sizes)}" if sizes else "none"
        raise ConnectError(
            f"The binlog position {file}:{pos} the connector resumes from is no longer on the server (binlogs "
            f"kept: {kept}; it was purged): changes since then are lost. Set snapshot.mode=when_needed to take a "
            "new snapshot, or reset the connector's offsets."
        )
    if pos > sizes[file]:
        raise ConnectError(
            f"The binlog position {file}:{pos} is past the end of {file} ({sizes[file]} bytes): the offsets are "
            "another server's. Set snapshot.mode=when_needed to take a new snapshot, or reset the offsets."
        )
