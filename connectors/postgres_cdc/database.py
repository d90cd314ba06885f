"""Connections to PostgreSQL (psycopg2) and what the connector asks of its catalog.

Two kinds of connection: a plain one (catalog, publication, snapshot) and a replication one
(`LogicalReplicationConnection`: the slot and its stream). Both fix the session settings the value
parsers of `columns.py` rely on.
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from connectworker.api.errors import ConnectError

from ..debezium.setup_errors import SetupError, first_line, raise_setup_errors
from .pgoutput import parse_lsn
from .settings import CdcSettings

if TYPE_CHECKING:
    import psycopg2.extensions

SESSION_OPTIONS = (
    "-c DateStyle=ISO -c TimeZone=UTC -c bytea_output=hex -c extra_float_digits=3 -c IntervalStyle=postgres "
    "-c lc_monetary=C"
)


class ServerLogin(Protocol):
    """How the server is reached: `CdcSettings`, or validation's `Login` while other keys are still wrong."""

    @property
    def host(self) -> str: ...

    @property
    def port(self) -> int: ...

    @property
    def user(self) -> str: ...

    @property
    def password(self) -> str | None: ...

    @property
    def dbname(self) -> str: ...

    @property
    def sslmode(self) -> str: ...


@dataclass(frozen=True)
class Login:
    host: str
    port: int
    user: str
    password: str | None
    dbname: str
    sslmode: str


def connect(
    settings: ServerLogin, *, replication: bool = False, read_only: bool = False
) -> psycopg2.extensions.connection:
    """A connection with the session settings the parsers need. `read_only` (a dry run's): every
    transaction of the session is read-only, so the server itself refuses any write."""
    try:
        import psycopg2
        import psycopg2.extras
    except ImportError:
        raise ConnectError(
            "The PostgreSQL CDC connector needs psycopg2 (its replication protocol API), of "
            "connectworker's sql extra: pip install -e '.[sql]' in the checkout (make run-cdc installs it)"
        ) from None

    kwargs: dict[str, Any] = {}
    if replication:
        kwargs["connection_factory"] = psycopg2.extras.LogicalReplicationConnection
    try:
        connection = psycopg2.connect(
            host=settings.host,
            port=settings.port,
            user=settings.user,
            password=settings.password,
            dbname=settings.dbname,
            sslmode=settings.sslmode,
            options=SESSION_OPTIONS + (" -c default_transaction_read_only=on" if read_only else ""),
            connect_timeout=10,
            application_name="connectworker-cdc",
            **kwargs,
        )
    except psycopg2.OperationalError as exc:
        message = first_line(exc)
        if replication and "replication" in message and ("pg_hba" in message or "permission" in message):
            raise SetupError(
                "database.user",
                f"PostgreSQL refused a replication connection for user "
                f"{settings.user!r}: {message}. It needs the REPLICATION privilege (ALTER ROLE "
                f"{settings.user} REPLICATION) and a 'host replication' line in pg_hba.conf",
            ) from None
        raise ConnectError(
            f"Cannot connect to PostgreSQL at {settings.host}:{settings.port} "
            f"(database {settings.dbname}, user {settings.user!r}): {message}"
        ) from None
    if not replication:
        connection.autocommit = True
    return connection


def check_setup(connection: psycopg2.extensions.connection, settings: ServerLogin) -> None:
    """Raises SetupError (or SetupErrors, both problems) when the server cannot decode logically or the user
    may not replicate."""
    errors: list[SetupError] = []
    with connection.cursor() as cursor:
        cursor.execute("SHOW wal_level")
        (wal_level,) = cursor.fetchone()
        if wal_level != "logical":
            errors.append(
                SetupError(
                    "database.hostname",
                    f"PostgreSQL at {settings.host}:{settings.port} has wal_level={wal_level}; change data capture "
                    f"needs wal_level=logical: set it in postgresql.conf (or ALTER SYSTEM SET wal_level = logical) "
                    f"and restart the server",
                )
            )
        cursor.execute("SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user")
        (may_replicate,) = cursor.fetchone()
        if not may_replicate:
            errors.append(
                SetupError(
                    "database.user",
                    f"User {settings.user!r} lacks the REPLICATION privilege that reading a replication slot "
                    f"needs: ALTER ROLE {settings.user} REPLICATION (or use a superuser)",
                )
            )
    raise_setup_errors(errors)


@dataclass(frozen=True)
class CatalogColumn:
    name: str
    type_oid: int
    type_modifier: int
    type_name: str
    nullable: bool
    key_position: int  # its place in the key (1, 2, ...); 0: not part of it
    type_short_name: str = ""  # pg_type's name of the type: numeric, varchar, _int4


# The key, as Debezium finds it: the primary key, or else the first unique index by name whose columns are
# all plain columns (no expression); each key column numbered by its place in the index.
_COLUMNS = """
SELECT a.attname, a.atttypid, a.atttypmod, format_type(a.atttypid, a.atttypmod), NOT a.attnotnull,
       COALESCE((SELECT k.n FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, n) WHERE k.attnum = a.attnum), 0),
       t.typname
FROM pg_attribute a
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN LATERAL (
    SELECT x.indkey FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid
    WHERE x.indrelid = a.attrelid AND (x.indisprimary OR (x.indisunique AND NOT 0 = ANY(x.indkey::int2[])))
    ORDER BY x.indisprimary DESC, c.relname
    LIMIT 1
) i ON true
WHERE a.attrelid = %s AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
ORDER BY a.attnum"""


def table_columns(connection: psycopg2.extensions.connection, relid: int) -> list[CatalogColumn]:
    with connection.cursor() as cursor:
        cursor.execute(_COLUMNS, (relid,))
        return [CatalogColumn(*row) for row in cursor.fetchall()]


