"""A column as MySQL makes it from its definition (a parsed CREATE TABLE's or ALTER TABLE's): its type's
base name and size as MySQL settles them (`TEXT(300)` in utf8mb4 is a MEDIUMTEXT; `CHARACTER SET binary` makes
a text type its binary twin), and its character set from its own, its collation's or its table's."""

from __future__ import annotations

from .ddl_edits import ColumnDefinition
from .tables import Column, widest_character

_TEXT = frozenset({"CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM", "SET"})
_AS_BINARY = {
    "CHAR": "BINARY",
    "VARCHAR": "VARBINARY",
    "TINYTEXT": "TINYBLOB",
    "TEXT": "BLOB",
    "MEDIUMTEXT": "MEDIUMBLOB",
    "LONGTEXT": "LONGBLOB",
}
TEXT_SIZES = ((255, "TINY"), (65_535, ""), (16_777_215, "MEDIUM"))  # bytes the TEXT / BLOB types hold


def charset_name(name: str | None) -> str | None:
    """A character set as information_schema names it (`utf8` is `utf8mb3`)."""
    if not name:
        return None
    name = name.lower()
    return "utf8mb3" if name == "utf8" else name


def charset_of(collation: str | None) -> str | None:
    """A collation's character set (`utf8mb4_bin` -> utf8mb4; `binary` -> binary)."""
    return charset_name(collation.split("_")[0]) if collation else None


def sized_type(kind: str, size: int) -> str:
    """The TEXT or BLOB type (`kind`) that holds `size` bytes."""
    prefix = next((p for limit, p in TEXT_SIZES if size <= limit), "LONG")
    return prefix + kind


def resolve_column(definition: ColumnDefinition, table_charset: str | None) -> Column:
    """A column as MySQL makes it from its definition in a table whose default character set is
    `table_charset`."""
    type_name, length = definition.type_name, definition.length
    base, _, modifiers = type_name.partition(" ")
    charset = charset_name(definition.charset) or charset_of(definition.collation)
    if base in _TEXT:
        if charset == "binary" and base in _AS_BINARY:
            base, charset = _AS_BINARY[base], None
        else:
            charset = charset or charset_name(table_charset)
    else:
        charset = None
    if base in ("TEXT", "BLOB") and length is not None:  # TEXT(n): characters; BLOB(n): bytes
        base = sized_type(base, length * widest_character(charset) if base == "TEXT" else length)
        length = None
    return Column(
        definition.name,
        " ".join(part for part in (base, modifiers) if part),
        length,
        definition.scale,
        charset,
        definition.nullable is not False and not definition.primary_key,
        definition.auto_increment,
        definition.generated,
        definition.enum_values,
        definition.has_default,
        definition.default,
        definition.comment,
    )
