"""The schema the connector holds at a binlog position: every table of the captured databases (their
columns, keys and default character sets), each database's default character set and the server's; and
the applying of a DDL statement's edits (ddl_parser.py) to it, in binlog order, as Debezium's MySQL DDL
parser applies a statement to its `Tables`.

What MySQL decides that a statement leaves unsaid is decided here as MySQL does: a text column without a
character set takes its collation's, else the table's default, which is the table's own, else its
database's, else the server's (`utf8` is `utf8mb3`, as MySQL 8 and MariaDB 10.6+ name it); `CHARACTER SET
binary` makes CHAR / VARCHAR / TEXT the binary types; `TEXT(n)` / `BLOB(n)` are the smallest TEXT / BLOB
types holding n characters / bytes; primary key columns are NOT NULL; `CONVERT TO CHARACTER SET` widens a
TEXT type whose characters would no longer fit. As in Debezium, a table without a primary key is keyed
by its first unique key. Statements on tables the connector holds no schema of change nothing (a warning
says so); a table of a database not captured is not held.

Each applied statement gives Debezium's table changes (history.TableChange): CREATE, ALTER (a rename
carries the previous name) and DROP, with the tables afterwards.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from .column_definitions import TEXT_SIZES, charset_name, charset_of, resolve_column, sized_type
from .ddl import ddl_tables
from .ddl_edits import (
    AddColumn,
    AddPrimaryKey,
    AddUniqueKey,
    AlterAction,
    AlterTable,
    ChangeColumn,
    ColumnDefault,
    CreateTable,
    DatabaseCharset,
    DropColumn,
    DropDatabase,
    DropPrimaryKey,
    DropTables,
    Edit,
    Position,
    RenameColumn,
    RenameTables,
    RenameTo,
    ServerCharset,
    TableCharset,
    TruncateTable,
)
from .history import HistoryRecord, TableChange, not_after
from .source import Position as BinlogPosition
from .tables import Column, Table, TableId, widest_character

log = logging.getLogger(__name__)


@dataclass
class _Editing:
    """A table while an ALTER TABLE's actions apply to it."""

    id: TableId
    columns: list[Column]
    primary_key: tuple[str, ...]
    charset: str | None

    def find(self, name: str) -> int | None:
        lowered = name.lower()
        return next((i for i, c in enumerate(self.columns) if c.name.lower() == lowered), None)

    def place(self, column: Column, position: Position, at: int | None) -> None:
        """Put `column` at `position` (FIRST / AFTER x), or where it was (`at`), or last."""
        if position is not None:
            where, after = position
            index = 0 if where == "FIRST" else self.find(after or "")
            self.columns.insert(len(self.columns) if index is None else index + (where != "FIRST"), column)
        else:
            self.columns.insert(len(self.columns) if at is None else at, column)

    def rename_in_key(self, old: str, new: str | None) -> None:
        """A key column renamed (or, `new` None, dropped from the key)."""
        renamed = (new if name.lower() == old.lower() else name for name in self.primary_key)
        self.primary_key = tuple(name for name in renamed if name is not None)

    def table(self, comment: str | None) -> Table:
        keyed = {name.lower() for name in self.primary_key}
        columns = tuple(replace(c, optional=False) if c.name.lower() in keyed else c for c in self.columns)
        return Table(self.id[0], self.id[1], columns, self.primary_key, self.charset, comment)


