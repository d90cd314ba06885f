"""A column definition, keys and table names of sqlglot's syntax tree (its MySQL dialect) read as MySQL
means them (ddl_parser.py): type names restored where sqlglot renames them (UINT is INT UNSIGNED,
TIMESTAMPTZ is TIMESTAMP, NCHAR a CHAR in utf8mb3, SERIAL a BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE,
FLOAT(p) from p = 25 on a DOUBLE), MySQL's default lengths (DECIMAL(10,0), CHAR(1), BINARY(1), BIT(1)), and
the attributes that matter to the held schema (nullability, default, auto-increment, generated, character
set, collation, comment, inline keys)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .ddl_edits import ColumnDefinition, Position, TableId, UnparseableDdlError

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


# -- columns -----------------------------------------------------------------------------------------------
def column_definition(definition: Any) -> ColumnDefinition:
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
            spec |= {"has_default": True, "default": default_value(found.this)}
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


def default_value(value: Any) -> str | None:
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


def column_position(definition: Any) -> Position:
    found = definition.args.get("position")
    if found is None:
        return None
    where = str(found.args.get("position") or "").upper()
    return ("FIRST", None) if where == "FIRST" else ("AFTER", found.this.name) if found.this is not None else None


# -- ALTER TABLE -------------------------------------------------------------------------------------------


def key_constraints(element: Any) -> Iterable[Any]:
    """A table element's keys: the element itself, or those a named CONSTRAINT wraps."""
    from sqlglot import exp

    return element.expressions if isinstance(element, exp.Constraint) else (element,)


def key_columns(parts: Iterable[Any]) -> tuple[str, ...]:
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


def charset_properties(properties: Any) -> tuple[str | None, str | None]:
    """CHARACTER SET and COLLATE among a CREATE's properties (or an ALTER's options)."""
    from sqlglot import exp

    found = properties.expressions if isinstance(properties, exp.Properties) else list(properties or ())
    charset = next((p.this.name.lower() for p in found if isinstance(p, exp.CharacterSetProperty)), None)
    collation = next((p.this.name.lower() for p in found if isinstance(p, exp.CollateProperty)), None)
    return charset, collation


def name_of(node: Any) -> str:
    return str(node.name)


def table_id(node: Any, database: str) -> TableId:
    """(database, table) of sqlglot's table reference, the statement's database where it names none."""
    return (str(node.args["db"].name) if node.args.get("db") else database, str(node.name))
