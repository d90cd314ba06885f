"""What a DDL statement does to the schema, as the parser (ddl_parser.py) reads it and the held schema
(schema_apply.py) applies it: a statement is a sequence of these edits, in the order they take effect.

Names are as written (unquoted); a table is (database, table), its database the statement's own when it
did not name one. A column definition says only what the statement says: its character set stays None
when the statement gave none (the table's default applies), its nullability None when not said.
"""

from __future__ import annotations

from dataclasses import dataclass

from connectworker.api.errors import ConnectError

TableId = tuple[str, str]  # (database, table)
Position = tuple[str, str | None] | None  # ("FIRST", None), ("AFTER", column), or None: at the end / in place


class UnparseableDdlError(ConnectError):
    """A DDL statement the parser cannot read; the message says what it could not."""


@dataclass(frozen=True)
class ColumnDefinition:
    name: str
    type_name: str  # MySQL's, upper case, with UNSIGNED / ZEROFILL: "INT UNSIGNED", "VARCHAR", "BOOLEAN"
    length: int | None = None
    scale: int | None = None
    enum_values: tuple[str, ...] = ()
    charset: str | None = None  # CHARACTER SET (or implied: NATIONAL, ASCII, UNICODE)
    collation: str | None = None
    nullable: bool | None = None
    auto_increment: bool = False
    generated: bool = False
    has_default: bool = False
    default: str | None = None
    comment: str | None = None
    primary_key: bool = False
    unique: bool = False


# -- ALTER TABLE's actions -------------------------------------------------------------------------
@dataclass(frozen=True)
class AddColumn:
    column: ColumnDefinition
    position: Position = None
    if_not_exists: bool = False


@dataclass(frozen=True)
class DropColumn:
    name: str


@dataclass(frozen=True)
class ChangeColumn:
    """MODIFY (`old` is the column's own name) or CHANGE (`old` renamed to `column.name`)."""

    old: str
    column: ColumnDefinition
    position: Position = None


@dataclass(frozen=True)
class RenameColumn:
    old: str
    new: str


@dataclass(frozen=True)
class ColumnDefault:
    """ALTER COLUMN ... SET DEFAULT (`has_default`) or DROP DEFAULT."""

    name: str
    has_default: bool
    default: str | None = None


@dataclass(frozen=True)
class AddPrimaryKey:
    columns: tuple[str, ...]


@dataclass(frozen=True)
class DropPrimaryKey:
    pass


@dataclass(frozen=True)
class AddUniqueKey:
    """A unique index: the table's key in Debezium's model when it has no primary key."""

    columns: tuple[str, ...]


@dataclass(frozen=True)
class RenameTo:
    table: TableId


@dataclass(frozen=True)
class TableCharset:
    """The table's default character set (`convert`: CONVERT TO CHARACTER SET, its text columns too)."""

    charset: str | None
    collation: str | None
    convert: bool = False


AlterAction = (
    AddColumn
    | DropColumn
    | ChangeColumn
    | RenameColumn
    | ColumnDefault
    | AddPrimaryKey
    | DropPrimaryKey
    | AddUniqueKey
    | RenameTo
    | TableCharset
)


# -- statements ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class CreateTable:
    table: TableId
    columns: tuple[ColumnDefinition, ...] = ()
    primary_key: tuple[str, ...] = ()
    unique_keys: tuple[tuple[str, ...], ...] = ()
    charset: str | None = None
    collation: str | None = None
    comment: str | None = None
    like: TableId | None = None  # CREATE TABLE ... LIKE: the columns and key of that table
    if_not_exists: bool = False


@dataclass(frozen=True)
class AlterTable:
    """ALTER TABLE's actions in order; also CREATE / DROP INDEX (`signalled` False: Debezium reports those
    only when they change the table's key)."""

    table: TableId
    actions: tuple[AlterAction, ...]
    signalled: bool = True


@dataclass(frozen=True)
class DropTables:
    tables: tuple[TableId, ...]


@dataclass(frozen=True)
class RenameTables:
    pairs: tuple[tuple[TableId, TableId], ...]


@dataclass(frozen=True)
class TruncateTable:
    table: TableId


@dataclass(frozen=True)
class DatabaseCharset:
    """CREATE DATABASE (`created`) or ALTER DATABASE: its default character set from here."""

    database: str
    charset: str | None
    collation: str | None
    created: bool = False


@dataclass(frozen=True)
class DropDatabase:
    database: str


@dataclass(frozen=True)
class ServerCharset:
    """SET character_set_server / collation_server (as Debezium's snapshot records them): the default of a
    database created without one."""

    charset: str | None
    collation: str | None


Edit = (
    CreateTable
    | AlterTable
    | DropTables
    | RenameTables
    | TruncateTable
    | DatabaseCharset
    | DropDatabase
    | ServerCharset
)
