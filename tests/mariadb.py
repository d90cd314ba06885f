"""A throwaway MariaDB server for the MySQL / MariaDB change data capture tests.

`mariadb-install-db` into a temporary directory, then `mariadbd` on a free loopback port with the row-based
binary log Debezium needs (`binlog_format=ROW`: MariaDB 10.11 defaults to MIXED; `binlog_row_image=FULL`),
as the `mysql` system user when run as root (mariadbd refuses root otherwise). Fast to start: no InnoDB
doublewrite or fsync, a small buffer pool and log. A `cdc` user with the privileges Debezium documents
(SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, LOCK TABLES) is created; tests use
root for DDL. The server is stopped by its PID (ours only) and its directory removed at the end.
"""

from __future__ import annotations

import itertools
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT_PASSWORD = "root-secret"
USER, PASSWORD = "cdc", "cdc-secret"
SERVER_ID = 1
_REPLICA_IDS = itertools.count(1000)


def replica_id() -> int:
    """A binlog client id (`database.server.id`, a reader's `server_id`) that no other client of this
    process has had: the test servers are per process, and two clients with one id make the server drop
    one for the other over and over (each reconnects), which hung a test once when random ids met."""
    return next(_REPLICA_IDS)


@dataclass(frozen=True)
class MariaDb:
    host: str
    port: int
    user: str = USER
    password: str = PASSWORD
    socket_path: Path | None = None
    pid: int = 0
    control: ServerControl | None = field(default=None, compare=False, repr=False)

    def stop(self) -> None:
        """Stop the server (it goes away); `start` brings it back on the same port and data."""
        assert self.control is not None
        self.control.stop()

    def start(self) -> None:
        assert self.control is not None
        self.control.start()

    def connect(self, database: str | None = None, *, root: bool = True, **kwargs: Any) -> Any:
        import pymysql

        return pymysql.connect(
            host=self.host,
            port=self.port,
            user="root" if root else self.user,
            password=ROOT_PASSWORD if root else self.password,
            database=database,
            autocommit=True,
            **kwargs,
        )

    def execute(self, *statements: str, database: str | None = None) -> None:
        connection = self.connect(database)
        try:
            with connection.cursor() as cursor:
                for statement in statements:
                    cursor.execute(statement)
        finally:
            connection.close()

    def binlog_reader(self, start: tuple[str, int], *only_events: type) -> Any:
        """mysql-replication's reader of the binlog from `start` (file, pos) to its end now (it does not
        block), as the CDC user, with a replica id of its own."""
        from pymysqlreplication import BinLogStreamReader

        return BinLogStreamReader(
            connection_settings={"host": self.host, "port": self.port, "user": self.user, "password": self.password},
            server_id=replica_id(),
            log_file=start[0],
            log_pos=start[1],
            resume_stream=True,
            blocking=False,
            only_events=list(only_events),
            enable_logging=False,
        )

    def query(self, statement: str, database: str | None = None) -> list[tuple[Any, ...]]:
        connection = self.connect(database)
        try:
            with connection.cursor() as cursor:
                cursor.execute(statement)
                return list(cursor.fetchall())
        finally:
            connection.close()


class ServerControl:
    """The server's process, stopped (SIGTERM to its PID, ours only) and started again on the same data
    directory and port: a server going away and coming back, for the tests of a lost connection."""

    def __init__(self, command: list[str], sock: Path, log: Path) -> None:
        self._command, self._sock, self._log = command, sock, log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> subprocess.Popen[bytes]:
        with self._log.open("ab") as log_file:
            self.process = process = subprocess.Popen(self._command, stdout=log_file, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while not self._accepts():
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"mariadbd did not start: {self._log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.05)
        return process

    def _accepts(self) -> bool:
        if not self._sock.exists():
            return False
        with socket.socket(socket.AF_UNIX) as probe:
            try:
                probe.connect(str(self._sock))
            except OSError:
                return False
        return True

    def stop(self) -> None:
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def _binary(*names: str) -> str:
    for name in names:
        found = shutil.which(name) or (f"/usr/sbin/{name}" if Path(f"/usr/sbin/{name}").exists() else None)
        if found:
            return found
    raise RuntimeError(f"MariaDB's {names[0]} is not installed (make test installs Debian's mariadb-server package)")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command)} exited {done.returncode}: {done.stderr.strip() or done.stdout.strip()}"
        )


