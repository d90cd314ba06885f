"""The database's own types, which `columns.py` maps by what the catalog says of them: enum types (their
labels), domain types (their base type and type modifier), and the types of the extensions Debezium maps
(`hstore`, `ltree`, `citext`, `isbn`), whose OIDs differ from database to database."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import psycopg2.extensions

EXTENSION_TYPES = ("hstore", "ltree", "citext", "isbn")
"""The extension types Debezium maps, by name (PostGIS's `geometry` and `geography` are not mapped)."""


@dataclass(frozen=True)
class CatalogTypes:
    labels: Mapping[int, tuple[str, ...]] = field(default_factory=dict)  # enum type oid -> its labels, in order
    arrays: Mapping[int, int] = field(default_factory=dict)  # array type oid -> enum type oid
    domains: Mapping[int, tuple[int, int]] = field(default_factory=dict)  # domain oid -> (base type, typmod)
    extensions: Mapping[int, str] = field(default_factory=dict)  # type oid -> its name in EXTENSION_TYPES
    extension_arrays: Mapping[int, str] = field(default_factory=dict)  # array type oid -> its element's name

    def base(self, oid: int, modifier: int) -> tuple[int, int]:
        """The type a column of type `oid` holds values of, and its modifier: a domain's base type (a domain
        of a domain: the first type that is not a domain), with the nearest type modifier a domain sets when
        the column has none, as Debezium resolves them (`PostgresType.getRootType`, `getDefaultLength`)."""
        while oid in self.domains:
            oid, domain_modifier = self.domains[oid]
            if modifier < 0:
                modifier = domain_modifier
        return oid, modifier


_ENUMS = (
    "SELECT t.oid, t.typarray, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) FROM pg_type t "
    "JOIN pg_enum e ON e.enumtypid = t.oid WHERE t.typtype = 'e' GROUP BY t.oid, t.typarray"
)
_DOMAINS_AND_EXTENSIONS = (
    "SELECT oid, typtype, typbasetype, typtypmod, typname, typarray FROM pg_type "
    "WHERE typtype = 'd' OR (typtype = 'b' AND typname = ANY(%s) AND typnamespace NOT IN "
    "(SELECT oid FROM pg_namespace WHERE nspname IN ('pg_catalog', 'information_schema')))"
)


def catalog_types(connection: psycopg2.extensions.connection) -> CatalogTypes:
    """The database's enum, domain and extension types (two read-only catalog queries)."""
    with connection.cursor() as cursor:
        cursor.execute(_ENUMS)
        enums = cursor.fetchall()
        cursor.execute(_DOMAINS_AND_EXTENSIONS, (list(EXTENSION_TYPES),))
        others = cursor.fetchall()
    domains, extensions, extension_arrays = {}, {}, {}
    for oid, kind, base, modifier, name, array in others:
        if kind == "d":
            domains[int(oid)] = (int(base), int(modifier))
        else:
            extensions[int(oid)] = name
            extension_arrays[int(array)] = name
    return CatalogTypes(
        {int(oid): tuple(labels) for oid, _, labels in enums},
        {int(array): int(oid) for oid, array, _ in enums},
        domains,
        extensions,
        extension_arrays,
    )
