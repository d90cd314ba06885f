"""A DDL statement's sqlglot syntax tree (its MySQL dialect, extended in ddl_dialect.py) read into the
schema edits it makes (ddl_edits.py): CREATE TABLE (and LIKE), ALTER TABLE's actions, CREATE / DROP INDEX,
DROP TABLE, TRUNCATE, CREATE / DROP DATABASE and SET character_set_server. A tree sqlglot made of a
statement it could read only as a raw command gives None: ddl_parser.py reads those from their tokens."""

from __future__ import annotations

import logging
from typing import Any

from .ddl_columns import (
    charset_properties,
    column_definition,
    column_position,
    default_value,
    key_columns,
    key_constraints,
    name_of,
    table_id,
)
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
    RenameColumn,
    RenameTo,
    ServerCharset,
    TableCharset,
    TruncateTable,
    UnparseableDdlError,
)

log = logging.getLogger(__name__)


def why_unparseable(text: str) -> str:
    import sqlglot

    from .ddl_dialect import BinlogMySql

    try:
        sqlglot.parse_one(text, dialect=BinlogMySql)
    except Exception as exc:
        return f"the SQL parser (sqlglot, MySQL dialect) cannot read it: {str(exc).splitlines()[0]}"
    return "the SQL parser (sqlglot, MySQL dialect) reads it only as a raw command"


def parse_tree(text: str) -> Any:
    """sqlglot's tree of `text`, or None where it cannot read it."""
    import sqlglot

    from .ddl_dialect import BinlogMySql

    try:
        return sqlglot.parse_one(text, dialect=BinlogMySql)
    except Exception as exc:  # sqlglot's ParseError / TokenError
        log.debug("sqlglot cannot parse %r: %s", text[:200], exc)
        return None


def tree_edits(tree: Any, database: str) -> tuple[Edit, ...] | None:
    """_edits, a tree of a shape the parser does not expect refused as unparseable (never a crash)."""
    try:
        return _edits(tree, database)
    except UnparseableDdlError:
        raise
    except (AttributeError, KeyError, IndexError, TypeError, ValueError) as exc:
        raise UnparseableDdlError(f"the parser does not know the form of {tree.sql()[:80]!r} ({exc!r})") from None


def _edits(tree: Any, database: str) -> tuple[Edit, ...] | None:
    """The edits of a statement sqlglot read; None where it read it only as a raw command."""
    from sqlglot import exp

    if isinstance(tree, exp.Command):
        return None
    if isinstance(tree, exp.Create):
        kind = str(tree.args.get("kind") or "").upper()
        if kind == "TABLE":
            return _create_table(tree, database)
        if kind == "INDEX":
            return (_create_index(tree, database),)
        if kind in ("DATABASE", "SCHEMA"):
            charset, collation = charset_properties(tree.args.get("properties"))
            return (DatabaseCharset(name_of(tree.this), charset, collation, created=True),)
        return ()
    if isinstance(tree, exp.Alter):
        if str(tree.args.get("kind") or "").upper() != "TABLE":
            return ()
        actions = alter_actions(tree, database)
        return (AlterTable(table_id(tree.this, database), actions),) if actions is not None else None
    if isinstance(tree, exp.Drop):
        return _drop(tree, database)
    if isinstance(tree, exp.TruncateTable):
        return tuple(TruncateTable(table_id(t, database)) for t in tree.expressions)
    if isinstance(tree, exp.Set):
        return _set(tree)
    return ()


# -- CREATE TABLE ------------------------------------------------------------------------------------------


# -- CREATE TABLE ------------------------------------------------------------------------------------------
def _create_table(tree: Any, database: str) -> tuple[Edit, ...]:
    from sqlglot import exp

    properties = list(tree.args["properties"].expressions) if tree.args.get("properties") else []
    if any(isinstance(p, exp.TemporaryProperty) for p in properties):
        return ()  # a temporary table: never in a row event of the binlog
    target = tree.this
    elements = list(target.expressions) if isinstance(target, exp.Schema) else []
    table = table_id(target.this if isinstance(target, exp.Schema) else target, database)
    like = next((p for p in [*properties, *elements] if isinstance(p, exp.LikeProperty)), None)
    if like is not None:
        return (CreateTable(table, like=table_id(like.this, database), if_not_exists=bool(tree.args.get("exists"))),)
    columns = [column_definition(e) for e in elements if isinstance(e, exp.ColumnDef)]
    if not columns:
        raise UnparseableDdlError("it creates a table without saying its columns (CREATE TABLE ... SELECT?)")
    primary_key: tuple[str, ...] = ()
    unique_keys: list[tuple[str, ...]] = []
    for element in elements:
        for key in key_constraints(element):
            if isinstance(key, exp.PrimaryKey):
                primary_key = key_columns(key.expressions)
            elif isinstance(key, exp.UniqueColumnConstraint) and isinstance(key.this, exp.Schema):
                found = key_columns(key.this.expressions)
                if len(found) == len(key.this.expressions):  # a key on expressions is no column key
                    unique_keys.append(found)
    if not primary_key:
        primary_key = next(((c.name,) for c in columns if c.primary_key), ())
    unique_keys = [(c.name,) for c in columns if c.unique] + unique_keys
    charset, collation = charset_properties(tree.args.get("properties"))
    comment = next((str(p.this.this) for p in properties if isinstance(p, exp.SchemaCommentProperty)), None)
    return (
        CreateTable(
            table,
            tuple(columns),
            primary_key,
            tuple(unique_keys),
            charset,
            collation,
            comment,
            if_not_exists=bool(tree.args.get("exists")),
        ),
    )