@contextmanager
def running_mariadb(*, log_bin: bool = True) -> Iterator[MariaDb]:
    """`log_bin=False`: a server without a binary log (a failure path)."""
    run_as = "mysql" if os.geteuid() == 0 else None
    base = Path(tempfile.mkdtemp(prefix="connectworker-mariadb-"))
    data, sock, log = base / "data", base / "mysqld.sock", base / "server.log"
    # A tmpdir of its own, for mariadb-install-db's bootstrap server and the server: a server starting removes
    # every `#sql*` file of its tmpdir (what a crash left), and with a shared /tmp it removed the temporary
    # tables of the other test processes' servers mid-query (seen in a full run: "Error on delete of
    # '/tmp/#sql-temptable-....MAI' (Errcode: 2)", a task FAILED; and a bootstrap's "Unknown table").
    scratch = base / "tmp"
    scratch.mkdir()
    if run_as is not None:
        shutil.chown(base, run_as, run_as)
        shutil.chown(scratch, run_as, run_as)
    user = [f"--user={run_as}"] if run_as else []
    port = _free_port()
    control: ServerControl | None = None
    try:
        _run(
            [
                _binary("mariadb-install-db", "mysql_install_db"),
                "--no-defaults",
                f"--datadir={data}",
                *user,
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                "--skip-name-resolve",
                "--innodb-buffer-pool-size=32M",
                "--innodb-log-file-size=16M",
                f"--tmpdir={scratch}",  # its bootstrap server too (seen: "Unknown table 'mysql.tmp_user_sys'")
            ]
        )
        command = [
            _binary("mariadbd", "mysqld"),
            "--no-defaults",
            f"--datadir={data}",
            f"--socket={sock}",
            f"--port={port}",
            "--bind-address=127.0.0.1",
            f"--pid-file={base / 'mysqld.pid'}",
            f"--tmpdir={scratch}",
            *user,
            *(["--log-bin=binlog", "--binlog-format=ROW", "--binlog-row-image=FULL"] if log_bin else []),
            f"--server-id={SERVER_ID}",
            "--skip-name-resolve",
            "--innodb-buffer-pool-size=32M",
            "--innodb-log-file-size=16M",
            "--innodb-flush-log-at-trx-commit=0",
            "--innodb-doublewrite=0",
            "--sync-binlog=0",
            "--performance-schema=OFF",
            "--max-connections=200",
        ]
        control = ServerControl(command, sock, log)
        process = control.start()
        import pymysql

        root = pymysql.connect(unix_socket=str(sock), user="root", autocommit=True)
        try:
            with root.cursor() as cursor:
                for statement in (
                    f"ALTER USER 'root'@'localhost' IDENTIFIED BY '{ROOT_PASSWORD}'",
                    "CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'",
                    f"ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY '{ROOT_PASSWORD}'",
                    "GRANT ALL ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION",
                    f"CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'",
                    f"GRANT SELECT, RELOAD, SHOW DATABASES, REPLICATION SLAVE, REPLICATION CLIENT, LOCK TABLES "
                    f"ON *.* TO '{USER}'@'%'",
                ):
                    cursor.execute(statement)
        finally:
            root.close()
        yield MariaDb("127.0.0.1", port, socket_path=sock, pid=process.pid, control=control)
    finally:
        if control is not None:
            control.stop()
        shutil.rmtree(base, ignore_errors=True)
