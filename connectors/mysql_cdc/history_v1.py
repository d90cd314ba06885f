"""The schema history records this connector wrote before it wrote Debezium's form: each column as
information_schema described it (`columnType` such as `int(10) unsigned`, `charsetName`, `optional`,
`keyPosition`). A restart over such a topic reads them into today's tables, each `columnType` parsed as the
type of a column definition."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from .column_definitions import resolve_column
from .ddl_edits import CreateTable
from .ddl_parser import UnparseableDdlError, parse_ddl
from .tables import Table, TableId


def table_of_v1_json(table: TableId, value: Mapping[str, Any]) -> Table:
    columns = sorted(value.get("columns") or (), key=lambda c: int(c.get("position") or 0))
    keyed = sorted((c for c in columns if int(c.get("keyPosition") or 0)), key=lambda c: int(c["keyPosition"]))
    resolved = []
    for column in columns:
        name = str(column["name"]).replace("`", "``")
        [edit] = parse_ddl(f"CREATE TABLE _ (`{name}` {column['columnType']})", "_")
        if not isinstance(edit, CreateTable) or len(edit.columns) != 1:
            raise UnparseableDdlError(f"the history's column type {column['columnType']!r} is not a column type")
        found = resolve_column(edit.columns[0], column.get("charsetName"))
        resolved.append(replace(found, optional=bool(column.get("optional", True))))
    return Table(table[0], table[1], tuple(resolved), tuple(str(c["name"]) for c in keyed))