class SchemaState:
    def __init__(self, holds: Callable[[str], bool] = lambda database: True) -> None:
        """`holds(database)`: whether the tables of a database are held (the captured databases)."""
        self._holds = holds
        self.tables: dict[TableId, Table] = {}
        self.databases: dict[str, str | None] = {}  # each database's default character set
        self.server_charset: str | None = None
        self._deferred: list[HistoryRecord] = []  # character set records replayed, parsed when a statement needs them

    def holds(self, database: str) -> bool:
        return self._holds(database)

    # -- DDL -------------------------------------------------------------------------------------------
    def apply(self, edits: Iterable[Edit]) -> list[TableChange]:
        """Applies a statement's edits; the tables it changed, in order."""
        self._replay_deferred()
        changes: list[TableChange] = []
        for edit in edits:
            changes += self._apply(edit)
        return changes

    def _apply(self, edit: Edit) -> list[TableChange]:
        if isinstance(edit, CreateTable):
            return self._create(edit)
        if isinstance(edit, AlterTable):
            return self._alter(edit)
        if isinstance(edit, DropTables):
            return [change for table in edit.tables for change in self._drop(table)]
        if isinstance(edit, RenameTables):
            return [change for old, new in edit.pairs for change in self._rename(old, new)]
        if isinstance(edit, DatabaseCharset):
            charset = charset_name(edit.charset) or charset_of(edit.collation)
            if charset is not None or edit.created:
                self.databases[edit.database] = charset or self.server_charset
            return []
        if isinstance(edit, DropDatabase):
            self.databases.pop(edit.database, None)
            return [change for table in list(self.tables) if table[0] == edit.database for change in self._drop(table)]
        if isinstance(edit, ServerCharset):
            self.server_charset = charset_name(edit.charset) or charset_of(edit.collation) or self.server_charset
            return []
        assert isinstance(edit, TruncateTable)  # changes no schema
        return []

    def table_charset(self, database: str) -> str | None:
        """The default character set of a table created in `database` without one."""
        return self.databases.get(database) or self.server_charset

    def _create(self, edit: CreateTable) -> list[TableChange]:
        table_id = edit.table
        if not self.holds(table_id[0]):
            return []
        if edit.if_not_exists and table_id in self.tables:
            return []
        if edit.like is not None:
            source = self.tables.get(edit.like)
            if source is None:
                log.warning(
                    "%s.%s is created LIKE %s.%s, whose schema the connector does not hold: its schema is read from "
                    "the server when its first change comes",
                    *table_id,
                    *edit.like,
                )
                self.tables.pop(table_id, None)
                return []
            created = replace(source, database=table_id[0], name=table_id[1])
        else:
            charset = charset_name(edit.charset) or charset_of(edit.collation) or self.table_charset(table_id[0])
            editing = _Editing(table_id, [resolve_column(c, charset) for c in edit.columns], edit.primary_key, charset)
            if not editing.primary_key:  # Debezium keys a table without a primary key by its first unique key
                editing.primary_key = next(
                    (k for k in edit.unique_keys if all(editing.find(c) is not None for c in k)), ()
                )
            created = editing.table(edit.comment)
        self.tables[table_id] = created
        return [TableChange("CREATE", table_id, created)]

    def _alter(self, edit: AlterTable) -> list[TableChange]:
        table_id = edit.table
        if not self.holds(table_id[0]):
            return []
        current = self.tables.get(table_id)
        if current is None:
            log.warning(
                "%s.%s is altered, but the connector holds no schema of it: the change is not applied", *table_id
            )
            return []
        editing = _Editing(table_id, list(current.columns), current.primary_key, current.default_charset)
        for action in edit.actions:
            _alter_one(editing, action)
        altered = editing.table(current.comment)
        if not edit.signalled and altered == current:
            return []
        if editing.id != table_id:
            return self._moved(table_id, altered)
        self.tables[table_id] = altered
        return [TableChange("ALTER", table_id, altered)]

    def _moved(self, old: TableId, table: Table) -> list[TableChange]:
        """A table renamed (to another database, maybe not captured: then it is dropped from view)."""
        self.tables.pop(old, None)
        if not self.holds(table.database):
            return [TableChange("DROP", old)]
        self.tables[table.id] = table
        return [TableChange("ALTER", table.id, table, old)]

    def _drop(self, table_id: TableId) -> list[TableChange]:
        if self.tables.pop(table_id, None) is None:
            return []
        return [TableChange("DROP", table_id)]

    def _rename(self, old: TableId, new: TableId) -> list[TableChange]:
        current = self.tables.get(old)
        if current is None:
            if self.holds(new[0]):
                log.warning(
                    "%s.%s is renamed from %s.%s, whose schema the connector does not hold: its schema is read from "
                    "the server when its first change comes",
                    *new,
                    *old,
                )
                self.tables.pop(new, None)
            return []
        return self._moved(old, replace(current, database=new[0], name=new[1]))

    def _replay_deferred(self) -> None:
        deferred, self._deferred = self._deferred, []
        for record in deferred:
            for edit in _parsed(record):
                self._apply(edit)

    # -- history ---------------------------------------------------------------------------------------
    def apply_record(self, record: HistoryRecord) -> None:
        """A history record replayed, as Debezium recovers one: its table changes where it has them, else
        its DDL parsed again. A statement that changes no table (SET character_set_server, CREATE / ALTER
        DATABASE) matters only to a later statement's columns: it is parsed when one is applied, so that a
        restart that meets no DDL parses nothing (the parser's first use costs 0.2 s)."""
        if not record.changes:
            found = ddl_tables(record.ddl, record.database)
            if not (found.changed or found.renamed or found.dropped_database or found.truncated):
                self._deferred.append(record)
                return
            self.apply(_parsed(record))
            return
        for change in record.changes:
            if change.previous is not None:
                self.tables.pop(change.previous, None)
            if change.table is None:
                self.tables.pop(change.id, None)
            else:
                self.tables[change.id] = change.table