def visible_table_columns(
    connection: psycopg2.extensions.connection, relid: int, names: Collection[str], wait_s: float = 2.0
) -> list[CatalogColumn]:
    """The catalog's columns of a table a Relation message names, once the catalog shows them all.

    The walsender may hand on a transaction a moment before its commit is visible to other sessions, so
    the catalog may not show yet a table created (or a column added) in it, and the table would get no
    key: asked again until the catalog names every one of `names`, for at most `wait_s` (a column dropped
    since then never shows up). `connection` must be in autocommit, so each look-up sees the newest DDL."""
    deadline = time.monotonic() + wait_s
    while True:
        columns = table_columns(connection, relid)
        if set(names) <= {c.name for c in columns} or time.monotonic() >= deadline:
            return columns
        time.sleep(0.01)


def list_tables(connection: psycopg2.extensions.connection, settings: CdcSettings) -> list[tuple[int, str, str]]:
    """The captured ordinary and partitioned tables: (oid, schema, name), in name order."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.oid, n.nspname, c.relname FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relkind IN ('r', 'p') AND n.nspname NOT IN ('pg_catalog', 'information_schema') "
            "AND n.nspname NOT LIKE 'pg_toast%' ORDER BY 2, 3"
        )
        return [(int(oid), schema, name) for oid, schema, name in cursor.fetchall() if settings.captures(schema, name)]


def quote(identifier: str) -> str:
    return '"' + identifier.replace('"', '""') + '"'


def ensure_publication(connection: psycopg2.extensions.connection, settings: CdcSettings) -> None:
    """The publication exists, created as publication.autocreate.mode says. Connectors starting at once may
    share a publication: one that finds another created it meanwhile takes it as it is."""
    import psycopg2.errors

    if publication_exists(connection, settings.publication):
        return
    mode = settings.publication_autocreate
    if mode == "disabled":
        raise SetupError(
            "publication.name",
            f"The publication {settings.publication!r} does not exist and "
            f"publication.autocreate.mode=disabled: create it (CREATE PUBLICATION "
            f"{settings.publication} FOR ...)",
        )
    if mode == "all_tables":
        what = "ALL TABLES"
    else:
        tables = ", ".join(f"{quote(s)}.{quote(t)}" for _, s, t in list_tables(connection, settings))
        if not tables:
            raise SetupError(
                "table.include.list", "publication.autocreate.mode=filtered needs at least one captured table to exist"
            )
        what = f"TABLE {tables}"
    try:
        with connection.cursor() as cursor:
            cursor.execute(f"CREATE PUBLICATION {quote(settings.publication)} FOR {what}")
    except (psycopg2.errors.DuplicateObject, psycopg2.errors.UniqueViolation):
        if not publication_exists(connection, settings.publication):  # not the race: say what happened
            raise


def publication_exists(connection: psycopg2.extensions.connection, publication: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_publication WHERE pubname = %s", (publication,))
        return cursor.fetchone() is not None


@dataclass(frozen=True)
class SlotState:
    """A replication slot as `pg_replication_slots` shows it."""

    confirmed_flush: int | None  # the position its client confirmed last (null for a physical slot)


def slot_state(connection: psycopg2.extensions.connection, slot: str) -> SlotState | None:
    """The slot, or None when there is none of that name."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = %s", (slot,))
        row = cursor.fetchone()
    if row is None:
        return None
    return SlotState(parse_lsn(row[0]) if row[0] else None)


def drop_slot(connection: psycopg2.extensions.connection, slot: str, wait_s: float = 5.0) -> None:
    """Drops the slot once no client streams it: our own walsender ends a moment after we closed its
    connection. A slot still in use after `wait_s` raises SetupError."""
    deadline = time.monotonic() + wait_s
    with connection.cursor() as cursor:
        while True:
            cursor.execute("SELECT active FROM pg_replication_slots WHERE slot_name = %s", (slot,))
            row = cursor.fetchone()
            if row is None:
                return
            if not row[0]:
                cursor.execute("SELECT pg_drop_replication_slot(%s)", (slot,))
                return
            if time.monotonic() > deadline:
                raise SetupError(
                    "slot.name",
                    f"The replication slot {slot!r} is in use by another client: stop "
                    f"it, or give this connector another slot.name",
                )
            time.sleep(0.1)


def check_signal_table(connection: psycopg2.extensions.connection, settings: CdcSettings) -> None:
    """The signal table (signal.data.collection) exists and its changes reach the slot: without it in the
    publication, an incremental snapshot's watermarks would never come back and it would wait for ever."""
    if not settings.signals.table:
        return
    schema, _, table = settings.signals.table.partition(".")
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_tables WHERE schemaname = %s AND tablename = %s", (schema, table))
        if cursor.fetchone() is None:
            raise ConnectError(
                f"The signal table {settings.signals.table} (signal.data.collection) does not exist: create it, "
                "e.g. CREATE TABLE debezium_signal (id varchar(64) PRIMARY KEY, type varchar(32) NOT NULL, "
                "data varchar(2048)), or leave the key out"
            )
        cursor.execute(
            "SELECT 1 FROM pg_publication_tables WHERE pubname = %s AND schemaname = %s AND tablename = %s",
            (settings.publication, schema, table),
        )
        if cursor.fetchone() is None:
            raise ConnectError(
                f"The signal table {settings.signals.table} (signal.data.collection) is not in publication "
                f"{settings.publication}, so its watermarks would never reach the connector: ALTER PUBLICATION "
                f"{settings.publication} ADD TABLE {quote(schema)}.{quote(table)}"
            )
