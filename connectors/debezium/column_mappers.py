"""Debezium's column mappers (`io.debezium.relational.mapping.ColumnMappers`), read from the keys its
`RelationalDatabaseConnectorConfig` reads by pattern: `column.truncate.to.N.chars`, `column.mask.with.N.chars`,
`column.propagate.source.type`, `datatype.propagate.source.type`, `column.mask.hash.<algorithm>.with.salt.<salt>`
and `column.mask.hash.v2.<algorithm>.with.salt.<salt>`. Each key's value is a list of regular expressions
(regex_lists.py) matched against `<table>.<column>` (the data type keys: `<table>.<type name>`), where the
table is `schema.table` (PostgreSQL) or `database.table` (MySQL).

As in Debezium, a column gets one mapper: that of the first key matching it, in the order Debezium makes
them (truncation, masks, source type by column, by data type, hashes, v2 hashes; among keys of one kind
Debezium follows its HashMap, here the properties' order). The mapper alters the column's field schema in
the record's value (`masked`, `truncateLength`, `__debezium.source.column.*`) and maps its values after
their type conversion. The record's key is built without mappers: its schema has none of these parameters
and a masked key column is in clear there.
`warnings` tells each case where a value passes unmapped, so the connector can say so.

Stricter than Debezium, which ignores what it cannot read or fails on first use: a `column.mask.` or
`column.truncate.` key of no known form, an N past Java's int, an unknown hash algorithm and a bad regular
expression are configuration errors naming the key.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from connectworker.api.errors import ConfigError

from . import masks
from .regex_lists import compile_regex_list

COLUMN_PROPAGATE, DATATYPE_PROPAGATE = "column.propagate.source.type", "datatype.propagate.source.type"
_JAVA_INT_MAX = 2_147_483_647
_ANY_BUT_LINE_END = r"[^\n\r\u0085\u2028\u2029]"  # Java's `.`
# (key pattern, kind, hashing version), in the order Debezium registers the rules of each kind
_KEY_FORMS = (
    (re.compile(r"column\.truncate\.to\.(\d+)\.chars", re.ASCII), "truncate", 0),
    (re.compile(r"column\.mask\.with\.(\d+)\.chars", re.ASCII), "mask", 0),
    (re.compile(re.escape(COLUMN_PROPAGATE)), "propagate", 0),
    (re.compile(re.escape(DATATYPE_PROPAGATE)), "propagate", 0),
    (re.compile(rf"column\.mask\.hash\.([^.]+)\.with\.salt\.({_ANY_BUT_LINE_END}+)"), "hash", 1),
    (re.compile(rf"column\.mask\.hash\.v2\.([^.]+)\.with\.salt\.({_ANY_BUT_LINE_END}+)"), "hash", 2),
)
_MAPPER_PREFIXES = ("column.mask.", "column.truncate.")
_FORMS = (
    "column.mask.with.<N>.chars, column.mask.hash.<algorithm>.with.salt.<salt>, "
    "column.mask.hash.v2.<algorithm>.with.salt.<salt> and column.truncate.to.<N>.chars"
)


@dataclass(frozen=True)
class SourceColumn:
    """A column as Debezium's relational model (io.debezium.relational.Column) describes it, for the mappers."""

    table: str  # "schema.table" (PostgreSQL) or "database.table" (MySQL): the qualified table name the lists match
    name: str
    type_name: str  # Column.typeName() as __debezium.source.column.type prints it (upper-cased there)
    length: int | None  # Column.length(); None where Debezium has none (-1)
    scale: int | None
    character: bool  # a character column: of the JDBC types MaskStrings acts on (CHAR, VARCHAR, NCHAR, CLOB...)
    binary: bool = False  # a binary column, whose values Debezium holds as ByteBuffers (truncation cuts them)
    comment: str | None = None  # Column.comment(): what Debezium reads under include.schema.comments=true

    @property
    def qualified_name(self) -> str:
        return f"{self.table}.{self.name}"

    @property
    def qualified_type(self) -> str:
        return f"{self.table}.{self.type_name}"

    def described(self) -> str:
        return f"{self.qualified_name} ({self.type_name})"


