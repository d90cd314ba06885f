"""A PostgreSQL column as Debezium's relational model describes it to its column mappers
(`debezium.column_mappers.SourceColumn`): its type's short name, the length and scale the JDBC driver gives
(source_type.py), and whether Debezium's masks act on it.

Debezium sets a column's JDBC type from its root type (a domain's base type): pgjdbc's core types `text`,
`varchar`, `bpchar`, `"char"` and `name` are CHAR / VARCHAR, an enum type is VARCHAR, an array is ARRAY and
the other types, `citext` among them, OTHER; so the character columns are those of the first five and
enums. `bytea` is a binary column (a ByteBuffer in Debezium, which truncation cuts).
"""

from __future__ import annotations

from ..debezium.column_mappers import SourceColumn
from . import source_type
from .catalog_types import CatalogTypes
from .columns import BPCHAR, BYTEA, CHAR, NAME, TEXT, VARCHAR

_CHARACTER = frozenset({TEXT, VARCHAR, BPCHAR, CHAR, NAME})


def source_column(
    table: str,
    name: str,
    oid: int,
    modifier: int,
    type_short_name: str,
    types: CatalogTypes | None = None,
    comment: str | None = None,
) -> SourceColumn:
    """The column `name` of `table` ("schema.table") of type `oid` with type modifier `modifier`, whose type
    the catalog names `type_short_name`; `types` resolves domains to their base type and knows the enums."""
    types = types or CatalogTypes()
    base, base_modifier = types.base(oid, modifier)
    return SourceColumn(
        table,
        name,
        type_short_name,
        source_type.length(base, base_modifier),
        source_type.scale(base, base_modifier),
        character=base in _CHARACTER or base in types.labels,
        binary=base == BYTEA,
        comment=comment,
    )