def _parsed(record: HistoryRecord) -> tuple[Edit, ...]:
    from .ddl_parser import parse_ddl

    return parse_ddl(record.ddl, record.database)


def _alter_one(editing: _Editing, action: AlterAction) -> None:
    if isinstance(action, AddColumn):
        at = editing.find(action.column.name)
        if at is not None and action.if_not_exists:
            return
        if at is not None:  # as Debezium: the column is replaced
            del editing.columns[at]
        editing.place(resolve_column(action.column, editing.charset), action.position, at)
        if action.column.primary_key:
            editing.primary_key = (action.column.name,)
    elif isinstance(action, DropColumn):
        at = editing.find(action.name)
        if at is not None:
            del editing.columns[at]
            editing.rename_in_key(action.name, None)
    elif isinstance(action, ChangeColumn):
        at = editing.find(action.old)
        if at is None:
            log.warning("%s.%s has no column %s to change: the change is not applied", *editing.id, action.old)
            return
        del editing.columns[at]
        editing.place(resolve_column(action.column, editing.charset), action.position, at)
        editing.rename_in_key(action.old, action.column.name)
        if action.column.primary_key:
            editing.primary_key = (action.column.name,)
    elif isinstance(action, RenameColumn):
        at = editing.find(action.old)
        if at is not None:
            editing.columns[at] = replace(editing.columns[at], name=action.new)
            editing.rename_in_key(action.old, action.new)
    elif isinstance(action, ColumnDefault):
        at = editing.find(action.name)
        if at is not None:
            editing.columns[at] = replace(editing.columns[at], has_default=action.has_default, default=action.default)
    elif isinstance(action, AddPrimaryKey):
        editing.primary_key = action.columns
    elif isinstance(action, DropPrimaryKey):
        editing.primary_key = ()
    elif isinstance(action, AddUniqueKey):
        if not editing.primary_key and all(editing.find(c) is not None for c in action.columns):
            editing.primary_key = action.columns
    elif isinstance(action, RenameTo):
        editing.id = action.table
    elif isinstance(action, TableCharset):
        charset = charset_name(action.charset) or charset_of(action.collation) or editing.charset
        if action.convert:
            editing.columns = [_converted(c, charset) for c in editing.columns]
        editing.charset = charset


def _converted(column: Column, charset: str | None) -> Column:
    """A column after CONVERT TO CHARACTER SET `charset`: a text column takes it, and a TEXT type that
    would no longer hold its characters becomes the next larger one, as MySQL does."""
    if not column.is_text or column.charset in (None, charset):
        return column
    base, _, modifiers = column.type_name.partition(" ")
    if base.endswith("TEXT"):
        limit = next((size for size, prefix in TEXT_SIZES if prefix + "TEXT" == base), 4_294_967_295)
        characters = limit // widest_character(column.charset)
        base = sized_type("TEXT", characters * widest_character(charset))
    return replace(column, type_name=" ".join(p for p in (base, modifiers) if p), charset=charset)


def schemas_as_of(
    records: Sequence[HistoryRecord], position: BinlogPosition, holds: Callable[[str], bool] = lambda d: True
) -> SchemaState:
    """The schema as of `position`: the history's records at or before it replayed in the topic's order."""
    state = SchemaState(holds)
    for record in records:
        if not_after(record.position, position):
            state.apply_record(record)
    return state