def source_type_parameters(column: SourceColumn) -> tuple[tuple[str, str], ...]:
    """`PropagateSourceMetadataToSchemaParameter`: the type's name in upper case, its length and scale
    where the column has them, its comment where it has one, and the column's name."""
    found = [("__debezium.source.column.type", column.type_name.upper())]
    if column.length is not None:
        found.append(("__debezium.source.column.length", str(column.length)))
    if column.scale is not None:
        found.append(("__debezium.source.column.scale", str(column.scale)))
    if column.comment:
        found.append(("__debezium.source.column.comment", column.comment))
    found.append(("__debezium.source.column.name", column.name))
    return tuple(found)


@dataclass(frozen=True)
class _Rule:
    key: str
    kind: str  # truncate | mask | propagate | hash
    rank: int  # the place of its key's form in _KEY_FORMS: Debezium's order of the rules
    patterns: tuple[re.Pattern[str], ...]
    number: int = 0  # truncate, mask: N
    algorithm: str = ""  # hash
    salt: str = ""
    version: int = 1

    def matches(self, column: SourceColumn) -> bool:
        name = column.qualified_type if self.key == DATATYPE_PROPAGATE else column.qualified_name
        return any(pattern.fullmatch(name) for pattern in self.patterns)

    def truncates(self, column: SourceColumn) -> bool:
        """`TruncateColumn.isTruncationPossible`: the column's length is unknown or more than N."""
        return column.length is None or column.length > self.number

    def converter(self, column: SourceColumn) -> masks.ValueMapper | None:
        if self.kind == "truncate":
            return masks.truncate_to(self.number, column.binary) if self.truncates(column) else None
        if self.kind == "propagate" or not column.character:
            return None
        if self.kind == "mask":
            return masks.mask_with("*" * self.number)
        length = column.length if column.length is not None and column.length > 0 else None
        return masks.hash_with(self.algorithm, self.salt, self.version, length, column.qualified_name)

    def parameters(self, column: SourceColumn) -> tuple[tuple[str, str], ...]:
        if self.kind == "truncate":
            return (("truncateLength", str(self.number)),) if self.truncates(column) else ()
        if self.kind == "propagate":
            return source_type_parameters(column)
        return (("masked", "true"),)

    def warnings(self, column: SourceColumn) -> list[str]:
        described = column.described()
        if self.kind == "truncate" and self.truncates(column) and not (column.character or column.binary):
            return [
                f"{self.key}: {described} is neither a character nor a binary column; as in Debezium, its "
                "values are cut only where they are strings, the others pass whole"
            ]
        if self.kind in ("mask", "hash") and not column.character:
            return [
                f"{self.key}: {described} is not a character column; as in Debezium, its values pass unmasked "
                "(its schema still says masked=true)"
            ]
        if self.kind == "hash" and column.length is not None and 0 < column.length < self._hex_digits():
            return [
                f"{self.key}: {described} holds {column.length} characters; as in Debezium, its hashes are cut "
                f"to their first {column.length} of {self._hex_digits()} hex digits"
            ]
        return []

    def key_warning(self, column: SourceColumn) -> str | None:
        if self.kind == "propagate" or self.converter(column) is None:
            return None
        done = "truncated" if self.kind == "truncate" else "masked"
        return (
            f"{self.key}: {column.described()} is in the record's key; as in Debezium, it is {done} in the "
            "record's value only and the key carries it whole"
        )

    def _hex_digits(self) -> int:
        return 2 * masks.hash_size(self.algorithm)


def _rule(key: str, value: str) -> _Rule | None:
    """The rule of a mapper key (None: not a mapper key); raises ValueError saying what is wrong."""
    for rank, (form, kind, version) in enumerate(_KEY_FORMS):
        found = form.fullmatch(key)
        if found is None:
            continue
        patterns = compile_regex_list(value or "")
        if kind in ("truncate", "mask"):
            if int(found[1]) > _JAVA_INT_MAX:
                raise ValueError(f"the number of characters, {found[1]}, must be at most {_JAVA_INT_MAX}")
            return _Rule(key, kind, rank, patterns, number=int(found[1]))
        if kind == "hash":
            problem = masks.digest_problem(found[1])
            if problem:
                raise ValueError(problem)
            return _Rule(key, kind, rank, patterns, algorithm=found[1], salt=found[2], version=version)
        return _Rule(key, kind, rank, patterns)
    if key.startswith(_MAPPER_PREFIXES):
        raise ValueError(f"not a column mapper key: they are {_FORMS} (Debezium would ignore it, mapping nothing)")
    return None


