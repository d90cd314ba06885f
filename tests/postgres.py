"""A throwaway PostgreSQL server for the SQL source's tests.

In order: a server named by CONNECTWORKER_TEST_POSTGRES_URL (an SQLAlchemy URL of a database the tests
may fill), else a cluster of our own: `initdb` into a temporary directory and `pg_ctl start` on a free
loopback port, with password authentication (so wrong credentials can be tested) and logical decoding
(`wal_level=logical`, replication slots and WAL senders, and initdb's `host replication` pg_hba lines) for
the change data capture tests. PostgreSQL refuses
to run as root, so as root the cluster belongs to, and runs as, the `postgres` system user (`runuser`).
The server is stopped (`pg_ctl stop`, our own process only) and its directory removed at the end.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

URL_ENV = "CONNECTWORKER_TEST_POSTGRES_URL"
USER, PASSWORD = "postgres", "pg-secret"


@dataclass(frozen=True)
class Postgres:
    host: str
    port: int
    database: str
    user: str = USER
    password: str = PASSWORD
    data_dir: Path | None = None  # None for a server we did not start
    run_as: str | None = None

    @property
    def jdbc_url(self) -> str:
        return f"jdbc:postgresql://{self.host}:{self.port}/{self.database}"

    @property
    def sqlalchemy_url(self) -> str:
        return f"postgresql+psycopg://{self.user}:{self.password}@{self.host}:{self.port}/{self.database}"

    def pg_ctl(self, action: str, *args: str) -> None:
        """Run `pg_ctl ACTION` on our own cluster (stop or start it mid-test); the server's output goes to
        its log file, so nothing waits on a pipe the server keeps open."""
        assert self.data_dir is not None, "not a server these tests started"
        log = ["-l", str(self.data_dir.parent / "server.log")] if action == "start" else []
        _run([_binary("pg_ctl"), "-D", str(self.data_dir), *log, "-w", "-t", "60", action, *args], self.run_as)


def _started(data: Path, run_as: str | None) -> Postgres:
    """The cluster in `data` started on a free loopback port. The port is free when chosen, not reserved: an
    outgoing connection of another test may take it before the server binds it (both come from the ephemeral
    range), so a port found taken is replaced by another one (three tries); any other failure is raised with
    what the server logged."""
    log_file, attempt = data.parent / "server.log", 1
    while True:
        port = _free_port()
        with (data / "postgresql.conf").open("a") as conf:  # the last `port` line is the one PostgreSQL reads
            conf.write(f"port = {port}\n")
        server = Postgres("127.0.0.1", port, "postgres", data_dir=data, run_as=run_as)
        logged = log_file.stat().st_size if log_file.exists() else 0
        try:
            server.pg_ctl("start")
            return server
        except RuntimeError as exc:
            with log_file.open("rb") as log:
                log.seek(logged)
                said = log.read().decode(errors="replace")[-2000:]
            if "already in use" not in said or attempt == 3:
                raise RuntimeError(f"{exc}\nThe server logged:\n{said}") from None
            attempt += 1


def _binary(name: str) -> str:
    found = shutil.which(name) or next(iter(sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"), reverse=True)), None)
    if found is None:
        raise RuntimeError(f"PostgreSQL's {name} is not installed (make test installs Debian's postgresql package)")
    return found


def _run(command: list[str], run_as: str | None) -> None:
    if run_as is not None:
        command = ["runuser", "-u", run_as, "--", *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        output = done.stderr.strip() or done.stdout.strip()
        raise RuntimeError(f"{' '.join(command)} exited {done.returncode}: {output}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def running_postgres(wal_level: str = "logical") -> Iterator[Postgres]:
    named = os.environ.get(URL_ENV)
    if named and wal_level == "logical":
        from sqlalchemy.engine import make_url

        url = make_url(named)
        yield Postgres(
            url.host or "127.0.0.1",
            url.port or 5432,
            url.database or "postgres",
            url.username or USER,
            url.password or "",
        )
        return
    run_as = "postgres" if os.geteuid() == 0 else None
    base = Path(tempfile.mkdtemp(prefix="connectworker-pg-"))
    data, password_file = base / "data", base / "password"
    password_file.write_text(PASSWORD)
    if run_as is not None:
        shutil.chown(base, run_as)
        shutil.chown(password_file, run_as)
    try:
        _run(
            [
                _binary("initdb"),
                "-D",
                str(data),
                "-U",
                USER,
                f"--pwfile={password_file}",
                "--auth=scram-sha-256",
                "--encoding=UTF8",
                "--no-sync",
            ],
            run_as,
        )
        with (data / "postgresql.conf").open("a") as conf:  # kept for a restart mid-test
            conf.write(
                f"listen_addresses = '127.0.0.1'\nunix_socket_directories = '{base}'\n"
                f"fsync = off\nwal_level = {wal_level}\nmax_replication_slots = 20\nmax_wal_senders = 20\n"
            )
        server = _started(data, run_as)
        yield server
    finally:
        if (data / "postmaster.pid").exists():
            _run([_binary("pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"], run_as)
        shutil.rmtree(base, ignore_errors=True)
