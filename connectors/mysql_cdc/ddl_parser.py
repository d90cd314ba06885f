"""The binlog's DDL statements parsed into schema edits (ddl_edits.py), with sqlglot's MySQL dialect
(ddl_dialect.py; its trees read in ddl_tree.py and ddl_columns.py), as Debezium's MySQL connector parses
them with its ANTLR grammar.

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
- `ALTER ONLINE TABLE` / `ALTER IGNORE TABLE` are read as ALTER TABLE, MariaDB's `PERSISTENT` generated
  columns as `STORED`, and MySQL 8's `SRID n` of a spatial column is left out.

Executable comments (`/*!50100 ... */`, `/*M!100100 ... */`) are read as part of the statement (ddl_text.py).
A statement none of this reads raises UnparseableDdlError; the stream then fails the task or, with
`schema.history.internal.skip.unparseable.ddl`, skips it (stream.py). Among them, on purpose: MariaDB's
system-versioned tables (`WITH SYSTEM VERSIONING`, `ADD SYSTEM VERSIONING`), whose hidden row_start /
row_end columns are in the binlog's rows but not in the statement.
"""

from __future__ import annotations

import logging
from typing import Any

from connectworker.api.errors import ConnectError

from .ddl_columns import column_definition
from .ddl_edits import (
    AddColumn,
    AlterAction,
    AlterTable,
    DatabaseCharset,
    Edit,
    RenameTables,
    RenameTo,
    TableCharset,
    UnparseableDdlError,
)
from .ddl_text import (
    charset_tokens,
    executable_text,
    span,
    split_top_level,
    sqlglot_spellings,
    table_id_of_tokens,
    tokens,
    without_table_tail,
    words,
)
from .ddl_tree import alter_actions, parse_tree, tree_edits, why_unparseable
from .keys import SKIP_UNPARSEABLE_DDL

__all__ = ["UnparseableDdlError", "parse_ddl", "parse_statement"]

log = logging.getLogger(__name__)


