"""A captured PostgreSQL table's shape (debezium/table_shape.py), made from the catalog for the snapshot and
from pgoutput's Relation message while streaming: its tuples hold every column's text (or pgoutput's
unchanged TOASTed value), by position."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from ..debezium.table_shape import ShapeColumn, TableShape, UnmappableValueError
from .catalog_types import CatalogTypes
from .columns import PostgresTypeOptions, require_type
from .database import CatalogColumn
from .pgoutput import UNCHANGED_TOAST
from .settings import CdcSettings
from .source import SOURCE_SCHEMA
from .source_column import source_column

log = logging.getLogger(__name__)


class PostgresTableShape(TableShape):
    IDENTITY = frozenset({str})

    def __init__(self, settings: CdcSettings, schema: str, table: str, columns: Sequence[ShapeColumn]) -> None:
        self._unavailable_warned: set[str] = set()
        super().__init__(settings, schema, table, columns, SOURCE_SCHEMA, unavailable=UNCHANGED_TOAST)

    def unavailable_value(self, column: ShapeColumn) -> Any:
        """The value of an unchanged TOASTed value PostgreSQL did not send: Debezium's placeholder for the
        column's type; null (warned once) for a nullable column whose type has none, as Debezium writes it;
        a NOT NULL one fails, as null would break its schema."""
        if column.type.unavailable is not None:
            return column.type.unavailable
        where = f"column {column.name!r} of table {self.namespace}.{self.table} (type {column.type_label})"
        fix = f"ALTER TABLE {self.namespace}.{self.table} REPLICA IDENTITY FULL makes PostgreSQL send it"
        if not column.optional:
            raise UnmappableValueError(
                f"An update left out the unchanged TOASTed value of {where}, NOT NULL, and its type has no "
                f"placeholder (unavailable.value.placeholder covers text, bytea, json and their arrays, and "
                f"integer and date arrays): {fix}."
            )
        if column.name not in self._unavailable_warned:
            self._unavailable_warned.add(column.name)
            log.warning(
                "Updates leave out the unchanged TOASTed value of %s, and its type has no placeholder: those "
                "events carry null there (as Debezium's do); %s.",
                where,
                fix,
            )
        return None


def shape_of(
    settings: CdcSettings,
    schema: str,
    table: str,
    names: Sequence[tuple[str, int, int]],
    catalog: Sequence[CatalogColumn],
    types: CatalogTypes,
    options: PostgresTypeOptions,
) -> PostgresTableShape:
    """The shape of a table whose tuples hold the columns `names` ((name, type oid, typmod) in order), with
    nullability, primary key and type names from the catalog; raises UnsupportedTypeError for a kept column
    no Connect type fits."""
    by_name = {c.name: c for c in catalog}
    columns = []
    for position, (name, oid, modifier) in enumerate(names):
        if not settings.keeps_column(schema, table, name):
            continue
        known = by_name.get(name)
        type_name = known.type_name if known is not None else f"oid {oid}"
        kind = require_type(f"{schema}.{table}", name, oid, modifier, type_name, options, types)
        short_name = known.type_short_name if known is not None else ""
        source = source_column(f"{schema}.{table}", name, oid, modifier, short_name, types) if short_name else None
        key_position = known.key_position if known is not None else 0
        optional = known is None or known.nullable
        columns.append(ShapeColumn(position, name, kind, optional, key_position, type_name, source))
    return PostgresTableShape(settings, schema, table, columns)
