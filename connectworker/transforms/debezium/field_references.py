"""`add.fields` and `add.headers` of ExtractNewRecordState: which envelope fields a record gets as fields
of its row, or as headers, and under which names.

Each entry names a field: `op`, `ts_ms`, `ts_us` and `ts_ns` are the envelope's own; `id`, `total_order`
and `data_collection_order` are the transaction's; any other plain name is a field of `source` (`lsn`,
`table`, …). `struct.field` names a field of another struct of the envelope (`source.ts_ms`,
`transaction.id`). A field the struct lacks is looked up in the envelope itself (one that another
transform added there); one found nowhere is left out. The new name is the prefix followed by the field
(`__op`), or by `struct_field` for a qualified one (`__source_ts_ms`); `name:alias` gives the alias
instead (`__alias`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from connectworker.api.errors import ConfigError
from connectworker.api.schema import Schema
from connectworker.transforms.debezium.envelope import OP, SOURCE, TRANSACTION, field_schema

__all__ = ["FieldReference", "ResolvedReference", "parse_references"]

_ENVELOPE_FIELDS = frozenset((OP, "ts_ms", "ts_us", "ts_ns"))
_TRANSACTION_FIELDS = frozenset(("id", "total_order", "data_collection_order"))
_UPDATE_DESCRIPTION = "updateDescription"  # MongoDB's; kept so a shared file reads the same


@dataclass(frozen=True, slots=True)
class ResolvedReference:
    """A reference against one envelope schema: where its value is and the schema it gets (optional)."""

    new_name: str
    struct: str | None  # the envelope field holding it, None: the envelope itself
    field: str
    schema: Schema

    def value(self, envelope: dict[str, Any]) -> Any:
        parent = envelope.get(self.struct) if self.struct is not None else envelope
        return parent.get(self.field) if parent is not None else None


@dataclass(frozen=True, slots=True)
class FieldReference:
    struct: str | None
    field: str
    new_name: str

    @staticmethod
    def parse(entry: str, prefix: str) -> FieldReference:
        name, _, alias = entry.partition(":")
        qualifier, dot, field = name.partition(".")
        struct = qualifier if dot else _struct_of(name)
        field = field if dot else name
        new_name = prefix + (alias if alias else (f"{qualifier}_{field}" if dot else field))
        return FieldReference(struct, field, new_name)

    def resolve(self, envelope_schema: Schema) -> ResolvedReference | None:
        """Where this field is in envelopes of `envelope_schema`, None when they do not have it."""
        parent = field_schema(envelope_schema, self.struct) if self.struct is not None else envelope_schema
        found = field_schema(parent, self.field)
        struct = self.struct
        if found is None:  # another transform may have put it in the envelope itself
            found, struct = field_schema(envelope_schema, self.field), None
        if found is None:
            return None
        return ResolvedReference(self.new_name, struct, self.field, found.as_optional())


def _struct_of(field: str) -> str | None:
    if field in _ENVELOPE_FIELDS:
        return None
    if field in _TRANSACTION_FIELDS:
        return TRANSACTION
    return _UPDATE_DESCRIPTION if field == _UPDATE_DESCRIPTION else SOURCE


def parse_references(key: str, entries: list[str], prefix: str) -> tuple[FieldReference, ...]:
    """The references listed under `key`; `ConfigError` naming it for an entry that names no field."""
    references = []
    for entry in entries:
        name, _, alias = entry.partition(":")
        if not name or ":" in alias or (":" in entry and not alias) or name.startswith(".") or name.endswith("."):
            raise ConfigError(
                {
                    key: f"Invalid value {entry!r}: each entry is a field (op, ts_ms, lsn, …), a qualified "
                    "field (source.ts_ms, transaction.id), optionally followed by :alias"
                }
            )
        references.append(FieldReference.parse(entry, prefix))
    return tuple(references)