class _NoFallbackFilter(logging.Filter):
    """Drops sqlglot's warning that it reads a statement as a raw command: the parser looks at every such
    statement itself (and says so when it cannot read one)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Falling back to parsing as a 'Command'" not in record.getMessage()


logging.getLogger("sqlglot").addFilter(_NoFallbackFilter())

# DType names of sqlglot that stand for a MySQL type of another name, or for its UNSIGNED form


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
    ("STORAGE",),
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


def parse_ddl(statement: str, database: str) -> tuple[Edit, ...]:
    """The edits of one DDL statement run in `database` (the binlog Query event's); () for a statement that
    changes no table, database or character set. Raises UnparseableDdlError."""
    text = executable_text(statement).strip().rstrip(";").strip()
    try:
        items = tokens(text)
    except ConnectError:  # sqlglot is not installed
        raise
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
    text, items = sqlglot_spellings(text, items)
    tree = parse_tree(text)
    edits = tree_edits(tree, database) if tree is not None else None
    if edits is not None:
        return edits
    lead = words(items, 4)
    if lead[0] == "ALTER" and "TABLE" in lead[:2]:
        return (_alter_by_actions(text, items, database),)
    if lead[0] == "CREATE" and "TABLE" in lead:
        shortened = without_table_tail(text, items)
        if shortened is not None and (tree := parse_tree(shortened)) is not None:
            edits = tree_edits(tree, database)
            if edits is not None:
                return edits
    raise UnparseableDdlError(why_unparseable(text))


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
    table = table_id_of_tokens(items[start:end], database)
    parts = split_top_level(items[end:])
    if parts and _partition_maintenance([w for t in parts[0][:2] for w in t.text.upper().split()]):
        return AlterTable(table, ())  # the only action MySQL allows then, its partition names comma-separated
    actions: list[AlterAction] = []
    for part in parts:
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
        charset, collation = charset_tokens(part)
        return [TableCharset(charset, collation, convert=True)]
    if lead[0] == "RENAME" and len(part) > 1 and lead[1] not in ("COLUMN", "INDEX", "KEY"):
        names = part[2:] if lead[1] in ("TO", "AS") else part[1:]
        return [RenameTo(table_id_of_tokens(names, database))]
    if lead[0] == "ADD" and ((len(part) > 1 and part[1].token_type.name == "L_PAREN") or lead[1:2] == ["COLUMN"]):
        opening = 1 if part[1].token_type.name == "L_PAREN" else 2
        if opening < len(part) and part[opening].token_type.name == "L_PAREN":
            tree = parse_tree(f"CREATE TABLE _ {span(text, part[opening:])}")
            if tree is None or not isinstance(tree, exp.Create) or not isinstance(tree.this, exp.Schema):
                raise UnparseableDdlError(f"the parser cannot read the columns of {span(text, part)[:80]!r}")
            return [AddColumn(column_definition(e)) for e in tree.this.expressions if isinstance(e, exp.ColumnDef)]
    action = span(text, part)
    if lead[0] in ("MODIFY", "CHANGE") and "IF" in lead:  # MariaDB's MODIFY / CHANGE [COLUMN] IF EXISTS
        at = next(i for i, t in enumerate(part) if t.text.upper() == "IF")
        action = span(text, part[:at]) + " " + span(text, part[at + 2 :])
    tree = parse_tree(f"{head} {action}")
    actions = alter_actions(tree, database) if isinstance(tree, exp.Alter) else None
    if actions is None:
        raise UnparseableDdlError(f"{why_unparseable(f'{head} {action}')}, in its action {span(text, part)[:80]!r}")
    return list(actions)


_PARTITION_MAINTENANCE = frozenset(
    {"ADD", "DROP", "DISCARD", "IMPORT", "TRUNCATE", "COALESCE", "REORGANIZE", "EXCHANGE", "ANALYZE", "CHECK"}
    | {"OPTIMIZE", "REBUILD", "REPAIR"}
)


def _partition_maintenance(lead: list[str]) -> bool:
    """An ALTER TABLE's partition operation (`DROP PARTITION p0, p1`, `REMOVE PARTITIONING`, ...)."""
    return (len(lead) > 1 and lead[0] in _PARTITION_MAINTENANCE and lead[1] == "PARTITION") or lead[:1] == ["REMOVE"]


def _no_column_change(lead: list[str]) -> bool:
    return any(
        len(lead) >= len(pattern) and all(p == "*" or p == w for p, w in zip(pattern, lead, strict=False))
        for pattern in _NO_COLUMN_CHANGE
    )


# -- other statements --------------------------------------------------------------------------------------


def _rename_tables(rest: str, database: str) -> RenameTables:
    items = tokens(rest)
    if not items or items[0].text.upper() not in ("TABLE", "TABLES"):
        raise UnparseableDdlError("RENAME without TABLE")
    pairs = []
    for part in split_top_level(items[1:]):
        at = next((i for i, t in enumerate(part) if t.text.upper() == "TO"), None)
        if at is None or at == 0 or at == len(part) - 1:
            raise UnparseableDdlError(f"the rename {span(rest, part)[:80]!r} is not <table> TO <table>")
        pairs.append((table_id_of_tokens(part[:at], database), table_id_of_tokens(part[at + 1 :], database)))
    return RenameTables(tuple(pairs))


_DATABASE_OPTIONS = frozenset(
    {"DEFAULT", "CHARACTER", "CHARSET", "COLLATE", "ENCRYPTION", "READ", "COMMENT", "UPGRADE"}
)


def _alter_database(items: list[Any], database: str) -> DatabaseCharset:
    named = len(items) > 2 and items[2].text.upper() not in _DATABASE_OPTIONS
    charset, collation = charset_tokens(items[3:] if named else items[2:])
    return DatabaseCharset(items[2].text if named else database, charset, collation)


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