def _parse(props: Mapping[str, str]) -> tuple[list[_Rule], dict[str, str]]:
    rules, problems = [], {}
    for key, value in props.items():
        try:
            rule = _rule(key, value)
        except ValueError as exc:
            problems[key] = str(exc)
        else:
            if rule is not None:
                rules.append(rule)
    rules.sort(key=lambda rule: rule.rank)
    return rules, problems


class ColumnMappers:
    """The mappers the properties ask for; `from_props` reads them."""

    def __init__(self, rules: Sequence[_Rule]) -> None:
        self._rules = tuple(rules)

    @classmethod
    def from_props(cls, props: Mapping[str, str], *, source: str | None = None) -> ColumnMappers:
        """The mappers of `props`; raises ConfigError naming every bad mapper key."""
        rules, problems = _parse(props)
        if problems:
            raise ConfigError(problems, source=source)
        return cls(rules)

    @staticmethod
    def problems(props: Mapping[str, str]) -> dict[str, str]:
        """What is wrong with each bad mapper key, for validate."""
        return _parse(props)[1]

    @staticmethod
    def keys(props: Mapping[str, str]) -> list[str]:
        """The mapper keys in `props` (with those of no known form), in their order."""
        return [
            key
            for key in props
            if key.startswith(_MAPPER_PREFIXES) or any(form.fullmatch(key) for form, _, _ in _KEY_FORMS)
        ]

    @property
    def empty(self) -> bool:
        return not any(rule.patterns for rule in self._rules)

    def _matching(self, column: SourceColumn) -> list[_Rule]:
        return [rule for rule in self._rules if rule.matches(column)]

    def value_mapper(self, column: SourceColumn) -> Callable[[Any], Any] | None:
        """The function to apply to the column's Connect value (after its type conversion) in the record's
        value, built once; None: its values pass as they are."""
        rules = self._matching(column)
        return rules[0].converter(column) if rules else None

    def schema_parameters(self, column: SourceColumn) -> tuple[tuple[str, str], ...]:
        """The parameters to add, after the type's own, to the column's field schema in the record's value."""
        rules = self._matching(column)
        return rules[0].parameters(column) if rules else ()

    def warnings(self, column: SourceColumn, *, in_key: bool = False) -> list[str]:
        """Where the column's values pass unmapped, or less mapped than asked: a mask on a non-character
        column, a hash cut to a short column's length, keys that match but yield to another's mapper, and
        (`in_key`: the column is in the record's key) the key, which Debezium writes unmapped."""
        rules = self._matching(column)
        if not rules:
            return []
        first, others = rules[0], rules[1:]
        found = first.warnings(column)
        if others:
            found.append(
                f"{column.qualified_name} is matched by {first.key} and by {', '.join(r.key for r in others)}; "
                f"as in Debezium, a column gets one mapper, here {first.key}'s (truncation, masks, source types, "
                "hashes come in that order): the others do nothing to it"
            )
        if in_key and (text := first.key_warning(column)):
            found.append(text)
        return found

    def unmatched(self, columns: Iterable[SourceColumn]) -> list[str]:
        """One text per list pattern that matches none of `columns` (the captured columns)."""
        columns = list(columns)
        found: list[str] = []
        for rule in self._rules:
            by_type = rule.key == DATATYPE_PROPAGATE
            names = sorted({c.qualified_type if by_type else c.qualified_name for c in columns})
            example = f", such as {names[0]!r}" if names else ""
            against = "<table>.<type name>" if by_type else "<table>.<column>"
            found.extend(
                f"{rule.key}: {pattern.pattern!r} matches no captured column (it is matched whole, ignoring "
                f"case, against {against}{example})"
                for pattern in rule.patterns
                if not any(pattern.fullmatch(name) for name in names)
            )
        return found