# -- ALTER TABLE -------------------------------------------------------------------------------------------
def alter_actions(tree: Any, database: str) -> tuple[AlterAction, ...] | None:
    """The actions of an ALTER TABLE sqlglot read; None where one of them is a raw command."""
    from sqlglot import exp

    actions: list[AlterAction] = []
    charset, collation = charset_properties(tree.args.get("options"))
    if charset or collation:
        actions.append(TableCharset(charset, collation))
    for action in tree.args.get("actions") or ():
        if isinstance(action, exp.Command):
            return None
        actions += _alter_action(action, database)
    return tuple(actions)


def _alter_action(action: Any, database: str) -> list[AlterAction]:
    from sqlglot import exp

    if isinstance(action, exp.ColumnDef):
        return [AddColumn(column_definition(action), column_position(action), bool(action.args.get("exists")))]
    if isinstance(action, exp.ModifyColumn):
        renamed = action.args.get("rename_from")
        column = column_definition(action.this)
        return [
            ChangeColumn(renamed.name if renamed is not None else column.name, column, column_position(action.this))
        ]
    if isinstance(action, exp.RenameColumn):
        return [RenameColumn(action.this.name, action.args["to"].name)]
    if isinstance(action, exp.AlterColumn):
        if action.args.get("drop"):
            return [ColumnDefault(action.this.name, False)]
        if "default" in action.args and action.args["default"] is not None:
            return [ColumnDefault(action.this.name, True, default_value(action.args["default"]))]
        return []
    if isinstance(action, exp.Drop):
        kind = str(action.args.get("kind") or "").upper()
        if kind == "COLUMN":
            return [DropColumn(t.name) for t in action.args.get("tables") or ()]
        if kind in ("INDEX", "KEY") and any(t.name.upper() == "PRIMARY" for t in action.args.get("tables") or ()):
            return [DropPrimaryKey()]
        return []
    if isinstance(action, exp.DropPrimaryKey):
        return [DropPrimaryKey()]
    if isinstance(action, exp.AddConstraint):
        found: list[AlterAction] = []
        for element in action.expressions:
            for key in key_constraints(element):
                if isinstance(key, exp.PrimaryKey):
                    found.append(AddPrimaryKey(key_columns(key.expressions)))
                elif isinstance(key, exp.UniqueColumnConstraint) and isinstance(key.this, exp.Schema):
                    columns = key_columns(key.this.expressions)
                    if len(columns) == len(key.this.expressions):
                        found.append(AddUniqueKey(columns))
        return found
    if isinstance(action, exp.AlterRename):
        return [RenameTo(table_id(action.this, database))]
    if isinstance(action, (exp.RenameIndex, exp.AlterIndex, exp.ForceProperty)):
        return []
    raise UnparseableDdlError(f"the parser does not know the ALTER TABLE action {action.sql()[:80]!r}")


# -- other statements --------------------------------------------------------------------------------------
def _create_index(tree: Any, database: str) -> AlterTable:
    index = tree.this
    table = table_id(index.args["table"], database)
    if not tree.args.get("unique"):
        return AlterTable(table, (), signalled=False)
    params = index.args.get("params")
    parts = list(params.args.get("columns") or ()) if params is not None else []
    columns = key_columns(parts)
    return AlterTable(table, (AddUniqueKey(columns),) if len(columns) == len(parts) else (), signalled=False)


def _drop(tree: Any, database: str) -> tuple[Edit, ...]:
    kind = str(tree.args.get("kind") or "").upper()
    targets = list(tree.args.get("tables") or ())
    if kind == "TABLE":
        return () if tree.args.get("temporary") else (DropTables(tuple(table_id(t, database) for t in targets)),)
    if kind in ("DATABASE", "SCHEMA"):
        return tuple(DropDatabase(t.name) for t in targets)
    if kind == "INDEX":
        on = tree.args.get("cluster")
        if on is None or not targets:
            return ()
        table = table_id(on.this, database)
        primary = targets[0].name.upper() == "PRIMARY"
        return (AlterTable(table, (DropPrimaryKey(),) if primary else (), signalled=False),)
    return ()


def _set(tree: Any) -> tuple[Edit, ...]:
    """SET character_set_server / collation_server, as Debezium's snapshot records them."""
    from sqlglot import exp

    values: dict[str, str] = {}
    for item in tree.expressions:
        pair = item.this
        if isinstance(pair, exp.EQ):
            values[pair.this.name.lower()] = pair.expression.name.lower()
    charset, collation = values.get("character_set_server"), values.get("collation_server")
    return (ServerCharset(charset, collation),) if charset or collation else ()
