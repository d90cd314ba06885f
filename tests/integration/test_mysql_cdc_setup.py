"""The server checks of the MySQL CDC connector (connectors/mysql_cdc/database.py) against a real MariaDB:
each setup a binlog cannot be captured from is refused naming the config key to blame and the fix."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from connectworker.api.errors import ConnectError
from connectworker.connectors.mysql_cdc.database import SetupError, check_position_available, check_setup, connect
from tests.integration.mysql_cdc_helpers import purge_binlogs
from tests.mariadb import PASSWORD, SERVER_ID, USER, MariaDb, running_mariadb


def _check(server: MariaDb, user: str = USER, password: str = PASSWORD) -> None:
    connection = connect(server.host, server.port, user, password)
    try:
        check_setup(connection)
    finally:
        connection.close()


@contextmanager
def _global(server: MariaDb, name: str, value: str) -> Iterator[None]:
    [(before,)] = server.query(f"SELECT @@GLOBAL.{name}")
    server.execute(f"SET GLOBAL {name} = '{value}'")
    try:
        yield
    finally:
        server.execute(f"SET GLOBAL {name} = '{before}'")


def test_a_server_set_up_for_capture_passes_and_names_itself(mariadb: MariaDb) -> None:
    connection = connect(mariadb.host, mariadb.port, USER, PASSWORD)
    try:
        info = check_setup(connection)
    finally:
        connection.close()
    assert info.mariadb and info.server_id == SERVER_ID and info.version.startswith("10.11")
    assert not info.full_row_metadata  # MariaDB's default NO_LOG: the task warns at its start


def test_full_row_metadata_is_seen(mariadb: MariaDb) -> None:
    mariadb.execute("SET GLOBAL binlog_row_metadata = 'FULL'")
    connection = connect(mariadb.host, mariadb.port, USER, PASSWORD)
    try:
        assert check_setup(connection).full_row_metadata
    finally:
        connection.close()
        mariadb.execute("SET GLOBAL binlog_row_metadata = 'NO_LOG'")


def test_binlog_format_other_than_row_is_refused(mariadb: MariaDb) -> None:
    with _global(mariadb, "binlog_format", "MIXED"), pytest.raises(SetupError) as refused:
        _check(mariadb)
    assert refused.value.key == "database.hostname"
    assert "binlog_format is MIXED; change data capture needs ROW" in str(refused.value)


def test_binlog_row_image_other_than_full_is_refused(mariadb: MariaDb) -> None:
    with _global(mariadb, "binlog_row_image", "MINIMAL"), pytest.raises(SetupError) as refused:
        _check(mariadb)
    assert refused.value.key == "database.hostname"
    assert "binlog_row_image is MINIMAL; change data capture needs FULL" in str(refused.value)


def test_a_server_without_a_binary_log_is_refused() -> None:
    with running_mariadb(log_bin=False) as server, pytest.raises(SetupError) as refused:
        _check(server)
    assert refused.value.key == "database.hostname"
    assert "no binary log (log_bin is OFF): start it with --log-bin" in str(refused.value)


def test_missing_replication_privileges_are_named(mariadb: MariaDb) -> None:
    user = f"u_{uuid.uuid4().hex[:8]}"
    mariadb.execute(f"CREATE USER '{user}'@'%' IDENTIFIED BY 'pw'", f"GRANT SELECT, RELOAD ON *.* TO '{user}'@'%'")
    try:
        with pytest.raises(SetupError) as refused:
            _check(mariadb, user, "pw")
        assert refused.value.key == "database.user"
        assert "lacks the REPLICATION SLAVE and REPLICATION CLIENT privileges" in str(refused.value)
        mariadb.execute(f"GRANT REPLICATION SLAVE ON *.* TO '{user}'@'%'")
        with pytest.raises(SetupError, match=r"lacks the REPLICATION CLIENT privilege the binlog"):
            _check(mariadb, user, "pw")
    finally:
        mariadb.execute(f"DROP USER '{user}'@'%'")


def test_a_wrong_password_is_refused_on_database_password(mariadb: MariaDb) -> None:
    with pytest.raises(SetupError) as refused:
        _check(mariadb, USER, "not-the-password")
    assert refused.value.key == "database.password"
    assert f"The server refused user '{USER}' (wrong user or password)" in str(refused.value)


def test_an_unreachable_server_names_host_and_port(mariadb: MariaDb) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ConnectError, match=rf"Cannot connect to MySQL at 127\.0\.0\.1:{port}"):
        connect("127.0.0.1", port, USER, PASSWORD)


def test_a_purged_binlog_position_fails_naming_when_needed(mariadb: MariaDb) -> None:
    [(old_file, old_pos, *_)] = mariadb.query("SHOW MASTER STATUS")
    connection = connect(mariadb.host, mariadb.port, USER, PASSWORD)
    try:
        check_position_available(connection, old_file, old_pos)  # still kept: fine
        purge_binlogs(mariadb)
        [(new_file, *_)] = mariadb.query("SHOW MASTER STATUS")
        with pytest.raises(ConnectError) as refused:
            check_position_available(connection, old_file, old_pos)
        with pytest.raises(ConnectError, match=r"past the end of"):
            check_position_available(connection, new_file, 10**12)
    finally:
        connection.close()
    assert f"{old_file}:{old_pos} the connector resumes from is no longer on the server" in str(refused.value)
    assert "Set snapshot.mode=when_needed to take a new snapshot" in str(refused.value)


def test_connections_share_one_tls_context_that_loads_no_certificates(mariadb: MariaDb) -> None:
    """PyMySQL's default mode (TLS when the server offers it, unverified) made a context per connection,
    loading the system's CA certificates each time: a task's start opens five connections."""
    first = connect(mariadb.host, mariadb.port, USER, PASSWORD)
    second = connect(mariadb.host, mariadb.port, USER, PASSWORD)
    try:
        assert first.ctx is second.ctx
        assert first.ctx.cert_store_stats()["x509_ca"] == 0
        with second.cursor() as cursor:
            cursor.execute("SELECT 1")
            assert cursor.fetchone() == (1,)
    finally:
        first.close()
        second.close()
