"""Connecting to the database: JDBC URLs as Confluent's connector takes them, SQLAlchemy URLs too.

`jdbc:postgresql://host:5432/db?user=u` becomes `postgresql+psycopg://u@host:5432/db` (psycopg 3),
`jdbc:sqlite:/path/file.db` becomes `sqlite:////path/file.db`, and an SQLAlchemy URL is used as written
(a bare `postgresql://` gets the psycopg 3 driver, the one this connector installs).
`connection.user` and `connection.password` win over a user and password in the URL, as in Kafka.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, urlsplit

from connectworker.api.errors import ConfigError, ConnectError

from .settings import CONNECTION_URL, SqlSourceSettings

if TYPE_CHECKING:
    from sqlalchemy.engine import URL, Engine

log = logging.getLogger(__name__)

_JDBC_DRIVERS = {
    "postgresql": "postgresql+psycopg",
    "postgres": "postgresql+psycopg",
    "mysql": "mysql+pymysql",
    "mariadb": "mariadb+pymysql",
    "sqlserver": "mssql+pyodbc",
    "oracle": "oracle+oracledb",
}
_PLAIN_DRIVERS = {"postgresql": "postgresql+psycopg", "postgres": "postgresql+psycopg"}
CONNECT_TIMEOUT_S = 10
"""How long a PostgreSQL connection attempt may take (unless the URL sets `connect_timeout`)."""
# JDBC URL parameters that are credentials, not driver options
_CREDENTIAL_PARAMS = {"user": "username", "password": "password"}


def sqlalchemy_url(settings: SqlSourceSettings) -> URL:
    """The SQLAlchemy URL of `settings`' database, with the user and password applied."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    raw = settings.connection_url
    try:
        url = _from_jdbc(raw) if raw.lower().startswith("jdbc:") else make_url(raw)
    except (ArgumentError, ValueError) as exc:
        raise ConfigError(
            {
                CONNECTION_URL: f"{_redacted(raw)} is neither a JDBC URL (jdbc:postgresql://host:5432/"
                f"db, jdbc:sqlite:/path/file.db) nor an SQLAlchemy URL: {exc}"
            }
        ) from None
    if url.drivername in _PLAIN_DRIVERS:
        url = url.set(drivername=_PLAIN_DRIVERS[url.drivername])
    if settings.user:
        url = url.set(username=settings.user)
    if settings.password:
        url = url.set(password=settings.password)
    return url


def _from_jdbc(raw: str) -> URL:
    from sqlalchemy.engine import URL

    rest = raw[len("jdbc:") :]
    kind, _, target = rest.partition(":")
    kind = kind.lower()
    if kind == "sqlite":
        if target in ("", ":memory:"):
            return URL.create("sqlite")
        return URL.create("sqlite", database=target.removeprefix("//") if target.startswith("///") else target)
    if kind not in _JDBC_DRIVERS:
        raise ValueError(
            f"the JDBC subprotocol {kind!r} is not known; known: sqlite, "
            f"{', '.join(sorted(_JDBC_DRIVERS))}, or give an SQLAlchemy URL"
        )
    parts = urlsplit(target)
    if not parts.hostname:
        raise ValueError("no host after jdbc:" + kind + "://")
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    credentials = {_CREDENTIAL_PARAMS[k]: query.pop(k) for k in list(query) if k in _CREDENTIAL_PARAMS}
    return URL.create(
        _JDBC_DRIVERS[kind],
        host=parts.hostname,
        port=parts.port,
        database=parts.path.lstrip("/") or None,
        query=query,
        **credentials,
    )


def _redacted(raw: str) -> str:
    """`raw` with any password in it hidden, for messages."""
    if "password=" in raw:
        head, _, tail = raw.partition("password=")
        return head + "password=[hidden]" + ("&" + tail.split("&", 1)[1] if "&" in tail else "")
    parts = urlsplit(raw.removeprefix("jdbc:"))
    if parts.password:
        return raw.replace(":" + parts.password + "@", ":[hidden]@")
    return raw


def create_engine(settings: SqlSourceSettings) -> Engine:
    """An engine for the database (connecting lazily); raises ConfigError naming `connection.url` when
    the URL names a driver that is not installed."""
    import sqlalchemy
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    url = sqlalchemy_url(settings)
    connect_args: dict[str, object] = {}
    if url.get_backend_name() == "postgresql" and "connect_timeout" not in url.query:
        connect_args["connect_timeout"] = CONNECT_TIMEOUT_S  # libpq waits forever for a host that never answers
    try:
        return sqlalchemy.create_engine(url, pool_pre_ping=True, connect_args=connect_args)
    except (NoSuchModuleError, ArgumentError, ImportError) as exc:
        raise ConfigError(
            {
                CONNECTION_URL: f"cannot use {url.render_as_string(hide_password=True)}: {exc} "
                f"(install the database's SQLAlchemy driver)"
            }
        ) from None


def connect_with_retries(
    engine: Engine,
    settings: SqlSourceSettings,
    sleep: Callable[[float], object] = time.sleep,
) -> None:
    """Check that the database answers, trying `connection.attempts` times `connection.backoff.ms` apart;
    raises ConnectError naming `connection.url` (and the user) with the database's own reason."""
    from sqlalchemy import text
    from sqlalchemy.exc import DBAPIError

    last: DBAPIError | None = None
    for attempt in range(1, settings.connection_attempts + 1):
        try:
            with engine.connect() as connection:
                connection.execute(text("SELECT 1"))
            return
        except DBAPIError as exc:
            last = exc
            log.warning(
                "Connecting to %s failed (attempt %d of %d): %s",
                describe(engine),
                attempt,
                settings.connection_attempts,
                first_line(exc),
            )
            if attempt < settings.connection_attempts:
                sleep(settings.connection_backoff_s)
    assert last is not None
    who = f" as user {engine.url.username!r}" if engine.url.username else ""
    raise ConnectError(
        f"Cannot connect to the database of {CONNECTION_URL} ({describe(engine)}){who} after "
        f"{settings.connection_attempts} attempt(s): {first_line(last)}"
    )


def describe(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=True)


def first_line(exc: BaseException) -> str:
    """The driver's own message, without SQLAlchemy's trailing background link and the SQL."""
    original = getattr(exc, "orig", None)
    text = str(original if original is not None else exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
