"""A table's row builder, compiled once per table shape: a row's values as the database gives them in, the
row's struct value out.

Every change makes one or two rows, so this is on the streams' hot path. A loop over the columns costs a
Python step per column (about 1 µs for three columns); the compiled function is one dict display with each
column's conversion inlined (a third of that), as `collections.namedtuple` and `dataclasses` compile theirs.
Its source holds nothing but generated names, the values' positions (tuple indexes, or a row dict's column
names) and the column names, all as `repr()` literals; converters and fallbacks are bound by name.

A row holding the database's "unavailable" marker (PostgreSQL's unchanged TOASTed value) goes to the column
loop (`slow`), which knows where to take the value from; so does a row whose value a converter refused, and
the column loop raises naming that column.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol


class Row(Protocol):
    def __call__(self, values: Any, previous: Any = None, /) -> dict[str, Any]: ...


class RowColumn(NamedTuple):
    position: int | str  # where the value is in what the database gives: a tuple index or a column name
    name: str
    parse: Callable[[Any], Any] | None  # None: the database's value is the Connect value
    fallback: Any  # the value of a NULL (None, or a NOT NULL column's zero value)
    mapper: Callable[[Any], Any] | None = None  # a column mapper (mask, truncation), after the conversion


def compile_row(columns: Sequence[RowColumn], slow: Row, unavailable: object | None = None) -> Row:
    """`slow`'s result for every row, as one expression per column for rows without `unavailable`."""
    bound: dict[str, Any] = {"_UNAVAILABLE": unavailable, "_slow": slow}
    picks, items = [], []
    for i, column in enumerate(columns):
        picks.append(f"        v{i} = values[{column.position!r}]")
        bound[f"_f{i}"] = column.fallback
        value = f"v{i}"
        if column.parse is not None:
            bound[f"_p{i}"] = column.parse
            value = f"_p{i}(v{i})"
        if column.parse is not None or column.fallback is not None:
            value = f"_f{i} if v{i} is None else {value}"
        if column.mapper is not None:  # as Debezium chains them: the mapper sees nulls too
            bound[f"_m{i}"] = column.mapper
            value = f"_m{i}({value})"
        items.append(f"{column.name!r}: {value}")
    source = "\n".join(
        [
            "def row(values, previous=None):",
            *(["    if _UNAVAILABLE in values:", "        return _slow(values, previous)"] if unavailable else []),
            "    try:",
            *picks,
            "        return {" + ", ".join(items) + "}",
            "    except Exception:",  # a value no converter takes: the slow path names its column
            "        return _slow(values, previous)",
        ]
    )
    exec(compile(source, "<cdc row>", "exec"), bound)
    row: Row = bound["row"]
    return row
