"""The binlog's DDL statements parsed into schema edits (ddl_edits.py), with sqlglot's MySQL dialect
(ddl_dialect.py), as Debezium's MySQL connector parses them with its ANTLR grammar.

sqlglot reads most of MySQL's and MariaDB's DDL into its syntax tree: CREATE TABLE (columns, types with
their lengths, scales, signs, ENUM / SET values, character sets, collations, defaults, keys, table
options, LIKE), ALTER TABLE (ADD / DROP / MODIFY / CHANGE / RENAME COLUMN, ALTER COLUMN ... DEFAULT, keys,
RENAME TO, table character sets), DROP TABLE, TRUNCATE, CREATE / DROP INDEX, CREATE / DROP DATABASE and
SET. Where it does not, the statement is read here from sqlglot's tokens:

- `RENAME TABLE a TO b, ...` and `ALTER DATABASE ... CHARACTER SET ...` (sqlglot keeps them as raw
  commands);
- an ALTER TABLE whose action list sqlglot cannot read whole (`CONVERT TO CHARACTER SET`, `ADD COLUMN (a
  INT, b INT)`, MariaDB's `MODIFY / CHANGE COLUMN IF EXISTS`, `ADD CHECK`, partition maintenance, ...): its
  actions are split at their commas and each is read alone; the actions that change no column (checks,
  partitions, `ALGORITHM`, `LOCK`, `FORCE`, ...) are passed over;
- the partitioning clause ending a CREATE TABLE (`PARTITION BY ... (PARTITION p VALUES LESS THAN MAXVALUE)`),
  which changes no column, is cut off when sqlglot refuses it;
- `ALTER ONLINE TABLE` / `ALTER IGNORE TABLE` are read as ALTER TABLE, and MariaDB's `PERSISTENT` generated
  columns as `STORED`.

Executable comments (`/*!50100 ... */`, `/*M!100100 ... */`) are read as part of the statement (ddl_text.py).
A statement none of this reads raises UnparseableDdlError; the stream then fails the task or, with
`schema.history.internal.skip.unparseable.ddl`, skips it (stream.py). Among them, on purpose: MariaDB's
system-versioned tables (`WITH SYSTEM VERSIONING`, `ADD SYSTEM VERSIONING`), whose hidden row_start /
row_end columns are in the binlog's rows but not in the statement.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from connectworker.api.errors import ConnectError

from .ddl_edits import (
    AddColumn,
    AddPrimaryKey,
    AddUniqueKey,
    AlterAction,
    AlterTable,
    ChangeColumn,
    ColumnDefault,
    ColumnDefinition,
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
    TableId,
    TruncateTable,
)
from .ddl_text import executable_text, span, split_top_level, tokens, words
from .keys import SKIP_UNPARSEABLE_DDL

log = logging.getLogger(__name__)


class UnparseableDdlError(ConnectError):
    """A DDL statement the parser cannot read; the message says what it could not."""


class _NoFallbackFilter(logging.Filter):
    """Drops sqlglot's warning that it reads a statement as a raw command: the parser looks at every such
    statement itself (and says so when it cannot read one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Falling back to parsing as a 'Command'" not in record.getMessage()


logging.getLogger("sqlglot").addFilter(_NoFallbackFilter())

# DType names of sqlglot that stand for a MySQL type of another name, or for its UNSIGNED form
_UNSIGNED = {
    "UTINYINT": "TINYINT",
    "USMALLINT": "SMALLINT",
    "UMEDIUMINT": "MEDIUMINT",
    "UINT": "INT",
    "UBIGINT": "BIGINT",
    "UDECIMAL": "DECIMAL",
    "UDOUBLE": "DOUBLE",
}
_RENAMED = {"TIMESTAMPTZ": "TIMESTAMP", "NCHAR": "CHAR", "NVARCHAR": "VARCHAR", "INT": "INT"}
_NATIONAL = frozenset({"NCHAR", "NVARCHAR"})
NATIONAL_CHARSET = "utf8mb3"  # what MySQL 8 and MariaDB 10.6+ store NATIONAL CHAR columns in

# ALTER TABLE actions (their first words) that change no column, type, default or key the connector holds
_NO_COLUMN_CHANGE = (
    ("ADD", "CHECK"),
    ("ADD", "CONSTRAINT", "*", "CHECK"),
    ("ADD", "PARTITION"),
    ("ADD", "PERIOD"),
    ("DROP", "PARTITION"),
    ("DROP", "CHECK"),
    ("DROP", "CONSTRAINT"),
    ("DROP", "FOREIGN"),
    ("ALTER", "CHECK"),
    ("ALTER", "CONSTRAINT"),
    ("ALTER", "INDEX"),
    ("ALTER", "KEY"),
    ("RENAME", "INDEX"),
    ("RENAME", "KEY"),
    ("DISABLE",),
    ("ENABLE",),
    ("DISCARD",),
    ("IMPORT",),
    ("TRUNCATE", "PARTITION"),
    ("COALESCE",),
    ("REORGANIZE",),
    ("EXCHANGE",),
    ("ANALYZE",),
    ("CHECK",),
    ("OPTIMIZE",),
    ("REBUILD",),
    ("REPAIR",),
    ("REMOVE",),
    ("PARTITION",),
    ("UPGRADE",),
    ("WITH", "VALIDATION"),
    ("WITHOUT", "VALIDATION"),
    ("ALGORITHM",),
    ("LOCK",),
    ("FORCE",),
    ("ORDER",),
    ("AUTO_INCREMENT",),
    ("ENGINE",),
    ("COMMENT",),
    ("ROW_FORMAT",),
    ("KEY_BLOCK_SIZE",),
    ("STATS_PERSISTENT",),
    ("STATS_AUTO_RECALC",),
    ("STATS_SAMPLE_PAGES",),
    ("PACK_KEYS",),
    ("CHECKSUM",),
    ("PAGE_CHECKSUM",),
    ("TRANSACTIONAL",),
    ("ENCRYPTED",),
    ("ENCRYPTION",),
    ("ENCRYPTION_KEY_ID",),
    ("COMPRESSION",),
    ("MIN_ROWS",),
    ("MAX_ROWS",),
    ("AVG_ROW_LENGTH",),
    ("DELAY_KEY_WRITE",),
    ("INSERT_METHOD",),
    ("TABLESPACE",),
    ("SECONDARY_ENGINE",),
    ("SECONDARY_LOAD",),
    ("SECONDARY_UNLOAD",),
)
_TABLE_TAIL = ("PARTITION",)  # a CREATE TABLE's clause after its definitions that changes no column


def parse_ddl(statement: str, database: str) -> tuple[Edit, ...]:
    """The edits of one DDL statement run in `database` (the binlog Query event's); () for a statement that
    changes no table, database or character set. Raises UnparseableDdlError."""
    text = executable_text(statement).strip().rstrip(";").strip()
    try:
        items = tokens(text)
    except Exception as exc:  # sqlglot's TokenError: an unclosed quote or comment
        raise UnparseableDdlError(f"cannot read it ({exc})") from None
    if not items:
        return ()
    lead = words(items, 4)
    if lead[0] == "RENAME":
        return (_rename_tables(text[items[0].end + 1 :], database),)
    if lead[:2] in (["ALTER", "DATABASE"], ["ALTER", "SCHEMA"]):
        return (_alter_database(items, database),)
    if lead[0] == "ALTER" and lead[1] in ("ONLINE", "IGNORE"):  # ALTER ONLINE / IGNORE TABLE: an ALTER TABLE
        skipped = 2 if lead[2] in ("ONLINE", "IGNORE") else 1
        text = text[: items[1].start] + text[items[skipped].end + 1 :]
        items = tokens(text)
    text, items = _persistent_as_stored(text, items)
    tree = _tree(text)
    edits = _edits(tree, database) if tree is not None else None
    if edits is not None:
        return edits
    lead = words(items, 4)
    if lead[0] == "ALTER" and "TABLE" in lead[:2]:
        return (_alter_by_actions(text, items, database),)
    if lead[0] == "CREATE" and "TABLE" in lead:
        shortened = _without_table_tail(text, items)
        if shortened is not None and (tree := _tree(shortened)) is not None:
            edits = _edits(tree, database)
            if edits is not None:
                return edits
    raise UnparseableDdlError(_why(text))


def _why(text: str) -> str:
    import sqlglot

    from .ddl_dialect import BinlogMySql

    try:
        sqlglot.parse_one(text, dialect=BinlogMySql)
    except Exception as exc:
        return f"the SQL parser (sqlglot, MySQL dialect) cannot read it: {str(exc).splitlines()[0]}"
    return "the SQL parser (sqlglot, MySQL dialect) reads it only as a raw command"


def _tree(text: str) -> Any:
    """sqlglot's tree of `text`, or None where it cannot read it."""
    import sqlglot

    from .ddl_dialect import BinlogMySql

    try:
        return sqlglot.parse_one(text, dialect=BinlogMySql)
    except Exception as exc:  # sqlglot's ParseError / TokenError
        log.debug("sqlglot cannot parse %r: %s", text[:200], exc)
        return None


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
            charset, collation = _charset_properties(tree.args.get("properties"))
            return (DatabaseCharset(_name(tree.this), charset, collation, created=True),)
        return ()
    if isinstance(tree, exp.Alter):
        if str(tree.args.get("kind") or "").upper() != "TABLE":
            return ()
        actions = _alter_actions(tree, database)
        return (AlterTable(_table_id(tree.this, database), actions),) if actions is not None else None
    if isinstance(tree, exp.Drop):
        return _drop(tree, database)
    if isinstance(tree, exp.TruncateTable):
        return tuple(TruncateTable(_table_id(t, database)) for t in tree.expressions)
    if isinstance(tree, exp.Set):
        return _set(tree)
    return ()


# -- CREATE TABLE ------------------------------------------------------------------------------------------
def _create_table(tree: Any, database: str) -> tuple[Edit, ...]:
    from sqlglot import exp

    properties = list(tree.args["properties"].expressions) if tree.args.get("properties") else []
    if any(isinstance(p, exp.TemporaryProperty) for p in properties):
        return ()  # a temporary table: never in a row event of the binlog
    target = tree.this
    elements = list(target.expressions) if isinstance(target, exp.Schema) else []
    table = _table_id(target.this if isinstance(target, exp.Schema) else target, database)
    like = next((p for p in [*properties, *elements] if isinstance(p, exp.LikeProperty)), None)
    if like is not None:
        return (CreateTable(table, like=_table_id(like.this, database), if_not_exists=bool(tree.args.get("exists"))),)
    columns = [_column(e) for e in elements if isinstance(e, exp.ColumnDef)]
    if not columns:
        raise UnparseableDdlError("it creates a table without saying its columns (CREATE TABLE ... SELECT?)")
    primary_key: tuple[str, ...] = ()
    unique_keys: list[tuple[str, ...]] = []
    for element in elements:
        for key in _constraints(element):
            if isinstance(key, exp.PrimaryKey):
                primary_key = _key_columns(key.expressions)
            elif isinstance(key, exp.UniqueColumnConstraint) and isinstance(key.this, exp.Schema):
                found = _key_columns(key.this.expressions)
                if len(found) == len(key.this.expressions):  # a key on expressions is no column key
                    unique_keys.append(found)
    if not primary_key:
        primary_key = next(((c.name,) for c in columns if c.primary_key), ())
    unique_keys = [(c.name,) for c in columns if c.unique] + unique_keys
    charset, collation = _charset_properties(tree.args.get("properties"))
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


def _without_table_tail(text: str, items: list[Any]) -> str | None:
    """A CREATE TABLE's text cut before its partitioning or system versioning clause (None: it has none)."""
    depth, opened = 0, False
    for index, token in enumerate(items):
        kind = token.token_type.name
        if kind == "L_PAREN":
            depth, opened = depth + 1, True
        elif kind == "R_PAREN":
            depth -= 1
        elif opened and depth == 0 and token.text.upper().split()[0] in _TABLE_TAIL and index > 0:
            return text[: token.start]
    return None


def _constraints(element: Any) -> Iterable[Any]:
    """A table element's keys: the element itself, or those a named CONSTRAINT wraps."""
    from sqlglot import exp

    return element.expressions if isinstance(element, exp.Constraint) else (element,)


def _key_columns(parts: Iterable[Any]) -> tuple[str, ...]:
    """The column names of a key's parts (`a`, `a(10)`, `a DESC`); parts that are expressions are left out."""
    from sqlglot import exp

    names = []
    for part in parts:
        while isinstance(part, (exp.Ordered, exp.ColumnPrefix)):
            part = part.this
        if isinstance(part, (exp.Column, exp.Identifier)):
            names.append(part.name)
        elif isinstance(part, exp.Anonymous) and [e.is_number for e in part.expressions] == [True]:
            names.append(str(part.this))  # `a(10)` in CREATE INDEX: a prefix of the column, read as a call
    return tuple(names)


# -- columns -----------------------------------------------------------------------------------------------
def _column(definition: Any) -> ColumnDefinition:
    """A column definition of sqlglot's tree as MySQL means it."""
    from sqlglot import exp

    kind = definition.args.get("kind")
    if not isinstance(kind, exp.DataType):
        raise UnparseableDdlError(f"column {definition.name!r} has no type the parser reads")
    dtype = kind.this.name
    numbers = [int(p.this.this) for p in kind.expressions if isinstance(p, exp.DataTypeParam)]
    labels = tuple(str(p.this) for p in kind.expressions if isinstance(p, exp.Literal) and p.is_string)
    type_name = _UNSIGNED.get(dtype) or _RENAMED.get(dtype) or dtype
    unsigned = dtype in _UNSIGNED
    charset = NATIONAL_CHARSET if dtype in _NATIONAL else None
    spec: dict[str, Any] = {}
    length, scale = [*numbers, None, None][:2]
    if type_name == "SERIAL":  # BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE
        type_name, unsigned = "BIGINT", True
        spec |= {"nullable": False, "auto_increment": True, "generated": True, "unique": True}
    elif type_name == "FLOAT" and length is not None and scale is None:  # FLOAT(p): a DOUBLE from p = 25 on
        type_name, length = ("DOUBLE" if length > 24 else "FLOAT"), None
    elif type_name == "DECIMAL":
        length, scale = (10 if length is None else length), (0 if scale is None else scale)
    elif type_name in ("CHAR", "BINARY", "BIT") and length is None:
        length = 1
    zerofill = False
    for constraint in definition.constraints:
        found = constraint.kind
        if isinstance(found, exp.NotNullColumnConstraint):
            spec["nullable"] = bool(found.args.get("allow_null"))
        elif isinstance(found, exp.DefaultColumnConstraint):
            spec |= {"has_default": True, "default": _default(found.this)}
        elif isinstance(found, (exp.AutoIncrementColumnConstraint, exp.OnUpdateColumnConstraint)):
            spec |= {"auto_increment": True, "generated": True}  # Debezium marks ON UPDATE columns so too
        elif isinstance(found, (exp.ComputedColumnConstraint, exp.GeneratedAsIdentityColumnConstraint)):
            spec["generated"] = True
        elif isinstance(found, exp.PrimaryKeyColumnConstraint):
            spec |= {"primary_key": True, "nullable": False}
        elif isinstance(found, exp.UniqueColumnConstraint):
            spec["unique"] = True
        elif isinstance(found, exp.CharacterSetColumnConstraint):
            charset = found.this.name.lower()
        elif isinstance(found, exp.CollateColumnConstraint):
            spec["collation"] = found.this.name.lower()
        elif isinstance(found, exp.CommentColumnConstraint):
            spec["comment"] = str(found.this.this)
        elif isinstance(found, exp.ZeroFillColumnConstraint):
            zerofill = True
    modifiers = " UNSIGNED ZEROFILL" if zerofill else " UNSIGNED" if unsigned else ""
    return ColumnDefinition(
        definition.name,
        type_name + modifiers,
        length,
        scale,
        labels,
        charset,
        **spec,
    )


def _default(value: Any) -> str | None:
    """A DEFAULT's value as Debezium keeps it: a string literal's text, NULL as None, else the expression."""
    from sqlglot import exp

    from .ddl_dialect import BinlogMySql

    if isinstance(value, exp.Null):
        return None
    if isinstance(value, exp.Literal):
        return str(value.this)
    if isinstance(value, exp.CurrentTimestamp):
        return "CURRENT_TIMESTAMP"
    return str(value.sql(dialect=BinlogMySql))


def _position(definition: Any) -> Position:
    found = definition.args.get("position")
    if found is None:
        return None
    where = str(found.args.get("position") or "").upper()
    return ("FIRST", None) if where == "FIRST" else ("AFTER", found.this.name) if found.this is not None else None


# -- ALTER TABLE -------------------------------------------------------------------------------------------
def _alter_actions(tree: Any, database: str) -> tuple[AlterAction, ...] | None:
    """The actions of an ALTER TABLE sqlglot read; None where one of them is a raw command."""
    from sqlglot import exp

    actions: list[AlterAction] = []
    charset, collation = _charset_properties(tree.args.get("options"))
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
        return [AddColumn(_column(action), _position(action), bool(action.args.get("exists")))]
    if isinstance(action, exp.ModifyColumn):
        renamed = action.args.get("rename_from")
        column = _column(action.this)
        return [ChangeColumn(renamed.name if renamed is not None else column.name, column, _position(action.this))]
    if isinstance(action, exp.RenameColumn):
        return [RenameColumn(action.this.name, action.args["to"].name)]
    if isinstance(action, exp.AlterColumn):
        if action.args.get("drop"):
            return [ColumnDefault(action.this.name, False)]
        if "default" in action.args and action.args["default"] is not None:
            return [ColumnDefault(action.this.name, True, _default(action.args["default"]))]
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
            for key in _constraints(element):
                if isinstance(key, exp.PrimaryKey):
                    found.append(AddPrimaryKey(_key_columns(key.expressions)))
                elif isinstance(key, exp.UniqueColumnConstraint) and isinstance(key.this, exp.Schema):
                    columns = _key_columns(key.this.expressions)
                    if len(columns) == len(key.this.expressions):
                        found.append(AddUniqueKey(columns))
        return found
    if isinstance(action, exp.AlterRename):
        return [RenameTo(_table_id(action.this, database))]
    if isinstance(action, (exp.RenameIndex, exp.AlterIndex, exp.ForceProperty)):
        return []
    raise UnparseableDdlError(f"the parser does not know the ALTER TABLE action {action.sql()[:80]!r}")


def _alter_by_actions(text: str, items: list[Any], database: str) -> AlterTable:
    """An ALTER TABLE sqlglot cannot read whole, read one action at a time."""
    start = next(i for i, t in enumerate(items) if t.text.upper() == "TABLE") + 1
    if start < len(items) and items[start].text.upper() == "IF":  # IF EXISTS
        start += 2
    end = start + 1
    while end + 1 < len(items) and items[end].token_type.name == "DOT":
        end += 2
    if end > len(items):
        raise UnparseableDdlError("it names no table")
    head = text[: items[end - 1].end + 1]
    table = _table_id_of_tokens(items[start:end], database)
    actions: list[AlterAction] = []
    for part in split_top_level(items[end:]):
        part = _before_partitioning(part)
        if not part:
            continue
        actions += _alter_part(head, text, part, database)
    return AlterTable(table, tuple(actions))


def _before_partitioning(part: list[Any]) -> list[Any]:
    """An action's tokens before a partitioning clause that ends the statement (no comma before it)."""
    depth = 0
    for index, token in enumerate(part):
        kind = token.token_type.name
        depth += kind == "L_PAREN"
        depth -= kind == "R_PAREN"
        if index and depth == 0 and token.token_type.name == "PARTITION_BY":
            return part[:index]
    return part


def _alter_part(head: str, text: str, part: list[Any], database: str) -> list[AlterAction]:
    from sqlglot import exp

    lead = words(part, 4)
    if _no_column_change([word for token in part[:4] for word in token.text.upper().split()]):
        return []
    if lead[:2] == ["CONVERT", "TO"]:
        charset, collation = _charset_tokens(part)
        return [TableCharset(charset, collation, convert=True)]
    if lead[0] == "RENAME" and len(part) > 1 and lead[1] not in ("COLUMN", "INDEX", "KEY"):
        names = part[2:] if lead[1] in ("TO", "AS") else part[1:]
        return [RenameTo(_table_id_of_tokens(names, database))]
    if lead[0] == "ADD" and ((len(part) > 1 and part[1].token_type.name == "L_PAREN") or lead[1:2] == ["COLUMN"]):
        opening = 1 if part[1].token_type.name == "L_PAREN" else 2
        if opening < len(part) and part[opening].token_type.name == "L_PAREN":
            tree = _tree(f"CREATE TABLE _ {span(text, part[opening:])}")
            if tree is None or not isinstance(tree, exp.Create) or not isinstance(tree.this, exp.Schema):
                raise UnparseableDdlError(f"the parser cannot read the columns of {span(text, part)[:80]!r}")
            return [AddColumn(_column(e)) for e in tree.this.expressions if isinstance(e, exp.ColumnDef)]
    action = span(text, part)
    if lead[0] in ("MODIFY", "CHANGE") and "IF" in lead:  # MariaDB's MODIFY / CHANGE [COLUMN] IF EXISTS
        at = next(i for i, t in enumerate(part) if t.text.upper() == "IF")
        action = span(text, part[:at]) + " " + span(text, part[at + 2 :])
    tree = _tree(f"{head} {action}")
    actions = _alter_actions(tree, database) if isinstance(tree, exp.Alter) else None
    if actions is None:
        raise UnparseableDdlError(f"{_why(f'{head} {action}')}, in its action {span(text, part)[:80]!r}")
    return list(actions)


def _no_column_change(lead: list[str]) -> bool:
    return any(
        len(lead) >= len(pattern) and all(p == "*" or p == w for p, w in zip(pattern, lead, strict=False))
        for pattern in _NO_COLUMN_CHANGE
    )


# -- other statements --------------------------------------------------------------------------------------
def _create_index(tree: Any, database: str) -> AlterTable:
    index = tree.this
    table = _table_id(index.args["table"], database)
    if not tree.args.get("unique"):
        return AlterTable(table, (), signalled=False)
    params = index.args.get("params")
    parts = list(params.args.get("columns") or ()) if params is not None else []
    columns = _key_columns(parts)
    return AlterTable(table, (AddUniqueKey(columns),) if len(columns) == len(parts) else (), signalled=False)


def _drop(tree: Any, database: str) -> tuple[Edit, ...]:
    kind = str(tree.args.get("kind") or "").upper()
    targets = list(tree.args.get("tables") or ())
    if kind == "TABLE":
        return () if tree.args.get("temporary") else (DropTables(tuple(_table_id(t, database) for t in targets)),)
    if kind in ("DATABASE", "SCHEMA"):
        return tuple(DropDatabase(t.name) for t in targets)
    if kind == "INDEX":
        on = tree.args.get("cluster")
        if on is None or not targets:
            return ()
        table = _table_id(on.this, database)
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


def _rename_tables(rest: str, database: str) -> RenameTables:
    items = tokens(rest)
    if not items or items[0].text.upper() not in ("TABLE", "TABLES"):
        raise UnparseableDdlError("RENAME without TABLE")
    pairs = []
    for part in split_top_level(items[1:]):
        at = next((i for i, t in enumerate(part) if t.text.upper() == "TO"), None)
        if at is None or at == 0 or at == len(part) - 1:
            raise UnparseableDdlError(f"the rename {span(rest, part)[:80]!r} is not <table> TO <table>")
        pairs.append((_table_id_of_tokens(part[:at], database), _table_id_of_tokens(part[at + 1 :], database)))
    return RenameTables(tuple(pairs))


_DATABASE_OPTIONS = frozenset(
    {"DEFAULT", "CHARACTER", "CHARSET", "COLLATE", "ENCRYPTION", "READ", "COMMENT", "UPGRADE"}
)


def _alter_database(items: list[Any], database: str) -> DatabaseCharset:
    named = len(items) > 2 and items[2].text.upper() not in _DATABASE_OPTIONS
    charset, collation = _charset_tokens(items[3:] if named else items[2:])
    return DatabaseCharset(items[2].text if named else database, charset, collation)


def _charset_tokens(items: list[Any]) -> tuple[str | None, str | None]:
    """CHARACTER SET / CHARSET and COLLATE values among tokens (`[=] value` after each)."""
    charset = collation = None
    for index, token in enumerate(items):
        word = token.text.upper()
        after = index + 1
        if word == "CHARACTER" and after < len(items) and items[after].text.upper() == "SET":
            after += 1
        elif word not in ("CHARSET", "COLLATE"):
            continue
        if after < len(items) and items[after].text == "=":
            after += 1
        if after < len(items):
            if word == "COLLATE":
                collation = items[after].text.lower()
            else:
                charset = items[after].text.lower()
    return charset, collation


def _charset_properties(properties: Any) -> tuple[str | None, str | None]:
    """CHARACTER SET and COLLATE among a CREATE's properties (or an ALTER's options)."""
    from sqlglot import exp

    found = properties.expressions if isinstance(properties, exp.Properties) else list(properties or ())
    charset = next((p.this.name.lower() for p in found if isinstance(p, exp.CharacterSetProperty)), None)
    collation = next((p.this.name.lower() for p in found if isinstance(p, exp.CollateProperty)), None)
    return charset, collation


def _persistent_as_stored(text: str, items: list[Any]) -> tuple[str, list[Any]]:
    """MariaDB's `PERSISTENT` generated columns written as the `STORED` sqlglot reads."""
    found = [t for t in items if t.token_type.name == "VAR" and t.text.upper() == "PERSISTENT"]
    if not found:
        return text, items
    for token in reversed(found):
        text = text[: token.start] + "STORED" + text[token.end + 1 :]
    return text, tokens(text)


def _name(node: Any) -> str:
    return str(node.name)


def _table_id(node: Any, database: str) -> TableId:
    """(database, table) of sqlglot's table reference, the statement's database where it names none."""
    return (str(node.args["db"].name) if node.args.get("db") else database, str(node.name))


def _table_id_of_tokens(items: list[Any], database: str) -> TableId:
    names = [t.text for t in items if t.token_type.name != "DOT"]
    if len(names) == 1:
        return (database, names[0])
    if len(names) == 2 and len(items) == 3:
        return (names[0], names[1])
    raise UnparseableDdlError(f"{' '.join(t.text for t in items)[:80]!r} is not a table name")


def parse_statement(statement: str, database: str, where: str, *, skip_unparseable: bool) -> tuple[Edit, ...] | None:
    """parse_ddl, a statement it cannot read handled as Debezium's schema.history.internal.skip.unparseable.ddl
    says: a ConnectError naming the statement's start and `where` it is (false, the default), or a warning
    and None (true)."""
    try:
        return parse_ddl(statement, database)
    except UnparseableDdlError as exc:
        start = " ".join(statement.split())
        start = start if len(start) <= 100 else start[:100] + "..."
        if skip_unparseable:
            log.warning(
                "Skipping the DDL statement %r at %s, which the connector cannot parse (%s; %s=true): the tables "
                "it changes keep the schema held before it",
                start,
                where,
                exc,
                SKIP_UNPARSEABLE_DDL,
            )
            return None
        raise ConnectError(
            f"Cannot parse the DDL statement {start!r} at {where}: {exc}. The connector keeps each table's schema "
            f"from the DDL of the binlog, and cannot know what this statement changed. Set {SKIP_UNPARSEABLE_DDL}"
            "=true to skip the statements it cannot parse (the tables they change keep the schema held before "
            "them), or take a new snapshot past it."
        ) from None
